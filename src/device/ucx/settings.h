// Runtime parameters of the UCX network module (STMPI_UCX_*). Read at init
// by util::load_all; nothing else in the module reads the environment,
// except that UCX's own UCX_TLS and UCX_NET_DEVICES are looked at (through
// ucp_config_read, never getenv) to decide whether the module may narrow
// the transports.
#pragma once

#include <cstddef>
#include <string>

namespace stmpi::dev::ucx {

// Bytes in front of every eager payload: the module's prefix and the
// device's wire header (ucx.h).
inline constexpr std::size_t kMinEagerSize = 144;

struct Settings {
  std::size_t eager_size = 0;    // bytes of one eager message, headers included
  int credits = 0;               // eager messages in flight per peer
  std::string progress_thread;   // "yes" or "no"
  int progress_thread_us = 0;    // how long the thread stays off a worker its rank polls
  int progress_thread_nice = 0;  // nice value of the progress thread
  std::string shm_transports;    // "exclude" or "allow": UCX's shared-memory transports
  int timeout_s = 0;             // longest wait for a network completion; 0: forever
};

const Settings& settings();
Settings& mutable_settings();

}  // namespace stmpi::dev::ucx
