// The UCX context, worker and endpoints of the network module: the
// transports UCX may use (worker.cc says how they are narrowed), the
// worker's address for PMI, endpoints to peers created on first use, and
// the endpoint error handler that turns a peer's death into a fatal error
// naming it. Not thread-safe by itself: its owner (Ucx, ucx.h) serializes
// every call with its one lock (the worker runs in UCS_THREAD_MODE_SERIALIZED).
#pragma once

#include <ucp/api/ucp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace stmpi::dev::ucx {

// Called when an endpoint fails (the peer died, its connection broke).
using EndpointFailure = void (*)(void* owner, int peer, ucs_status_t status);

// What the module needs from UCX at init.
struct WorkerOptions {
  bool verbose = false;
  bool exclude_shm = true;  // narrow UCX_TLS to exclude shared memory when unset
  bool progress_thread = true;
};

class Worker {
 public:
  Worker() = default;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() { close(0); }

  // Opens the context (active messages, RMA, 64-bit atomics, wake-up) and
  // the worker; 0, or -1 with *error holding UCX's text.
  [[nodiscard]] int open(int rank, int size, const WorkerOptions& options, std::string* error);
  // This worker's address, to publish through PMI.
  const std::string& address() const { return address_; }
  void set_peer_address(int peer, std::string address) {
    peers_[peer].address = std::move(address);
  }
  bool has_address(int peer) const { return !peers_[peer].address.empty(); }
  // The endpoint to `peer`, created on first use; nullptr with *error.
  ucp_ep_h endpoint(int peer, std::string* error);
  // Endpoints created so far (finalize closes them).
  bool connected(int peer) const { return peers_[peer].ep != nullptr; }
  void set_failure_handler(void* owner, EndpointFailure handler) {
    owner_ = owner;
    on_failure_ = handler;
  }
  // Closes every endpoint (flushing, then forcing after `timeout_s`
  // seconds; 0: at once), the worker and the context.
  void close(int timeout_s);

  ucp_context_h context() const { return context_; }
  ucp_worker_h worker() const { return worker_; }
  // The transports UCX was told to use ("" when left to UCX), and what the
  // user set (UCX_TLS, UCX_NET_DEVICES), for verbose output and stmpi_info.
  const std::string& tls_choice() const { return tls_choice_; }
  bool opened() const { return worker_ != nullptr; }

 private:
  struct Peer {
    std::string address;
    ucp_ep_h ep = nullptr;
    Worker* self = nullptr;  // error handler argument
    int rank = -1;
  };
  static void on_endpoint_error(void* arg, ucp_ep_h ep, ucs_status_t status);

  int rank_ = 0;
  bool verbose_ = false;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  std::string address_;
  std::vector<Peer> peers_;
  std::string tls_choice_;
  void* owner_ = nullptr;
  EndpointFailure on_failure_ = nullptr;
};

// A UCX status as text for messages.
inline const char* status_text(ucs_status_t status) { return ucs_status_string(status); }

}  // namespace stmpi::dev::ucx
