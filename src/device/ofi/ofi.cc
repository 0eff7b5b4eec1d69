#include "device/ofi/ofi.h"

#include <dirent.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <sched.h>
#include <sys/resource.h>

#include <unistd.h>
#include <cerrno>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "device/ofi/retry.h"
#include "device/ofi/settings.h"
#include "util/backoff.h"
#include "util/error.h"

namespace stmpi::dev::ofi {
static_assert(kMinEagerSize == kHeaders + 64, "settings.h: the smallest eager message");
namespace {

constexpr int kCqBatch = 16;

void default_fatal(const std::string& message) {
  std::fprintf(stderr, "STMPI network module: %s\n", message.c_str());
  std::abort();
}

// Providers whose data progress is a host thread of the process (their
// "automatic progress" included), alone or under a utility provider:
// "tcp;ofi_rxm" names each part.
bool software_provider(const char* name) {
  if (name == nullptr) return false;
  const std::string text(name);
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(';', begin);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(begin, end - begin);
    if (part == "sockets" || part == "tcp" || part == "udp" || part == "shm") return true;
    begin = end + 1;
  }
  return false;
}

// The threads of this process (/proc/self/task), sorted; empty if unreadable.
std::vector<pid_t> process_threads() {
  std::vector<pid_t> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (const dirent* entry = readdir(dir))
    if (entry->d_name[0] != '.') tids.push_back(static_cast<pid_t>(std::atoi(entry->d_name)));
  closedir(dir);
  std::sort(tids.begin(), tids.end());
  return tids;
}

}  // namespace

void Ofi::fatal(const std::string& message) {
  (fatal_ ? fatal_ : default_fatal)(message);
  std::abort();  // a handler must not return
}

int Ofi::init(int rank, int size, const Allgather& allgather, bool verbose) {
  if (initialized_) return MPI_SUCCESS;
  verbose_ = verbose;
  std::string error;
  if (open(rank, size, allgather, &error) != 0)
    return util::make_error(MPI_ERR_OTHER, "network module (ofi) init on rank %d: %s", rank,
                            error.c_str());
  return MPI_SUCCESS;
}

