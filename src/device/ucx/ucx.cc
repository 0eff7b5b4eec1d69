// Ucx: what the device asks of a module (probe, capabilities, statistics,
// description), open and close, eager sends with credits, arrivals in order,
// rendezvous by ucp_get_nbx, the progress thread (ucx.h explains them).
#include "device/ucx/ucx_transport.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <mpi.h>

#include "device/device.h"
#include "device/ucx/settings.h"
#include "util/backoff.h"

namespace stmpi::dev::ucx {

// `auto` prefers UCX over ofi (which answers 10) where both are built and
// UCX can run: between two namespaces on a quiet machine, in back-to-back
// runs of test/bench/net_run.sh against the same MPICH, UCX's 8 B latency
// was a quarter of ofi's (tcp;ofi_rxm) and its one-sided epochs up to four
// times shorter; ofi kept better truly passive overlap and lock fairness
// (test/bench/RESULTS.md, "d29-netmod-quiet"). STMPI_NETMOD=ofi selects it.
constexpr int kAutoScore = 20;

int Ucx::probe(int, std::span<const PeerInfo>, netmod::Probe* out) {
  out->usable = true;
  out->score = kAutoScore;
  out->why = std::string("UCX ") + ucp_get_version_string() +
             " (UCP active messages, RMA, 64-bit atomics; its TCP transport reaches every host)";
  return MPI_SUCCESS;
}

netmod::Capabilities Ucx::capabilities() const {
  netmod::Capabilities c;
  c.rma = initialized_;
  c.atomics64 = initialized_;
  c.accumulate = initialized_;
  c.ordering = initialized_;
  c.triggered = false;
  c.progress_thread = progress_thread_.joinable();
  return c;
}

netmod::Stats Ucx::stats() const {
  netmod::Stats s;
  s.credit_waits = credit_waits_;
  s.reordered = reordered_;
  s.thread_polls = thread_polls();
  s.thread_sleeps = thread_blocks();
  s.thread_wakeups = thread_wakeups();
  return s;
}

std::string Ucx::description() const {
  std::string text = std::string("ucx: UCX ") + ucp_get_version_string();
  if (!worker_.opened()) return text;
  text += ", UCX_TLS=" + (worker_.tls_choice().empty() ? std::string("all") : worker_.tls_choice());
  text += ", eager " + std::to_string(eager_size_) + " B, " + std::to_string(credits_) +
          " credits, progress thread " + (progress_thread_.joinable() ? "on" : "off");
  return text;
}

int Ucx::open(int rank, int size, bool verbose, Exchange exchange, void* arg, std::string* error) {
  const Settings& s = settings();
  rank_ = rank;
  size_ = size;
  verbose_ = verbose;
  eager_size_ = s.eager_size;
  credits_ = s.credits;
  const bool thread = s.progress_thread == "yes";
  WorkerOptions options;
  options.verbose = verbose;
  options.exclude_shm = s.shm_transports == "exclude";
  options.progress_thread = thread;
  if (worker_.open(rank, size, options, error) != 0) return -1;
  worker_.set_failure_handler(this, &Ucx::on_endpoint_failure);
  ucp_am_handler_param_t am{};
  am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                  UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  am.id = kAmId;
  am.flags = UCP_AM_FLAG_PERSISTENT_DATA;
  am.cb = &Ucx::on_am;
  am.arg = this;
  if (ucs_status_t st = ucp_worker_set_am_recv_handler(worker_.worker(), &am); st != UCS_OK) {
    *error = std::string("ucp_worker_set_am_recv_handler: ") + status_text(st);
    worker_.close(0);
    return -1;
  }
  std::vector<std::string> addresses;
  if (exchange(arg, worker_.address(), &addresses, error) != 0) {
    worker_.close(0);
    return -1;
  }
  for (int peer = 0; peer < size; ++peer)
    if (peer != rank && !addresses[peer].empty())
      worker_.set_peer_address(peer, std::move(addresses[peer]));
  send_credits_.assign(size, credits_);
  owed_.assign(size, 0);
  send_seq_.assign(size, 0);
  recv_seq_.assign(size, 0);
  early_.assign(size, {});
  bye_.assign(size, 0);
  unflushed_.assign(size, 0);
  unflushed_peers_ = 0;
  initialized_ = true;
  if (thread) {
    if (ucs_status_t st = ucp_worker_get_efd(worker_.worker(), &efd_); st != UCS_OK) {
      *error = std::string("ucp_worker_get_efd: ") + status_text(st);
      return -1;
    }
    stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    stop_thread_ = false;
    progress_thread_ = std::thread([this, us = s.progress_thread_us] { progress_thread_main(us); });
    // Waits yield often enough for it to run (util/backoff.h): on a node
    // whose ranks each seem to have a CPU, a waiter spinning 2^14 polls kept
    // other ranks' progress threads (and ranks) off the CPUs they share.
    util::set_host_progress_threads(true);
  }
  return 0;
}

void Ucx::stop_progress_thread() {
  if (!progress_thread_.joinable()) return;
  stop_thread_ = true;
  const uint64_t one = 1;
  (void)!write(stop_fd_, &one, sizeof one);
  progress_thread_.join();
  ::close(stop_fd_);
  stop_fd_ = -1;
  util::set_host_progress_threads(false);
}

void Ucx::abandon() {
  if (!initialized_) return;
  stop_progress_thread();
  closing_ = true;
  worker_.close(0);
  initialized_ = false;
}

void Ucx::finalize() {
  if (!initialized_) return;
  stop_progress_thread();
  std::lock_guard<std::mutex> guard(lock_);
  closing_ = true;
  say_goodbye();
  for (auto& [number, rkey] : rts_keys_)
    if (rkey != nullptr) ucp_rkey_destroy(rkey);
  rts_keys_.clear();
  for (auto& [number, e] : exposures_) {
    ucp_rkey_buffer_release(e.packed);
    ucp_mem_unmap(worker_.context(), e.memh);
  }
  exposures_.clear();
  for (auto& early : early_)
    for (auto& [seq, a] : early)
      if (a.owned) delete[] static_cast<char*>(a.data);
      else ucp_am_data_release(worker_.worker(), a.data);
  for (const Arrival& a : arrived_)
    if (a.owned) delete[] static_cast<char*>(a.data);
    else ucp_am_data_release(worker_.worker(), a.data);
  arrived_.clear();
  worker_.close(settings().timeout_s);
  for (char* buffer : free_buffers_) delete[](buffer - 16);
  free_buffers_.clear();
  initialized_ = false;
}

// Every rank finalizes after the job's last barrier: each tells the peers
// it talked to that it is closing and waits (at most STMPI_UCX_TIMEOUT) for
// theirs, so that a connection closing after that is not taken for a dead
// peer, and no endpoint closes under a message still in flight.
void Ucx::say_goodbye() {
  std::vector<int> talked;
  for (int peer = 0; peer < size_; ++peer)
    if (worker_.connected(peer) || recv_seq_[peer] != 0) talked.push_back(peer);
  for (int peer : talked) {
    char* buffer = take_buffer(sizeof(UcxPrefix));
    UcxPrefix prefix{rank_, 0, 0, kTypeBye, 0, 0};
    std::memcpy(buffer, &prefix, sizeof prefix);
    (void)send_locked(peer, buffer, sizeof prefix);
  }
  const int timeout_s = settings().timeout_s;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (int peer : talked) {
    while (!bye_[peer] && (timeout_s == 0 || std::chrono::steady_clock::now() < deadline))
      progress_locked();
  }
}

char* Ucx::take_buffer(std::size_t bytes) {
  if (bytes <= eager_size_ && !free_buffers_.empty()) {
    char* buffer = free_buffers_.back();
    free_buffers_.pop_back();
    return buffer;
  }
  // The 16 bytes before the buffer say how big it is (give_buffer tells
  // pooled buffers from larger ones, an RTS with a long key) and whose it
  // is (UCX's completion callback gets only the buffer).
  const std::size_t capacity = bytes <= eager_size_ ? eager_size_ : bytes;
  char* block = new char[capacity + 16];
  Ucx* self = this;
  std::memcpy(block, &capacity, sizeof capacity);
  std::memcpy(block + 8, &self, sizeof self);
  return block + 16;
}

void Ucx::give_buffer(char* buffer) {
  std::size_t capacity;
  std::memcpy(&capacity, buffer - 16, sizeof capacity);
  if (capacity == eager_size_ && free_buffers_.size() < 256) free_buffers_.push_back(buffer);
  else delete[](buffer - 16);
}

void Ucx::on_send_done(void* request, ucs_status_t status, void* user_data) {
  auto* buffer = static_cast<char*>(user_data);
  Ucx* self = nullptr;
  std::memcpy(&self, buffer - 8, sizeof self);
  ucp_request_free(request);
  self->give_buffer(buffer);
  if (status != UCS_OK && status != UCS_ERR_CANCELED && !self->closing_)
    self->fatal("an active message failed: " + std::string(status_text(status)));
}

bool Ucx::send_locked(int peer, char* data, std::size_t bytes) {
  std::string why;
  ucp_ep_h ep = worker_.endpoint(peer, &why);
  if (ep == nullptr) fatal(why);
  ucp_request_param_t param{};
  param.op_attr_mask =
      UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_AM_SEND_FLAG_EAGER;
  param.cb.send = &Ucx::on_send_done;
  param.user_data = data;
  void* request = ucp_am_send_nbx(ep, kAmId, nullptr, 0, data, bytes, &param);
  if (request == nullptr) {
    give_buffer(data);
    return true;
  }
  if (UCS_PTR_IS_ERR(request)) {
    give_buffer(data);
    fatal("sending to rank " + std::to_string(peer) + ": " + status_text(UCS_PTR_STATUS(request)));
  }
  return true;
}

bool Ucx::send(int peer, const WireHeader& h, const void* payload) {
  std::lock_guard<std::mutex> guard(lock_);
  if (send_credits_[peer] == 0) {
    ++credit_waits_;
    // Credits come back through progress: look once before refusing.
    progress_locked();
    if (send_credits_[peer] == 0) return false;
  }
  const Exposure* key = nullptr;
  if (h.kind == MsgKind::kRts) {
    auto it = exposures_.find(h.rkey);
    if (it != exposures_.end()) key = &it->second;
  }
  const std::size_t key_bytes = key != nullptr ? key->packed_bytes : 0;
  const std::size_t bytes = kHeaders + h.payload_bytes + key_bytes;
  char* buffer = take_buffer(bytes);
  UcxPrefix prefix{rank_,
                   send_seq_[peer]++,
                   static_cast<uint16_t>(owed_[peer]),
                   kTypeMessage,
                   0,
                   static_cast<uint32_t>(key_bytes)};
  owed_[peer] = 0;
  std::memcpy(buffer, &prefix, sizeof prefix);
  std::memcpy(buffer + sizeof prefix, &h, sizeof h);
  if (h.payload_bytes != 0) std::memcpy(buffer + kHeaders, payload, h.payload_bytes);
  if (key_bytes != 0) std::memcpy(buffer + kHeaders + h.payload_bytes, key->packed, key_bytes);
  --send_credits_[peer];
  return send_locked(peer, buffer, bytes);
}

void Ucx::send_credit_locked(int peer) {
  if (owed_[peer] == 0) return;
  char* buffer = take_buffer(sizeof(UcxPrefix));
  UcxPrefix prefix{rank_, 0, static_cast<uint16_t>(owed_[peer]), kTypeCredit, 0, 0};
  owed_[peer] = 0;
  std::memcpy(buffer, &prefix, sizeof prefix);
  ++credit_messages_;
  (void)send_locked(peer, buffer, sizeof prefix);
}

ucs_status_t Ucx::on_am(void* arg, const void*, std::size_t, void* data, std::size_t length,
                        const ucp_am_recv_param_t* param) {
  auto* self = static_cast<Ucx*>(arg);
  UcxPrefix prefix;
  if (length < sizeof prefix) return UCS_OK;
  std::memcpy(&prefix, data, sizeof prefix);
  const int sender = prefix.sender;
  switch (prefix.type) {
    case kTypeCredit: self->send_credits_[sender] += prefix.credits; return UCS_OK;
    case kTypeBye: self->bye_[sender] = 1; return UCS_OK;
    default: break;
  }
  self->send_credits_[sender] += prefix.credits;
  // UCP_AM_FLAG_PERSISTENT_DATA: UCX keeps the data until released.
  const bool persistent = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) != 0;
  void* kept = data;
  if (!persistent) {
    kept = new char[length];
    std::memcpy(kept, data, length);
  }
  self->deliver_in_order(sender, kept, length, !persistent);
  return persistent ? UCS_INPROGRESS : UCS_OK;
}

