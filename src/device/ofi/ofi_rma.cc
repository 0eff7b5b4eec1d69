// One-sided operations of the network module on its `rma` endpoint:
// fi_write / fi_read / fi_atomic / fi_fetch_atomic / fi_compare_atomic,
// counted by the endpoint's counter (flush waits for it); 64-bit atomics for
// the lock protocol wait for their own completion on the endpoint's CQ,
// which only such blocking operations and errors reach
// (FI_SELECTIVE_COMPLETION).
#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include <sched.h>

#include <chrono>

#include "device/ofi/ofi.h"
#include "device/ofi/settings.h"

namespace stmpi::dev::ofi {
namespace {

constexpr int kSpinsBeforeYield = 64;

// The wait limit of STMPI_OFI_TIMEOUT, checked every few thousand spins.
class Deadline {
 public:
  Deadline()
      : seconds_(settings().timeout_s),
        end_(std::chrono::steady_clock::now() + std::chrono::seconds(seconds_)) {}
  bool passed(int spins) const {
    return seconds_ > 0 && spins % 1024 == 1023 && std::chrono::steady_clock::now() > end_;
  }
  std::string text() const {
    return "no completion within STMPI_OFI_TIMEOUT=" + std::to_string(seconds_) + " s";
  }

 private:
  int seconds_;
  std::chrono::steady_clock::time_point end_;
};

std::size_t ofi_datatype_size(fi_datatype type) {
  switch (type) {
    case FI_INT8:
    case FI_UINT8: return 1;
    case FI_INT16:
    case FI_UINT16: return 2;
    case FI_INT32:
    case FI_UINT32:
    case FI_FLOAT: return 4;
    case FI_INT64:
    case FI_UINT64:
    case FI_DOUBLE:
    case FI_FLOAT_COMPLEX: return 8;
    case FI_DOUBLE_COMPLEX:
    case FI_LONG_DOUBLE: return 16;
    case FI_LONG_DOUBLE_COMPLEX: return 32;
    default: return 0;
  }
}

}  // namespace

int Ofi::register_window(void* base, std::size_t bytes, Registration* out, std::string* error) {
  const int rc = cache_.register_range(base, bytes, out, error);
  if (rc == 0) ++windows_;
  return rc;
}

OpContext* Ofi::rma_context() {
  OpContext& op = rma_ctx_.emplace_back();
  op.kind = OpContext::Kind::kRma;
  return &op;
}

template <class Issue>
ssize_t Ofi::retry_eagain(fid_cntr* cntr, Issue&& issue) {
  for (int spins = 0;; ++spins) {
    const ssize_t rc = issue();
    if (rc != -FI_EAGAIN) return rc;
    note_polled();
    (void)fi_cntr_read(cntr);
    if (spins % kSpinsBeforeYield == kSpinsBeforeYield - 1) sched_yield();
  }
}

// fi_write (put) or fi_read (get) of `bytes` at `buf`, counted for flush.
int Ofi::transfer(bool read, int peer, void* buf, std::size_t bytes, uint64_t raddr, uint64_t key) {
  if (bytes == 0) return 0;
  Endpoint& e = fabric_.rma();
  Registration* reg = nullptr;
  if (local_mr_) {
    if (cache_.acquire(buf, bytes, &reg, &error_) != 0) return -1;
    rma_held_.push_back(reg);
  }
  OpContext* op = rma_context();
  op->peer = peer;
  void* desc = reg ? reg->desc : nullptr;
  const ssize_t rc = retry_eagain(e.cntr, [&] {
    return read ? fi_read(e.ep, buf, bytes, desc, e.peers[peer], raddr, key, &op->fi)
                : fi_write(e.ep, buf, bytes, desc, e.peers[peer], raddr, key, &op->fi);
  });
  if (rc != 0) {
    error_ = fi_error(read ? "fi_read" : "fi_write", rc) + " (rank " + std::to_string(peer) + ")";
    return -1;
  }
  ++rma_issued_;
  return 0;
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

int Ofi::atomic(int peer, fi_op op, fi_datatype type, const void* buf, std::size_t count,
                uint64_t raddr, uint64_t key) {
  Endpoint& e = fabric_.rma();
  Registration* reg = nullptr;
  const std::size_t bytes = count * ofi_datatype_size(type);
  if (local_mr_) {
    if (cache_.acquire(buf, bytes, &reg, &error_) != 0) return -1;
    rma_held_.push_back(reg);
  }
  OpContext* ctx = rma_context();
  ctx->peer = peer;
  const ssize_t rc = retry_eagain(e.cntr, [&] {
    return fi_atomic(e.ep, buf, count, reg ? reg->desc : nullptr, e.peers[peer], raddr, key, type,
                     op, &ctx->fi);
  });
  if (rc != 0)
    return error_ = fi_error("fi_atomic", rc) + " (to rank " + std::to_string(peer) + ")", -1;
  ++rma_issued_;
  return 0;
}

int Ofi::fetch_atomic(int peer, fi_op op, fi_datatype type, const void* buf, void* result,
                      std::size_t count, uint64_t raddr, uint64_t key) {
  Endpoint& e = fabric_.rma();
  Registration* reg = nullptr;
  Registration* result_reg = nullptr;
  const std::size_t bytes = count * ofi_datatype_size(type);
  if (local_mr_) {
    if (buf && cache_.acquire(buf, bytes, &reg, &error_) != 0) return -1;
    if (reg) rma_held_.push_back(reg);
    if (cache_.acquire(result, bytes, &result_reg, &error_) != 0) return -1;
    rma_held_.push_back(result_reg);
  }
  OpContext* ctx = rma_context();
  ctx->peer = peer;
  const ssize_t rc = retry_eagain(e.cntr, [&] {
    return fi_fetch_atomic(e.ep, buf, count, reg ? reg->desc : nullptr, result,
                           result_reg ? result_reg->desc : nullptr, e.peers[peer], raddr, key, type,
                           op, &ctx->fi);
  });
  if (rc != 0)
    return error_ = fi_error("fi_fetch_atomic", rc) + " (to rank " + std::to_string(peer) + ")", -1;
  ++rma_issued_;
  return 0;
}

int Ofi::compare_atomic(int peer, fi_datatype type, const void* compare, const void* swap,
                        void* result, uint64_t raddr, uint64_t key) {
  Endpoint& e = fabric_.rma();
  Registration* regs[3] = {};
  const std::size_t bytes = ofi_datatype_size(type);
  if (local_mr_) {
    const void* ptrs[3] = {swap, compare, result};
    for (int i = 0; i < 3; ++i) {
      if (cache_.acquire(ptrs[i], bytes, &regs[i], &error_) != 0) return -1;
      rma_held_.push_back(regs[i]);
    }
  }
  OpContext* ctx = rma_context();
  ctx->peer = peer;
  const ssize_t rc = retry_eagain(e.cntr, [&] {
    return fi_compare_atomic(e.ep, swap, 1, regs[0] ? regs[0]->desc : nullptr, compare,
                             regs[1] ? regs[1]->desc : nullptr, result,
                             regs[2] ? regs[2]->desc : nullptr, e.peers[peer], raddr, key, type,
                             FI_CSWAP, &ctx->fi);
  });
  if (rc != 0)
    return error_ = fi_error("fi_compare_atomic", rc) + " (to rank " + std::to_string(peer) + ")",
           -1;
  ++rma_issued_;
  return 0;
}

int Ofi::flush() {
  Endpoint& e = fabric_.rma();
  const Deadline deadline;
  for (int spins = 0;; ++spins) {
    note_polled();
    const uint64_t done = fi_cntr_read(e.cntr);
    const uint64_t errors = fi_cntr_readerr(e.cntr);
    if (errors != rma_errors_seen_) {
      rma_errors_seen_ = errors;
      // The CQ holds the failure's text (errors always reach it).
      fi_cq_err_entry err{};
      for (int tries = 0; tries < 1000 && fi_cq_readerr(e.cq, &err, 0) != 1; ++tries) {
        fi_cq_entry dummy;
        (void)fi_cq_read(e.cq, &dummy, 1);
      }
      const char* text =
          err.err ? fi_cq_strerror(e.cq, err.prov_errno, err.err_data, nullptr, 0) : nullptr;
      error_ = std::string("a one-sided operation failed: ") +
               (err.err ? fi_strerror(err.err) : "error counter raised") +
               " (provider: " + (text ? text : "no detail") + ")";
      rma_issued_ = done + errors;  // the failed ones will never complete
      return -1;
    }
    if (done + errors >= rma_issued_) break;
    if (deadline.passed(spins)) {
      error_ = "one-sided operations did not complete (" +
               std::to_string(rma_issued_ - done - errors) + " outstanding): " + deadline.text();
      rma_issued_ = done + errors;  // forget them: a later flush must not wait again
      return -1;
    }
    if (spins % kSpinsBeforeYield == kSpinsBeforeYield - 1) sched_yield();
  }
  for (Registration* reg : rma_held_) cache_.release(reg);
  rma_held_.clear();
  rma_ctx_.clear();
  return 0;
}

int Ofi::wait_blocking(OpContext* op, const char* what) {
  Endpoint& e = fabric_.rma();
  const Deadline deadline;
  for (int spins = 0; !op->done; ++spins) {
    if (deadline.passed(spins)) {
      error_ = std::string(what) + " to rank " + std::to_string(op->peer) + ": " + deadline.text();
      return -1;
    }
    note_polled();
    fi_cq_entry entries[8];
    const ssize_t n = fi_cq_read(e.cq, entries, 8);
    if (n == -FI_EAVAIL) {
      handle_cq_error(e.cq);
    } else if (n > 0) {
      for (ssize_t i = 0; i < n; ++i) static_cast<OpContext*>(entries[i].op_context)->done = true;
    } else if (n != -FI_EAGAIN) {
      error_ = fi_error("fi_cq_read", n);
      return -1;
    }
    if (spins % kSpinsBeforeYield == kSpinsBeforeYield - 1) sched_yield();
  }
  if (op->error != 0) {
    error_ = std::string(what) + " to rank " + std::to_string(op->peer) + " failed: " + error_;
    return -1;
  }
  return 0;
}

uint64_t Ofi::blocking_atomic(int peer, fi_op op, const uint64_t* operand, const uint64_t* compare,
                              uint64_t raddr, uint64_t key) {
  Endpoint& e = fabric_.rma();
  // Operand, compare value and result side by side on the stack, so one
  // registration covers them where the provider needs local descriptors.
  uint64_t words[3] = {operand ? *operand : 0, compare ? *compare : 0, 0};
  uint64_t& in = words[0];
  uint64_t& cmp = words[1];
  uint64_t& result = words[2];
  Registration* reg = nullptr;
  if (local_mr_ && cache_.acquire(words, sizeof words, &reg, &error_) != 0)
    fatal("registering an atomic operand: " + error_);
  void* desc = reg ? reg->desc : nullptr;
  OpContext ctx;
  ctx.kind = OpContext::Kind::kBlocking;
  ctx.peer = peer;
  fi_ioc in_ioc{&in, 1}, cmp_ioc{&cmp, 1}, res_ioc{&result, 1};
  fi_rma_ioc rma_ioc{raddr, 1, key};
  fi_msg_atomic msg{};
  msg.msg_iov = &in_ioc;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.addr = e.peers[peer];
  msg.rma_iov = &rma_ioc;
  msg.rma_iov_count = 1;
  msg.datatype = FI_UINT64;
  msg.op = op;
  msg.context = &ctx.fi;
  const ssize_t rc = retry_eagain(e.cntr, [&] {
    if (op == FI_CSWAP)
      return fi_compare_atomicmsg(e.ep, &msg, &cmp_ioc, &desc, 1, &res_ioc, &desc, 1,
                                  FI_COMPLETION);
    if (op == FI_ATOMIC_WRITE) return fi_atomicmsg(e.ep, &msg, FI_COMPLETION);
    return fi_fetch_atomicmsg(e.ep, &msg, &res_ioc, &desc, 1, FI_COMPLETION);
  });
  if (rc != 0) fatal(fi_error("remote atomic", rc) + " (rank " + std::to_string(peer) + ")");
  ++rma_issued_;  // the counter sees it too
  if (wait_blocking(&ctx, "a remote 64-bit atomic") != 0) fatal(error_);
  if (reg) cache_.release(reg);
  return result;
}

uint64_t Ofi::fetch_add64(int peer, uint64_t raddr, uint64_t key, uint64_t value) {
  return blocking_atomic(peer, FI_SUM, &value, nullptr, raddr, key);
}

uint64_t Ofi::compare_swap64(int peer, uint64_t raddr, uint64_t key, uint64_t expected,
                             uint64_t desired) {
  return blocking_atomic(peer, FI_CSWAP, &desired, &expected, raddr, key);
}

uint64_t Ofi::load64(int peer, uint64_t raddr, uint64_t key) {
  return blocking_atomic(peer, FI_ATOMIC_READ, nullptr, nullptr, raddr, key);
}

void Ofi::store64(int peer, uint64_t raddr, uint64_t key, uint64_t value) {
  (void)blocking_atomic(peer, FI_ATOMIC_WRITE, &value, nullptr, raddr, key);
}

}  // namespace stmpi::dev::ofi