int Ofi::open(int rank, int size, const Allgather& allgather, std::string* error) {
  const Settings& s = settings();
  rank_ = rank;
  size_ = size;
  apply_provider_defaults();
  std::string address;
  if (resolve_iface(s.iface, &address, error) != 0) return -1;
  // Threads that appear while the provider is opened and connected are the
  // provider's (its automatic progress); ours start only after that.
  const std::vector<pid_t> threads_before = process_threads();
  ProviderChoice choice;
  // provider: automatic progress where the provider offers it (passive
  // targets progress in its threads, woken by the network); manual: the
  // waiting rank drives the provider (src/device/ofi/README.md, "Manual progress").
  const fi_progress want = s.data_progress == "manual" ? FI_PROGRESS_MANUAL : FI_PROGRESS_AUTO;
  if (select_provider(s.provider, address, want, &choice, error) != 0) return -1;
  // The progress thread sleeps on the provider's descriptors where it can
  // (progress_thread_main); only a manual-progress domain has one.
  const bool want_wait_set =
      s.progress_block == "auto" && !choice.auto_progress && s.progress_thread != "no";
  if (fabric_.open(std::move(choice), want_wait_set, error) != 0) {
    *error = "libfabric provider " + fabric_.choice().description + ": " + *error;
    return -1;
  }
  const fi_info* info = fabric_.info();
  local_mr_ = (info->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
  eager_size_ = std::min<std::size_t>(s.eager_size, info->ep_attr->max_msg_size);
  cache_.init(&fabric_, s.mr_cache);
  credits_ = s.credits;
  send_credits_.assign(size, credits_);
  owed_.assign(size, 0);
  send_seq_.assign(size, 0);
  recv_seq_.assign(size, 0);
  early_.assign(size, {});
  credit_ctx_.assign(size, OpContext{});
  credit_busy_.assign(size, 0);
  credit_buf_.assign(size, OfiPrefix{});
  atomic_valid_.assign(3 * FI_ATOMIC_OP_LAST * FI_DATATYPE_LAST, -1);
  if (setup_buffers(error) != 0) return -1;

  std::string names;
  if (fabric_.local_names(&names, error) != 0) return -1;
  std::vector<std::string> all;
  if (allgather(names, &all, error) != 0) return -1;
  if (all.size() != static_cast<std::size_t>(size)) {
    *error = "address exchange returned " + std::to_string(all.size()) + " names for " +
             std::to_string(size) + " ranks";
    return -1;
  }
  if (fabric_.insert_peers(all, error) != 0) return -1;
  atomics64_ = atomic_valid(1, FI_SUM, FI_UINT64) && atomic_valid(2, FI_CSWAP, FI_UINT64) &&
               atomic_valid(1, FI_ATOMIC_READ, FI_UINT64) &&
               atomic_valid(0, FI_ATOMIC_WRITE, FI_UINT64);
  if (fabric_.choice().auto_progress) prioritize_provider_threads(threads_before);

  const bool want_thread = s.progress_thread == "yes" ||
                           (s.progress_thread == "auto" && !fabric_.choice().auto_progress);
  if (want_thread && fabric_.choice().thread_safe)
    progress_thread_.start(fabric_, polls_, s.progress_thread_us, s.progress_thread_nice);
  // A waiting rank must leave CPU time to the threads that progress the
  // provider (util/backoff.h): other ranks' one-sided operations on this
  // rank's memory and its arrivals wait for them.
  const bool host_threads =
      s.host_progress == "yes" || (s.host_progress == "auto" && fabric_.choice().auto_progress &&
                                   software_provider(fabric_.info()->fabric_attr->prov_name));
  util::set_host_progress_threads(host_threads);
  initialized_ = true;
  if (verbose_ && rank_ == 0) {
    std::fprintf(stderr,
                 "STMPI network module: libfabric %u.%u, provider %s; eager up to %zu bytes, %d "
                 "credits per peer, %s receive buffers, %d provider threads (%d at nice %d%s%s), "
                 "progress thread %s%s\n",
                 FI_MAJOR(fi_version()), FI_MINOR(fi_version()), description().c_str(),
                 max_payload(), credits_, fabric_.choice().multi_recv ? "multi-receive" : "single",
                 provider_threads_, provider_threads_reniced_, s.provider_thread_nice,
                 provider_nice_failed_ != 0 ? "; setpriority: " : "",
                 provider_nice_failed_ != 0 ? std::strerror(provider_nice_failed_) : "",
                 progress_thread_.running() ? "running" : "off",
                 want_thread && !progress_thread_.running()
                     ? " (wanted, but the domain is not thread safe: passive targets progress "
                       "only inside MPI calls)"
                     : "");
  }
  return 0;
}

// Under automatic progress the provider's own threads apply other ranks'
// one-sided operations and deliver arrivals while this rank computes. At
// the rank's priority a woken provider thread may wait for the scheduler
// to preempt the computation; at STMPI_OFI_PROVIDER_THREAD_NICE < 0 it runs
// at once, as ours does under manual progress. Off by default: it raised
// seed 004's overlap but slowed the latency-bound paths, where the waiting
// rank and the preempting thread contend for the provider
// (docs/user/network.md, "Progress: who drives the provider").
void Ofi::prioritize_provider_threads(const std::vector<pid_t>& before) {
  const int nice = settings().provider_thread_nice;
  for (pid_t tid : process_threads()) {
    if (std::binary_search(before.begin(), before.end(), tid)) continue;
    ++provider_threads_;
    if (nice == 0) continue;
    if (setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice) != 0) provider_nice_failed_ = errno;
    else ++provider_threads_reniced_;
  }
}