void Ucx::deliver_in_order(int sender, void* data, std::size_t length, bool owned) {
  const uint32_t seq = static_cast<const UcxPrefix*>(data)->seq;
  if (seq != recv_seq_[sender]) {
    ++reordered_;
    early_[sender].emplace(seq, Arrival{data, length, owned});
    return;
  }
  arrived_.push_back(Arrival{data, length, owned});
  ++recv_seq_[sender];
  auto& early = early_[sender];
  for (auto it = early.find(recv_seq_[sender]); it != early.end();
       it = early.find(recv_seq_[sender])) {
    arrived_.push_back(it->second);
    early.erase(it);
    ++recv_seq_[sender];
  }
}

void Ucx::progress_locked() {
  while (ucp_worker_progress(worker_.worker()) != 0) {
  }
}

int Ucx::expose(int peer, const void* buf, std::size_t bytes, WireHeader* h) {
  std::lock_guard<std::mutex> guard(lock_);
  Exposure e;
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  params.address = const_cast<void*>(buf);
  params.length = bytes;
  ucs_status_t st = ucp_mem_map(worker_.context(), &params, &e.memh);
  if (st == UCS_OK) {
    st = ucp_rkey_pack(worker_.context(), e.memh, &e.packed, &e.packed_bytes);
    if (st != UCS_OK) ucp_mem_unmap(worker_.context(), e.memh);
  }
  if (st != UCS_OK)
    return fail("exposing " + std::to_string(bytes) + " bytes to rank " + std::to_string(peer) +
                ": " + status_text(st));
  const uint64_t number = next_number_++;
  exposures_.emplace(number, e);
  h->address = reinterpret_cast<uint64_t>(buf);
  h->rkey = number;
  return 0;
}

