// Runtime parameters of stream-triggered RMA (STMPI_ST_*), applied at
// MPI_Init.
#pragma once

#include <string>

namespace stmpi::dev::rma::st {

struct Settings {
  // Access epochs of one window whose plans a stream has not executed yet.
  // At the limit MPIX_Win_complete_stream waits (on the CPU) until the
  // stream has executed the oldest one; this bounds the memory of plans.
  int max_pending_epochs = 4096;
  // Print each window's stream statistics at MPI_Win_free.
  bool print_stats = false;
  // Between nodes: how triggered operations are posted: auto | native |
  // deferred | software (triggered_ops.h, TriggerMode).
  std::string trigger = "auto";
  // Who waits when counters or triggered-op slots run out: application |
  // static | adaptive (ThrottlePolicy).
  std::string throttle = "adaptive";
  // The process's budget of trigger counters and of triggered operations
  // posted and not yet completed (one pool per network domain).
  int counters = 256;
  int triggered_ops = 16384;
  // Seconds a stream waits for a signal word of a triggered epoch before it
  // gives up and reports which epoch, peer and counter stalled; 0: forever.
  int wait_timeout_s = 0;
  // Tests: the n-th operation the software engine fires (n >= 1) fails; 0:
  // none.
  int fault_inject = 0;
};

const Settings& settings();

}  // namespace stmpi::dev::rma::st