bool Ofi::atomic_valid(int kind, fi_op op, fi_datatype type) {
  if (op < 0 || op >= FI_ATOMIC_OP_LAST || type < 0 || type >= FI_DATATYPE_LAST) return false;
  int8_t& known = atomic_valid_[(kind * FI_ATOMIC_OP_LAST + op) * FI_DATATYPE_LAST + type];
  if (known < 0) {
    size_t count = 0;
    fid_ep* ep = fabric_.rma().ep;
    const int rc = kind == 0   ? fi_atomicvalid(ep, type, op, &count)
                   : kind == 1 ? fi_fetch_atomicvalid(ep, type, op, &count)
                               : fi_compare_atomicvalid(ep, type, op, &count);
    known = rc == 0 && count >= 1 ? 1 : 0;
  }
  return known == 1;
}

int Ofi::setup_buffers(std::string* error) {
  const Settings& s = settings();
  const fi_info* info = fabric_.info();
  std::size_t count = 0;
  if (fabric_.choice().multi_recv) {
    recv_buffer_size_ = std::max(s.recv_buffer_size, 4 * eager_size_);
    count = static_cast<std::size_t>(s.recv_buffers);
    std::size_t min_free = eager_size_;
    const int rc = fi_setopt(&fabric_.msg().ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
                             &min_free, sizeof min_free);
    if (rc != 0) return *error = fi_error("fi_setopt(FI_OPT_MIN_MULTI_RECV)", rc), -1;
  } else {
    recv_buffer_size_ = eager_size_;
    count = std::max<std::size_t>(
        s.recv_buffers,
        std::min<std::size_t>(static_cast<std::size_t>(credits_) * 2, info->rx_attr->size));
  }
  count = std::min<std::size_t>(count, info->rx_attr->size);
  recv_memory_.reset(new char[count * recv_buffer_size_]);
  recv_ctx_.assign(count, OpContext{});
  if (local_mr_ &&
      cache_.register_range(recv_memory_.get(), count * recv_buffer_size_, &recv_reg_, error) != 0)
    return -1;
  for (uint32_t i = 0; i < count; ++i) {
    recv_ctx_[i].kind = OpContext::Kind::kRecv;
    recv_ctx_[i].index = i;
    if (post_recv(i) != 0) return *error = error_, -1;
  }
  const std::size_t bounces = static_cast<std::size_t>(s.bounce_buffers);
  bounce_memory_.reset(new char[bounces * eager_size_]);
  bounce_ctx_.assign(bounces, OpContext{});
  bounce_free_.clear();
  for (uint32_t i = 0; i < bounces; ++i) {
    bounce_ctx_[i].kind = OpContext::Kind::kSend;
    bounce_ctx_[i].index = i;
    bounce_free_.push_back(i);
  }
  if (local_mr_ &&
      cache_.register_range(bounce_memory_.get(), bounces * eager_size_, &bounce_reg_, error) != 0)
    return -1;
  return 0;
}

int Ofi::post_recv(uint32_t index) {
  char* buf = recv_memory_.get() + index * recv_buffer_size_;
  iovec iov{buf, recv_buffer_size_};
  void* desc = local_mr_ ? recv_reg_.desc : nullptr;
  fi_msg msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = FI_ADDR_UNSPEC;
  msg.context = &recv_ctx_[index].fi;
  const uint64_t flags =
      fabric_.choice().multi_recv ? FI_MULTI_RECV | FI_COMPLETION : FI_COMPLETION;
  const ssize_t rc =
      retry_eagain(fabric_.msg().cntr, [&] { return fi_recvmsg(fabric_.msg().ep, &msg, flags); });
  if (rc == 0) return 0;
  error_ = fi_error("fi_recvmsg", rc);
  return -1;
}

