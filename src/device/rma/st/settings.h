// Runtime parameters of stream-triggered RMA (STMPI_ST_*), applied at
// MPI_Init.
#pragma once

namespace stmpi::dev::rma::st {

struct Settings {
  // Access epochs of one window whose plans a stream has not executed yet.
  // At the limit MPIX_Win_complete_stream waits (on the CPU) until the
  // stream has executed the oldest one; this bounds the memory of plans.
  int max_pending_epochs = 4096;
  // Print each window's stream statistics at MPI_Win_free.
  bool print_stats = false;
};

const Settings& settings();

}  // namespace stmpi::dev::rma::st