void Ucx::unexpose(const WireHeader& h) {
  std::lock_guard<std::mutex> guard(lock_);
  auto it = exposures_.find(h.rkey);
  if (it == exposures_.end()) return;
  ucp_rkey_buffer_release(it->second.packed);
  ucp_mem_unmap(worker_.context(), it->second.memh);
  exposures_.erase(it);
}

void Ucx::on_pull_done(void* request, ucs_status_t status, void* user_data) {
  auto* state = static_cast<OpState*>(user_data);
  state->status = status;
  ucp_request_free(request);
  Ucx* self = state->owner;
  auto it = self->rts_keys_.find(state->rkey_slot);
  if (it != self->rts_keys_.end()) {
    ucp_rkey_destroy(it->second);
    self->rts_keys_.erase(it);
  }
  self->pulls_done_.push_back(state);
}

PullStatus Ucx::pull(int peer, const WireHeader& rts, void* local, std::size_t bytes,
                     RequestDev* req) {
  std::lock_guard<std::mutex> guard(lock_);
  auto it = rts_keys_.find(rts.rkey);
  if (it == rts_keys_.end() || it->second == nullptr) return PullStatus::kUnsupported;
  std::string why;
  ucp_ep_h ep = worker_.endpoint(peer, &why);
  if (ep == nullptr) return PullStatus::kFailed;
  auto* state = new OpState;
  state->req = req;
  state->rkey_slot = rts.rkey;
  state->owner = this;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = &Ucx::on_pull_done;
  param.user_data = state;
  void* request = ucp_get_nbx(ep, local, bytes, rts.address, it->second, &param);
  if (UCS_PTR_IS_PTR(request)) return PullStatus::kPending;
  delete state;
  ucp_rkey_destroy(it->second);
  rts_keys_.erase(it);
  return request == nullptr ? PullStatus::kDone : PullStatus::kFailed;
}