bool Ofi::send(int peer, const WireHeader& h, const void* payload) {
  if (send_credits_[peer] == 0) {
    ++credit_waits_;
    return false;
  }
  Endpoint& e = fabric_.msg();
  const std::size_t total = kHeaders + h.payload_bytes;
  OfiPrefix prefix{rank_,
                   send_seq_[peer],
                   static_cast<uint16_t>(std::min(owed_[peer], 65535)),
                   kTypeMessage,
                   {}};
  // Always through a bounce buffer with a completion (no fi_inject): finalize
  // waits for every send to complete before it closes the endpoint, which
  // would otherwise drop messages the provider still holds.
  if (bounce_free_.empty()) return false;
  const uint32_t index = bounce_free_.back();
  char* buf = bounce_memory_.get() + index * eager_size_;
  std::memcpy(buf, &prefix, sizeof prefix);
  std::memcpy(buf + sizeof prefix, &h, sizeof h);
  if (h.payload_bytes != 0) std::memcpy(buf + kHeaders, payload, h.payload_bytes);
  OpContext& op = bounce_ctx_[index];
  op.peer = peer;
  const ssize_t rc =
      fi_send(e.ep, buf, total, local_mr_ ? bounce_reg_.desc : nullptr, e.peers[peer], &op.fi);
  if (rc == -FI_EAGAIN) return false;
  if (rc != 0) fatal(fi_error("fi_send", rc) + " (to rank " + std::to_string(peer) + ")");
  bounce_free_.pop_back();
  --send_credits_[peer];
  ++send_seq_[peer];
  owed_[peer] -= prefix.credits;
  return true;
}

bool Ofi::send_credit(int peer) {
  if (credit_busy_[peer]) return false;
  OfiPrefix& prefix = credit_buf_[peer];
  prefix =
      OfiPrefix{rank_, 0, static_cast<uint16_t>(std::min(owed_[peer], 65535)), kTypeCredit, {}};
  Endpoint& e = fabric_.msg();
  OpContext& op = credit_ctx_[peer];
  op.kind = OpContext::Kind::kCredit;
  op.peer = peer;
  void* desc = nullptr;
  if (local_mr_) {
    // credit_buf_ never moves: its registration stays in the cache.
    Registration* reg = nullptr;
    if (cache_.acquire(&prefix, sizeof prefix, &reg, &error_) != 0) return false;
    desc = reg->desc;
    cache_.release(reg);
  }
  const ssize_t rc = fi_send(e.ep, &prefix, sizeof prefix, desc, e.peers[peer], &op.fi);
  if (rc == 0) credit_busy_[peer] = 1;
  if (rc == -FI_EAGAIN) return false;
  if (rc != 0) fatal(fi_error("fi_send", rc) + " (credits to rank " + std::to_string(peer) + ")");
  owed_[peer] -= prefix.credits;
  return true;
}

void Ofi::handle_cq_error(fid_cq* cq) {
  fi_cq_err_entry err{};
  if (fi_cq_readerr(cq, &err, 0) != 1) return;
  auto* op = static_cast<OpContext*>(err.op_context);
  const char* text = fi_cq_strerror(cq, err.prov_errno, err.err_data, nullptr, 0);
  const std::string message =
      std::string(fi_strerror(err.err)) + " (provider: " + (text ? text : "no detail") + ")";
  if (op == nullptr) fatal("a network operation failed: " + message);
  switch (op->kind) {
    case OpContext::Kind::kPull:
      error_ = "rendezvous read from rank " + std::to_string(op->peer) + " failed: " + message;
      if (op->reg) cache_.release(op->reg);
      protocol::pull_done(op->req, false);
      delete op;
      return;
    case OpContext::Kind::kRecv:
      if (err.err == FI_ECANCELED) return;  // finalize
      fatal("receive failed: " + message);
    default: fatal("send to rank " + std::to_string(op->peer) + " failed: " + message);
  }
}

