// Runtime parameters of the stream module (STMPI_STREAM_*), applied at
// MPI_Init. Host streams created before MPI_Init use the built-in values,
// which equal the table's defaults.
#pragma once

#include <cstddef>
#include <string>

namespace stmpi::stream {

struct Settings {
  std::string backend = "auto";         // auto | host | hip | cuda
  int spin_us = -1;                     // busy polling before a yield or a sleep; -1: automatic
  int poll_sleep_us = 50;               // longest sleep between two polls of a wait
  int yield_us = 2000;                  // yielding polls of a wait before it sleeps
  int polls_per_yield = 1;              // polls between two yields; 0: the device's rule
  bool caller_runs = true;              // synchronize runs queued operations itself
  bool inline_ops = true;               // library operations on an idle stream run at enqueue
  bool progress = true;                 // MPI progress runs ready library operations (run_ready)
  std::size_t gpu_epoch_bytes = 65536;  // largest epoch step run as one GPU kernel; 0: never
  bool stage_host = false;  // tests: host streams stage enqueued buffers as GPU streams do
};

const Settings& settings();

// MPI_Init reports how many ranks share this node, for the automatic spin.
void set_ranks_on_node(int ranks);
// Polls between two sched_yield calls of a host wait: the setting, or for
// 0 the device's RMA waits' rule (20 when the node's ranks outnumber its
// cores, else 1000).
int effective_polls_per_yield();
// The spin in microseconds: the setting, or, when automatic, 20 when every
// rank and one executor per rank can each have a core, else 0 (spinning
// executors would take the cores their ranks need).
int effective_spin_us();

}  // namespace stmpi::stream
