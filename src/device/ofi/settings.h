// Runtime parameters of the libfabric network module (STMPI_OFI_*). Read at
// init by util::load_all. (STMPI_NETMOD is the device's: netmod/modules.cc.)
#pragma once

#include <cstddef>
#include <string>

namespace stmpi::dev::ofi {

// The smallest STMPI_OFI_EAGER_SIZE: the headers (kHeaders in ofi.h) and 64
// bytes of payload.
inline constexpr std::size_t kMinEagerSize = 144;

struct Settings {
  std::string provider;          // empty: the best provider fi_getinfo offers
  std::string iface;             // "auto", "none", an interface name or an IPv4 address
  std::string data_progress;     // "provider" or "manual" (fabric.h, select_provider)
  std::string progress_thread;   // "auto", "yes" or "no"
  int progress_thread_us = 0;    // sleep of the progress thread between polls
  std::string progress_block;    // "auto" or "no": the thread sleeps on the provider's descriptors
  int progress_thread_nice = 0;  // nice value of a thread that sleeps on the descriptors
  int provider_thread_nice = 0;  // nice value set on the provider's own progress threads
  std::string host_progress;     // "auto", "yes" or "no": the provider progresses in host threads
  std::size_t eager_size = 0;    // bytes of one eager message, headers included
  int credits = 0;               // eager messages in flight per peer
  int recv_buffers = 0;          // posted receive buffers (multi-receive or single)
  std::size_t recv_buffer_size = 0;
  int bounce_buffers = 0;  // send copies in flight
  int mr_cache = 0;        // cached registrations; 0: register every time
  int timeout_s = 0;       // longest wait for a network completion; 0: forever
  // The triggered-operation pool (ofi_triggered.h): a counter is reset in
  // place before its provider value passes this (sockets: 32-bit signed).
  std::size_t st_counter_limit = 0;
};

const Settings& settings();
// For tests: the fields that load_all fills.
Settings& mutable_settings();

}  // namespace stmpi::dev::ofi