int Ofi::poll_completions(std::vector<Arrival>* arrivals) {
  Endpoint& e = fabric_.msg();
  fi_cq_data_entry entries[kCqBatch];
  int handled = 0;
  for (;;) {
    const ssize_t n = fi_cq_read(e.cq, entries, kCqBatch);
    if (n == -FI_EAGAIN) break;
    if (n == -FI_EAVAIL) {
      handle_cq_error(e.cq);
      continue;
    }
    if (n < 0) fatal(fi_error("fi_cq_read", n));
    for (ssize_t i = 0; i < n; ++i) {
      const fi_cq_data_entry& c = entries[i];
      auto* op = static_cast<OpContext*>(c.op_context);
      switch (op->kind) {
        case OpContext::Kind::kRecv: {
          if ((c.flags & FI_RECV) && c.len >= sizeof(OfiPrefix)) {
            const char* data = fabric_.choice().multi_recv
                                   ? static_cast<const char*>(c.buf)
                                   : recv_memory_.get() + op->index * recv_buffer_size_;
            OfiPrefix prefix;
            std::memcpy(&prefix, data, sizeof prefix);
            if (prefix.sender >= 0 && prefix.sender < size_)
              send_credits_[prefix.sender] += prefix.credits;
            if (prefix.type == kTypeMessage && c.len >= kHeaders && prefix.sender >= 0 &&
                prefix.sender < size_)
              arrive(prefix, data, c.len, arrivals);
          }
          if (!fabric_.choice().multi_recv || (c.flags & FI_MULTI_RECV))
            repost_.push_back(op->index);
          break;
        }
        case OpContext::Kind::kSend: bounce_free_.push_back(op->index); break;
        case OpContext::Kind::kCredit: credit_busy_[op->peer] = 0; break;
        case OpContext::Kind::kPull:
          if (op->reg) cache_.release(op->reg);
          protocol::pull_done(op->req, true);
          delete op;
          break;
        default: break;
      }
      ++handled;
    }
    if (n < kCqBatch) break;
  }
  return handled;
}

void Ofi::arrive(const OfiPrefix& prefix, const char* data, std::size_t len,
                 std::vector<Arrival>* arrivals) {
  const int peer = prefix.sender;
  if (prefix.seq != recv_seq_[peer]) {
    // Overtook an earlier message: keep a copy until that one is here.
    early_[peer].emplace(prefix.seq, std::string(data, len));
    ++reordered_;
    return;
  }
  Arrival a;
  std::memcpy(&a.header, data + sizeof prefix, sizeof a.header);
  a.payload = data + kHeaders;
  a.sender = peer;
  arrivals->push_back(a);
  ++recv_seq_[peer];
  auto& early = early_[peer];
  for (auto it = early.begin(); it != early.end() && it->first == recv_seq_[peer];
       it = early.erase(it)) {
    released_.push_back(std::move(it->second));
    const std::string& copy = released_.back();
    std::memcpy(&a.header, copy.data() + sizeof prefix, sizeof a.header);
    a.payload = copy.data() + kHeaders;
    arrivals->push_back(a);
    ++recv_seq_[peer];
  }
}

void Ofi::after_arrivals() {
  for (uint32_t index : repost_)
    if (post_recv(index) != 0) fatal(error_);
  repost_.clear();
  const int threshold = std::max(1, credits_ / 2);
  for (int peer = 0; peer < size_; ++peer)
    if (owed_[peer] >= threshold) send_credit(peer);
  while (!pending_pulls_.empty()) {
    PendingPull& p = pending_pulls_.front();
    if (issue_pull(p.op, p.local, p.bytes, p.raddr, p.key) == -FI_EAGAIN) break;
    pending_pulls_.pop_front();
  }
}

int Ofi::expose(int peer, const void* buf, std::size_t bytes, WireHeader* h) {
  Registration* reg = nullptr;
  if (cache_.acquire(buf, bytes, &reg, &error_) != 0)
    return util::make_error(MPI_ERR_OTHER, "rendezvous to rank %d: registering %zu bytes: %s", peer,
                            bytes, error_.c_str());
  h->address = reg->remote_address(buf);
  h->rkey = reg->key;
  return MPI_SUCCESS;
}

void Ofi::unexpose(const WireHeader& h) {
  if (Registration* reg = cache_.find_key(h.rkey)) cache_.release(reg);
}

