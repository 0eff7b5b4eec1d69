// UCX context, worker and endpoints (worker.h).
//
// Transports: ranks of one node talk through the device's shared memory, so
// UCX only ever connects ranks the peer table calls remote. Its
// shared-memory transports (posix, sysv, cma) would join two "nodes" that
// share /dev/shm or a PID namespace (network namespaces on one host), and
// then carry traffic the job meant for the network. So unless the user
// chose transports (UCX_TLS set to anything but its default "all") or
// STMPI_UCX_SHM_TRANSPORTS=allow, the module excludes them. UCX_NET_DEVICES
// is left to the user. 64-bit atomics run in CPU mode unless the user set
// UCX_ATOMIC_MODE: the device's local origins combine the same words with
// CPU atomics, and a NIC's own atomics would not be atomic with those.
#include "device/ucx/worker.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace stmpi::dev::ucx {
namespace {

// The value UCX's configuration holds for `name` (e.g. "TLS"), as
// ucp_config_print writes it; "" when absent. Reads no environment itself:
// UCX read it in ucp_config_read.
std::string config_value(const ucp_config_t* config, const char* name) {
  char* text = nullptr;
  std::size_t size = 0;
  FILE* stream = open_memstream(&text, &size);
  if (stream == nullptr) return {};
  ucp_config_print(config, stream, nullptr, UCS_CONFIG_PRINT_CONFIG);
  std::fclose(stream);
  std::string all(text, size);
  std::free(text);
  const std::string key = std::string("UCX_") + name + "=";
  for (std::size_t at = 0; at < all.size();) {
    std::size_t end = all.find('\n', at);
    if (end == std::string::npos) end = all.size();
    if (all.compare(at, key.size(), key) == 0)
      return all.substr(at + key.size(), end - at - key.size());
    at = end + 1;
  }
  return {};
}

std::string ucx_error(const char* what, ucs_status_t status) {
  return std::string(what) + ": " + ucs_status_string(status);
}

}  // namespace

int Worker::open(int rank, int size, const WorkerOptions& options, std::string* error) {
  rank_ = rank;
  verbose_ = options.verbose;
  peers_.assign(size, Peer{});
  for (int peer = 0; peer < size; ++peer) {
    peers_[peer].self = this;
    peers_[peer].rank = peer;
  }
  ucp_config_t* config = nullptr;
  if (ucs_status_t s = ucp_config_read(nullptr, nullptr, &config); s != UCS_OK) {
    *error = ucx_error("ucp_config_read", s);
    return -1;
  }
  const std::string tls = config_value(config, "TLS");
  const std::string devices = config_value(config, "NET_DEVICES");
  if (options.exclude_shm && (tls.empty() || tls == "all")) {
    tls_choice_ = "^posix,sysv,cma";
    if (ucs_status_t s = ucp_config_modify(config, "TLS", tls_choice_.c_str()); s != UCS_OK) {
      *error = ucx_error("ucp_config_modify(TLS)", s);
      ucp_config_release(config);
      return -1;
    }
  } else {
    tls_choice_ = tls;
  }
  if (config_value(config, "ATOMIC_MODE") == "guess")
    (void)ucp_config_modify(config, "ATOMIC_MODE", "cpu");
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64;
  if (options.progress_thread) params.features |= UCP_FEATURE_WAKEUP;
  params.mt_workers_shared = 0;
  params.estimated_num_eps = static_cast<std::size_t>(size);
  const ucs_status_t init_status = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (init_status != UCS_OK) {
    *error = ucx_error("ucp_init", init_status);
    return -1;
  }
  // One worker, serialized by the module's lock: the rank and its progress
  // thread never call it at the same time (ucx.h says why not MULTI).
  ucp_worker_params_t wparams{};
  wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wparams.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  if (ucs_status_t s = ucp_worker_create(context_, &wparams, &worker_); s != UCS_OK) {
    *error = ucx_error("ucp_worker_create", s);
    ucp_cleanup(context_);
    context_ = nullptr;
    return -1;
  }
  ucp_address_t* address = nullptr;
  std::size_t length = 0;
  if (ucs_status_t s = ucp_worker_get_address(worker_, &address, &length); s != UCS_OK) {
    *error = ucx_error("ucp_worker_get_address", s);
    close(0);
    return -1;
  }
  address_.assign(reinterpret_cast<const char*>(address), length);
  ucp_worker_release_address(worker_, address);
  if (verbose_ && rank == 0)
    std::fprintf(stderr, "STMPI ucx: UCX %s, UCX_TLS=%s%s, UCX_NET_DEVICES=%s\n",
                 ucp_get_version_string(), tls_choice_.empty() ? "all" : tls_choice_.c_str(),
                 tls_choice_ == "^posix,sysv,cma" ? " (set by the module: no shared memory)" : "",
                 devices.empty() ? "all" : devices.c_str());
  return 0;
}

void Worker::on_endpoint_error(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* peer = static_cast<Peer*>(arg);
  Worker* self = peer->self;
  if (self->on_failure_ != nullptr) self->on_failure_(self->owner_, peer->rank, status);
}

ucp_ep_h Worker::endpoint(int peer, std::string* error) {
  Peer& p = peers_[peer];
  if (p.ep != nullptr) [[likely]]
    return p.ep;
  if (p.address.empty()) {
    *error = "no network address of rank " + std::to_string(peer);
    return nullptr;
  }
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.address = reinterpret_cast<const ucp_address_t*>(p.address.data());
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = &Worker::on_endpoint_error;
  params.err_handler.arg = &p;
  if (ucs_status_t s = ucp_ep_create(worker_, &params, &p.ep); s != UCS_OK) {
    p.ep = nullptr;
    *error = "ucp_ep_create to rank " + std::to_string(peer) + ": " + ucs_status_string(s);
    return nullptr;
  }
  if (verbose_ && rank_ == 0) {
    std::fprintf(stderr, "STMPI ucx: rank 0 -> rank %d:\n", peer);
    ucp_ep_print_info(p.ep, stderr);
  }
  return p.ep;
}

void Worker::close(int timeout_s) {
  if (worker_ == nullptr) return;
  // Close every endpoint at once, then progress until all closes ended or
  // the time is up; what is left is forced.
  std::vector<void*> closing;
  for (Peer& p : peers_) {
    if (p.ep == nullptr) continue;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = timeout_s > 0 ? 0 : UCP_EP_CLOSE_FLAG_FORCE;
    void* request = ucp_ep_close_nbx(p.ep, &param);
    if (UCS_PTR_IS_PTR(request)) closing.push_back(request);
    p.ep = nullptr;
  }
  // A close that has not ended by then is abandoned: the worker's
  // destruction releases it, and finalize never hangs on a dead peer.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (void* request : closing) {
    while (ucp_request_check_status(request) == UCS_INPROGRESS &&
           std::chrono::steady_clock::now() < deadline)
      ucp_worker_progress(worker_);
    if (ucp_request_check_status(request) != UCS_INPROGRESS) ucp_request_free(request);
  }
  ucp_worker_destroy(worker_);
  worker_ = nullptr;
  ucp_cleanup(context_);
  context_ = nullptr;
}

}  // namespace stmpi::dev::ucx
