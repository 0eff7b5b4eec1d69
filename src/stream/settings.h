// Runtime parameters of the stream module (STMPI_STREAM_*), applied at
// MPI_Init. Host streams created before MPI_Init use the built-in values,
// which equal the table's defaults.
#pragma once

#include <string>

namespace stmpi::stream {

struct Settings {
  std::string backend = "auto";  // auto | host | hip | cuda
  int spin_us = 20;              // busy polling before a yield or a sleep
  int poll_sleep_us = 50;        // longest sleep between two polls of a wait
};

const Settings& settings();

}  // namespace stmpi::stream