int Ofi::issue_pull(OpContext* op, void* local, std::size_t bytes, uint64_t raddr, uint64_t key) {
  Endpoint& e = fabric_.msg();
  const ssize_t rc = fi_read(e.ep, local, bytes, op->reg ? op->reg->desc : nullptr,
                             e.peers[op->peer], raddr, key, &op->fi);
  if (rc == 0 || rc == -FI_EAGAIN) return static_cast<int>(rc);
  error_ = fi_error("fi_read", rc) + " (rendezvous from rank " + std::to_string(op->peer) + ")";
  if (op->reg) cache_.release(op->reg);
  protocol::pull_done(op->req, false);
  delete op;
  return -1;
}

PullStatus Ofi::pull(int peer, const WireHeader& rts, void* local, std::size_t bytes,
                     RequestDev* req) {
  auto* op = new OpContext;
  op->kind = OpContext::Kind::kPull;
  op->peer = peer;
  op->req = req;
  if (local_mr_ && cache_.acquire(local, bytes, &op->reg, &error_) != 0) {
    delete op;
    return PullStatus::kFailed;
  }
  if (!pending_pulls_.empty()) {  // keep order behind earlier retries
    pending_pulls_.push_back(PendingPull{op, local, bytes, rts.address, rts.rkey});
    return PullStatus::kPending;
  }
  const Endpoint& e = fabric_.msg();
  const ssize_t rc = fi_read(e.ep, local, bytes, op->reg ? op->reg->desc : nullptr, e.peers[peer],
                             rts.address, rts.rkey, &op->fi);
  if (rc == -FI_EAGAIN) {
    pending_pulls_.push_back(PendingPull{op, local, bytes, rts.address, rts.rkey});
    return PullStatus::kPending;
  }
  if (rc != 0) {
    error_ = fi_error("fi_read", rc) + " (rendezvous from rank " + std::to_string(peer) + ")";
    if (op->reg) cache_.release(op->reg);
    delete op;
    return PullStatus::kFailed;
  }
  return PullStatus::kPending;
}

void Ofi::drain_sends() {
  if (!initialized_) return;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::seconds(settings().timeout_s > 0 ? settings().timeout_s : 3600);
  auto busy = [&] {
    if (bounce_free_.size() != bounce_ctx_.size()) return true;
    for (uint8_t b : credit_busy_)
      if (b) return true;
    return false;
  };
  while (busy() && std::chrono::steady_clock::now() < deadline) {
    std::vector<Arrival> ignored;  // the protocol is idle: only credits may still come
    poll_completions(&ignored);
    sched_yield();
  }
}

void Ofi::finalize() {
  drain_sends();
  progress_thread_.stop();
  if (verbose_ && initialized_)
    std::fprintf(
        stderr,
        "STMPI network module: rank %d: progress thread drove the provider %llu times, "
        "slept on its descriptors %llu times (%llu woken by the network, %llu timed "
        "out)%s%s\n",
        rank_, static_cast<unsigned long long>(progress_thread_.polls()),
        static_cast<unsigned long long>(progress_thread_.sleeps()),
        static_cast<unsigned long long>(progress_thread_.wakeups()),
        static_cast<unsigned long long>(progress_thread_.timeouts()),
        progress_thread_.nice_failed() != 0 ? "; its nice value stayed the rank's: " : "",
        progress_thread_.nice_failed() != 0 ? std::strerror(progress_thread_.nice_failed()) : "");
  if (!initialized_ && fabric_.domain() == nullptr) return;
  initialized_ = false;
  if (recv_reg_.mr) cache_.deregister(&recv_reg_);
  if (bounce_reg_.mr) cache_.deregister(&bounce_reg_);
  cache_.clear();
  // Closing the endpoints cancels the posted receives; the buffers go after.
  fabric_.close();
  recv_memory_.reset();
  bounce_memory_.reset();
  for (PendingPull& p : pending_pulls_) delete p.op;
  pending_pulls_.clear();
}

}  // namespace stmpi::dev::ofi
