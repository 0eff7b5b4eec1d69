// Ucx's one-sided primitives: registrations and their packed keys, put,
// get, atomics, flush (ucx_transport.h). Keys are variable-size: the owner
// packs them at registration, the window layer carries the bytes to the
// origins, and each origin unpacks them once on its endpoint to the owner.
#include <chrono>
#include <cstring>

#include "device/ucx/settings.h"
#include "device/ucx/ucx_transport.h"

namespace stmpi::dev::ucx {

int Ucx::register_memory(void* base, std::size_t bytes, ucp_mem_h* memh, std::string* packed) {
  std::lock_guard<std::mutex> guard(lock_);
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  params.address = base;
  params.length = bytes;
  ucs_status_t st = ucp_mem_map(worker_.context(), &params, memh);
  if (st != UCS_OK) return fail(std::string("ucp_mem_map: ") + status_text(st));
  void* key = nullptr;
  std::size_t key_bytes = 0;
  st = ucp_rkey_pack(worker_.context(), *memh, &key, &key_bytes);
  if (st != UCS_OK) {
    ucp_mem_unmap(worker_.context(), *memh);
    return fail(std::string("ucp_rkey_pack: ") + status_text(st));
  }
  packed->assign(static_cast<const char*>(key), key_bytes);
  ucp_rkey_buffer_release(key);
  return 0;
}

void Ucx::deregister_memory(ucp_mem_h memh) {
  std::lock_guard<std::mutex> guard(lock_);
  if (initialized_) ucp_mem_unmap(worker_.context(), memh);
}

int Ucx::import_key(int peer, const void* packed, ucp_rkey_h* rkey) {
  std::lock_guard<std::mutex> guard(lock_);
  std::string why;
  ucp_ep_h ep = worker_.endpoint(peer, &why);
  if (ep == nullptr) return fail(why);
  if (ucs_status_t st = ucp_ep_rkey_unpack(ep, packed, rkey); st != UCS_OK)
    return fail("unpacking the key of rank " + std::to_string(peer) +
                "'s memory: " + status_text(st));
  return 0;
}

void Ucx::release_key(ucp_rkey_h rkey) {
  std::lock_guard<std::mutex> guard(lock_);
  if (initialized_) ucp_rkey_destroy(rkey);
}

void Ucx::on_op_done(void* request, ucs_status_t status, void* user_data) {
  auto* state = static_cast<OpState*>(user_data);
  state->status = status;
  ucp_request_free(request);
  state->done.store(true, std::memory_order_release);
}

// Under lock_. `request` is what a nbx call returned with on_op_done and
// `state` as its callback: waits for it (progressing), at most
// STMPI_UCX_TIMEOUT. On a timeout the state is left to the callback.
int Ucx::wait_op(OpState* state, void* request, int peer, const char* what) {
  if (request == nullptr) return 0;
  if (UCS_PTR_IS_ERR(request))
    return fail(std::string(what) + " on rank " + std::to_string(peer) + ": " +
                status_text(UCS_PTR_STATUS(request)));
  const int timeout_s = settings().timeout_s;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (!state->done.load(std::memory_order_acquire)) {
    note_polled();
    progress_locked();
    if (timeout_s != 0 && std::chrono::steady_clock::now() > deadline)
      return fail(std::string(what) + " on rank " + std::to_string(peer) + " did not complete in " +
                  std::to_string(timeout_s) + " s (STMPI_UCX_TIMEOUT)");
  }
  if (state->status != UCS_OK)
    return fail(std::string(what) + " on rank " + std::to_string(peer) + ": " +
                status_text(state->status));
  return 0;
}

namespace {
ucp_request_param_t op_param(void* state, ucp_send_nbx_callback_t cb) {
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = cb;
  param.user_data = state;
  return param;
}
}  // namespace

void Ucx::on_batch_done(void* request, ucs_status_t status, void* user_data) {
  auto* batch = static_cast<Batch*>(user_data);
  if (status != UCS_OK) batch->status = status;
  ucp_request_free(request);
  batch->pending.fetch_sub(1, std::memory_order_release);
}

// Issues one put or get per run, then waits for them all: the origin's
// bytes may be a packed copy the caller frees, and gets are complete on
// return. Runs stream back to back (200,000 small runs cost one wait).
int Ucx::transfer(bool read, int peer, char* buf, std::span<const rma::Run> runs, uint64_t base,
                  ucp_rkey_h rkey) {
  std::lock_guard<std::mutex> guard(lock_);
  std::string why;
  ucp_ep_h ep = worker_.endpoint(peer, &why);
  if (ep == nullptr) return fail(why);
  auto* batch = new Batch;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = &Ucx::on_batch_done;
  param.user_data = batch;
  const char* what = read ? "get" : "put";
  ucs_status_t failed = UCS_OK;
  for (const rma::Run& run : runs) {
    void* request = read ? ucp_get_nbx(ep, buf, run.bytes, base + run.offset, rkey, &param)
                         : ucp_put_nbx(ep, buf, run.bytes, base + run.offset, rkey, &param);
    buf += run.bytes;
    if (request == nullptr) continue;
    if (UCS_PTR_IS_ERR(request)) {
      failed = UCS_PTR_STATUS(request);
      break;
    }
    batch->pending.fetch_add(1, std::memory_order_relaxed);
  }
  if (!read) note_unflushed(peer);
  const int timeout_s = settings().timeout_s;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (batch->pending.load(std::memory_order_acquire) != 0) {
    note_polled();
    progress_locked();
    if (timeout_s != 0 && std::chrono::steady_clock::now() > deadline)
      return fail(std::string(what) + " on rank " + std::to_string(peer) + " did not complete in " +
                  std::to_string(timeout_s) + " s (STMPI_UCX_TIMEOUT)");  // batch left to UCX
  }
  if (failed == UCS_OK) failed = batch->status;
  delete batch;
  if (failed != UCS_OK)
    return fail(std::string(what) + " on rank " + std::to_string(peer) + ": " +
                status_text(failed));
  return 0;
}

int Ucx::atomic(int peer, ucp_atomic_op_t op, std::size_t size, uint64_t* value, uint64_t compare,
                bool fetch, uint64_t raddr, ucp_rkey_h rkey) {
  std::lock_guard<std::mutex> guard(lock_);
  std::string why;
  ucp_ep_h ep = worker_.endpoint(peer, &why);
  if (ep == nullptr) return fail(why);
  // Operands in the element's own width (4 or 8 bytes).
  uint64_t operand = 0;
  uint64_t reply = 0;
  uint32_t operand32 = 0;
  uint32_t reply32 = 0;
  void* operand_at = &operand;
  void* reply_at = &reply;
  if (size == 4) {
    operand_at = &operand32;
    reply_at = &reply32;
  }
  // UCP_ATOMIC_OP_CSWAP compares with the buffer and swaps in what the
  // reply buffer holds, which then receives the old value.
  const uint64_t in = op == UCP_ATOMIC_OP_CSWAP ? compare : *value;
  const uint64_t swap_in = *value;
  if (size == 4) {
    operand32 = static_cast<uint32_t>(in);
    reply32 = static_cast<uint32_t>(swap_in);
  } else {
    operand = in;
    reply = swap_in;
  }
  auto* state = new OpState;
  ucp_request_param_t param = op_param(state, &Ucx::on_op_done);
  param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_contig(size);
  if (fetch || op == UCP_ATOMIC_OP_CSWAP || op == UCP_ATOMIC_OP_SWAP) {
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    param.reply_buffer = reply_at;
  }
  void* request = ucp_atomic_op_nbx(ep, op, operand_at, 1, raddr, rkey, &param);
  if ((param.op_attr_mask & UCP_OP_ATTR_FIELD_REPLY_BUFFER) == 0) note_unflushed(peer);
  const int rc = wait_op(state, request, peer, "remote atomic");
  if (rc == 0 || request == nullptr || UCS_PTR_IS_ERR(request)) delete state;
  if (rc == 0) *value = size == 4 ? reply32 : reply;
  return rc;
}

void Ucx::serve() {
  if (!initialized_) return;
  note_polled();
  std::unique_lock<std::mutex> guard(lock_, std::try_to_lock);
  if (guard.owns_lock()) progress_locked();
}

int Ucx::fence() {
  if (!initialized_) return 0;
  std::lock_guard<std::mutex> guard(lock_);
  if (ucs_status_t st = ucp_worker_fence(worker_.worker()); st != UCS_OK)
    return fail(std::string("ucp_worker_fence: ") + status_text(st));
  return 0;
}

int Ucx::flush(int peer) {
  if (!initialized_) return 0;
  std::lock_guard<std::mutex> guard(lock_);
  if (peer >= 0 ? unflushed_[peer] == 0 : unflushed_peers_ == 0) return 0;
  ++flush_round_trips_;
  auto* state = new OpState;
  const ucp_request_param_t param = op_param(state, &Ucx::on_op_done);
  void* request = nullptr;
  std::string why;
  if (peer >= 0) request = ucp_ep_flush_nbx(worker_.endpoint(peer, &why), &param);
  else request = ucp_worker_flush_nbx(worker_.worker(), &param);
  const int rc = wait_op(state, request, peer, "flush");
  if (rc == 0 || request == nullptr || UCS_PTR_IS_ERR(request)) delete state;
  if (rc != 0) return rc;
  if (peer >= 0) {
    unflushed_[peer] = 0;
    --unflushed_peers_;
  } else {
    unflushed_.assign(unflushed_.size(), 0);
    unflushed_peers_ = 0;
  }
  return 0;
}

}  // namespace stmpi::dev::ucx
