// OfiRma's raw operations on the transport's `rma` endpoint:
// fi_write / fi_read / fi_atomic / fi_fetch_atomic / fi_compare_atomic,
// counted by the endpoint's counter (flush waits for it); 64-bit atomics for
// the lock protocol wait for their own completion on the endpoint's CQ,
// which only such blocking operations and errors reach
// (FI_SELECTIVE_COMPLETION).
#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>

#include <string>

#include "device/ofi/ofi_rma.h"
#include "device/ofi/ofi_triggered.h"
#include "device/ofi/retry.h"
#include "util/error.h"

namespace stmpi::dev::ofi {
namespace {

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

OfiRma::OfiRma(Ofi& ofi) : ofi_(ofi) {}

OfiRma::~OfiRma() { finalize(); }

void OfiRma::finalize() {
  for (auto& pool : pools_) pool.reset();
  refused_ = {};
  for (Registration* reg : held_) ofi_.cache().release(reg);
  held_.clear();
  contexts_.clear();
  issued_ = errors_seen_ = 0;
}

int OfiRma::error(const std::string& what) {
  return util::make_error(MPI_ERR_OTHER, "network RMA: %s", what.c_str());
}

int OfiRma::register_window(void* base, std::size_t bytes, Registration* out) {
  std::string text;
  if (ofi_.cache().register_range(base, bytes, out, &text) != 0)
    return error("registering " + std::to_string(bytes) + " bytes: " + text);
  ofi_.add_windows(1);
  return MPI_SUCCESS;
}

void OfiRma::deregister_window(Registration* r) {
  ofi_.cache().deregister(r);
  ofi_.add_windows(-1);
}

OpContext* OfiRma::rma_context() {
  OpContext& op = contexts_.emplace_back();
  op.kind = OpContext::Kind::kRma;
  return &op;
}

int OfiRma::hold(const void* buf, std::size_t bytes, Registration** out) {
  *out = nullptr;
  if (!ofi_.local_mr() || buf == nullptr) return MPI_SUCCESS;
  std::string text;
  if (ofi_.cache().acquire(buf, bytes, out, &text) != 0)
    return error("registering a local buffer: " + text);
  held_.push_back(*out);
  return MPI_SUCCESS;
}

// fi_write (put) or fi_read (get) of `bytes` at `buf`, counted for flush.
int OfiRma::transfer(bool read, int peer, void* buf, std::size_t bytes, uint64_t raddr,
                     uint64_t key) {
  if (bytes == 0) return MPI_SUCCESS;
  Endpoint& e = ofi_.fabric().rma();
  Registration* reg = nullptr;
  if (int err = hold(buf, bytes, &reg)) return err;
  OpContext* op = rma_context();
  op->peer = peer;
  void* desc = reg ? reg->desc : nullptr;
  const ssize_t rc = retry_eagain(
      e.cntr,
      [&] {
        return read ? fi_read(e.ep, buf, bytes, desc, e.peers[peer], raddr, key, &op->fi)
                    : fi_write(e.ep, buf, bytes, desc, e.peers[peer], raddr, key, &op->fi);
      },
      [&] { ofi_.note_polled(); });
  if (rc != 0)
    return error(fi_error(read ? "fi_read" : "fi_write", rc) + " (rank " + std::to_string(peer) +
                 ")");
  ++issued_;
  return MPI_SUCCESS;
}

int OfiRma::atomic(int peer, fi_op op, fi_datatype type, const void* buf, std::size_t count,
                   uint64_t raddr, uint64_t key) {
  Endpoint& e = ofi_.fabric().rma();
  Registration* reg = nullptr;
  if (int err = hold(buf, count * ofi_datatype_size(type), &reg)) return err;
  OpContext* ctx = rma_context();
  ctx->peer = peer;
  const ssize_t rc = retry_eagain(
      e.cntr,
      [&] {
        return fi_atomic(e.ep, buf, count, reg ? reg->desc : nullptr, e.peers[peer], raddr, key,
                         type, op, &ctx->fi);
      },
      [&] { ofi_.note_polled(); });
  if (rc != 0) return error(fi_error("fi_atomic", rc) + " (to rank " + std::to_string(peer) + ")");
  ++issued_;
  return MPI_SUCCESS;
}

int OfiRma::fetch_atomic(int peer, fi_op op, fi_datatype type, const void* buf, void* result,
                         std::size_t count, uint64_t raddr, uint64_t key) {
  Endpoint& e = ofi_.fabric().rma();
  const std::size_t bytes = count * ofi_datatype_size(type);
  Registration* reg = nullptr;
  Registration* result_reg = nullptr;
  if (int err = hold(buf, bytes, &reg)) return err;
  if (int err = hold(result, bytes, &result_reg)) return err;
  OpContext* ctx = rma_context();
  ctx->peer = peer;
  const ssize_t rc = retry_eagain(
      e.cntr,
      [&] {
        return fi_fetch_atomic(e.ep, buf, count, reg ? reg->desc : nullptr, result,
                               result_reg ? result_reg->desc : nullptr, e.peers[peer], raddr, key,
                               type, op, &ctx->fi);
      },
      [&] { ofi_.note_polled(); });
  if (rc != 0)
    return error(fi_error("fi_fetch_atomic", rc) + " (to rank " + std::to_string(peer) + ")");
  ++issued_;
  return MPI_SUCCESS;
}

int OfiRma::compare_atomic(int peer, fi_datatype type, const void* compare, const void* swap,
                           void* result, uint64_t raddr, uint64_t key) {
  Endpoint& e = ofi_.fabric().rma();
  Registration* regs[3] = {};
  const std::size_t bytes = ofi_datatype_size(type);
  const void* ptrs[3] = {swap, compare, result};
  for (int i = 0; i < 3; ++i)
    if (int err = hold(ptrs[i], bytes, &regs[i])) return err;
  OpContext* ctx = rma_context();
  ctx->peer = peer;
  const ssize_t rc = retry_eagain(
      e.cntr,
      [&] {
        return fi_compare_atomic(e.ep, swap, 1, regs[0] ? regs[0]->desc : nullptr, compare,
                                 regs[1] ? regs[1]->desc : nullptr, result,
                                 regs[2] ? regs[2]->desc : nullptr, e.peers[peer], raddr, key, type,
                                 FI_CSWAP, &ctx->fi);
      },
      [&] { ofi_.note_polled(); });
  if (rc != 0)
    return error(fi_error("fi_compare_atomic", rc) + " (to rank " + std::to_string(peer) + ")");
  ++issued_;
  return MPI_SUCCESS;
}

int OfiRma::flush() {
  Endpoint& e = ofi_.fabric().rma();
  const Deadline deadline;
  for (int spins = 0;; ++spins) {
    ofi_.note_polled();
    const uint64_t done = fi_cntr_read(e.cntr);
    const uint64_t errors = fi_cntr_readerr(e.cntr);
    if (errors != errors_seen_) {
      errors_seen_ = errors;
      // The CQ holds the failure's text (errors always reach it).
      fi_cq_err_entry err{};
      for (int tries = 0; tries < 1000 && fi_cq_readerr(e.cq, &err, 0) != 1; ++tries) {
        fi_cq_entry dummy;
        (void)fi_cq_read(e.cq, &dummy, 1);
      }
      const char* text =
          err.err ? fi_cq_strerror(e.cq, err.prov_errno, err.err_data, nullptr, 0) : nullptr;
      issued_ = done + errors;  // the failed ones will never complete
      return error(std::string("a one-sided operation failed: ") +
                   (err.err ? fi_strerror(err.err) : "error counter raised") +
                   " (provider: " + (text ? text : "no detail") + ")");
    }
    if (done + errors >= issued_) break;
    if (deadline.passed(spins)) {
      const uint64_t outstanding = issued_ - done - errors;
      issued_ = done + errors;  // forget them: a later flush must not wait again
      return error("one-sided operations did not complete (" + std::to_string(outstanding) +
                   " outstanding): " + deadline.text());
    }
    spin_pause(spins);
  }
  for (Registration* reg : held_) ofi_.cache().release(reg);
  held_.clear();
  contexts_.clear();
  return MPI_SUCCESS;
}

// Waits for the completion of one blocking operation on the RMA endpoint's
// CQ, which only such operations and failures reach (FI_SELECTIVE_COMPLETION).
int OfiRma::wait_blocking(OpContext* op, const char* what) {
  Endpoint& e = ofi_.fabric().rma();
  const Deadline deadline;
  const std::string to = std::string(what) + " to rank " + std::to_string(op->peer);
  for (int spins = 0; !op->done; ++spins) {
    if (deadline.passed(spins)) return error(to + ": " + deadline.text());
    ofi_.note_polled();
    fi_cq_entry entries[8];
    const ssize_t n = fi_cq_read(e.cq, entries, 8);
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      if (fi_cq_readerr(e.cq, &err, 0) != 1) continue;
      auto* failed = static_cast<OpContext*>(err.op_context);
      const char* text = fi_cq_strerror(e.cq, err.prov_errno, err.err_data, nullptr, 0);
      const std::string message =
          std::string(fi_strerror(err.err)) + " (provider: " + (text ? text : "no detail") + ")";
      if (failed == op) return error(to + " failed: " + message);
      if (failed != nullptr && failed->kind == OpContext::Kind::kBlocking) failed->done = true;
    } else if (n > 0) {
      for (ssize_t i = 0; i < n; ++i) static_cast<OpContext*>(entries[i].op_context)->done = true;
    } else if (n != -FI_EAGAIN) {
      return error(to + ": " + fi_error("fi_cq_read", n));
    }
    spin_pause(spins);
  }
  return MPI_SUCCESS;
}

uint64_t OfiRma::blocking_atomic(int peer, fi_op op, const uint64_t* operand,
                                 const uint64_t* compare, uint64_t raddr, uint64_t key) {
  Endpoint& e = ofi_.fabric().rma();
  // Operand, compare value and result side by side on the stack, so one
  // registration covers them where the provider needs local descriptors.
  uint64_t words[3] = {operand ? *operand : 0, compare ? *compare : 0, 0};
  uint64_t& in = words[0];
  uint64_t& cmp = words[1];
  uint64_t& result = words[2];
  Registration* reg = nullptr;
  std::string text;
  if (ofi_.local_mr() && ofi_.cache().acquire(words, sizeof words, &reg, &text) != 0)
    ofi_.fatal("registering an atomic operand: " + text);
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
  const ssize_t rc = retry_eagain(
      e.cntr,
      [&] {
        if (op == FI_CSWAP)
          return fi_compare_atomicmsg(e.ep, &msg, &cmp_ioc, &desc, 1, &res_ioc, &desc, 1,
                                      FI_COMPLETION);
        if (op == FI_ATOMIC_WRITE) return fi_atomicmsg(e.ep, &msg, FI_COMPLETION);
        return fi_fetch_atomicmsg(e.ep, &msg, &res_ioc, &desc, 1, FI_COMPLETION);
      },
      [&] { ofi_.note_polled(); });
  if (rc != 0) ofi_.fatal(fi_error("remote atomic", rc) + " (rank " + std::to_string(peer) + ")");
  ++issued_;  // the counter sees it too
  if (const int err = wait_blocking(&ctx, "a remote 64-bit atomic"); err != MPI_SUCCESS)
    ofi_.fatal(util::error_string(err));
  if (reg) ofi_.cache().release(reg);
  return result;
}

uint64_t OfiRma::fetch_add64(int peer, uint64_t raddr, uint64_t key, uint64_t value) {
  return blocking_atomic(peer, FI_SUM, &value, nullptr, raddr, key);
}

uint64_t OfiRma::compare_swap64(int peer, uint64_t raddr, uint64_t key, uint64_t expected,
                                uint64_t desired) {
  return blocking_atomic(peer, FI_CSWAP, &desired, &expected, raddr, key);
}

uint64_t OfiRma::load64(int peer, uint64_t raddr, uint64_t key) {
  return blocking_atomic(peer, FI_ATOMIC_READ, nullptr, nullptr, raddr, key);
}

void OfiRma::store64(int peer, uint64_t raddr, uint64_t key, uint64_t value) {
  (void)blocking_atomic(peer, FI_ATOMIC_WRITE, &value, nullptr, raddr, key);
}

}  // namespace stmpi::dev::ofi