int Ucx::fail(const std::string& text) {
  error_ = text;
  return -1;
}

void Ucx::fatal(const std::string& message) {
  if (fatal_ != nullptr) fatal_(message);
  std::fprintf(stderr, "STMPI ucx (rank %d): %s\n", rank_, message.c_str());
  std::abort();
}

void Ucx::on_endpoint_failure(void* owner, int peer, ucs_status_t status) {
  auto* self = static_cast<Ucx*>(owner);
  // A peer that said goodbye closes its side: not a failure; nor is
  // anything once this rank closes.
  if (self->bye_[peer] || self->closing_) return;
  // The launcher sees a process of its node die at once and names it when
  // it ends the job; a moment's grace keeps this rank's report of the
  // broken connection from racing ahead of that (the peer's own exit code
  // is the cause the user needs). A peer on a lost node is reported after it.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  self->fatal("the connection to rank " + std::to_string(peer) + " failed (" + status_text(status) +
              "): that process died or its node is unreachable");
}

// The progress thread: while the rank polls (an MPI call waits), it stays
// off the worker and looks again after `stay_off_us`; once nothing has
// polled for that long it progresses the worker itself, arms the event
// descriptor and sleeps on it until the network brings work (or the stop
// descriptor fires). After a wake-up it serves the work and, if the rank
// still has not polled, arms and sleeps again at once: a target that
// computes outside MPI answers each step of another rank's epoch (lock,
// put, unlock, each a round trip over TCP) within one wake-up, not one
// wake-up plus `stay_off_us`.
void Ucx::progress_thread_main(int stay_off_us) {
  if (int nice = settings().progress_thread_nice; nice != 0)
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice);
  uint64_t seen = polls_.load(std::memory_order_relaxed);
  const int stay_off_ms = std::max(1, stay_off_us / 1000);
  bool rank_idle = false;  // the rank has not polled since the thread last looked
  while (!stop_thread_.load(std::memory_order_relaxed)) {
    if (!rank_idle) {
      pollfd stop{stop_fd_, POLLIN, 0};
      if (stay_off_us < 1000) usleep(static_cast<useconds_t>(stay_off_us));
      else (void)::poll(&stop, 1, stay_off_ms);
      const uint64_t now = polls_.load(std::memory_order_relaxed);
      if (now != seen) {
        seen = now;
        continue;
      }
    }
    rank_idle = false;
    // Nobody polled for a while: drive the worker until it is armed.
    bool armed = false;
    {
      std::unique_lock<std::mutex> guard(lock_, std::try_to_lock);
      if (!guard.owns_lock()) continue;
      for (;;) {
        progress_locked();
        thread_polls_.fetch_add(1, std::memory_order_relaxed);
        const ucs_status_t st = ucp_worker_arm(worker_.worker());
        if (st == UCS_ERR_BUSY) continue;
        armed = st == UCS_OK;
        break;
      }
    }
    if (!armed) continue;
    thread_blocks_.fetch_add(1, std::memory_order_relaxed);
    const uint64_t before = polls_.load(std::memory_order_relaxed);
    pollfd fds[2] = {{efd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    // Sleep until the network or the stop descriptor wakes us; a rank that
    // starts polling meanwhile takes over at the next look.
    if (::poll(fds, 2, -1) > 0 && (fds[0].revents & POLLIN) != 0)
      thread_wakeups_.fetch_add(1, std::memory_order_relaxed);
    seen = polls_.load(std::memory_order_relaxed);
    // Woken by the network: progress at once, whether or not the rank
    // polls (it may be computing), unless it polled since we slept; then
    // straight back to sleep on the descriptor while it stays idle.
    if (seen == before) {
      std::lock_guard<std::mutex> guard(lock_);
      progress_locked();
      thread_polls_.fetch_add(1, std::memory_order_relaxed);
      rank_idle = true;
    }
  }
}

}  // namespace stmpi::dev::ucx
