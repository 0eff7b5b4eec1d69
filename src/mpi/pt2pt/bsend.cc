#include "mpi/pt2pt/bsend.h"

#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

#include "device/progress.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"
#include "mpi/pt2pt/impl_pt2pt.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::bsend {
namespace {

// A region of the attached buffer in use: the send using it and its number
// (sends are numbered in the order they were buffered).
struct Region {
  Request* req = nullptr;
  uint64_t number = 0;
};

// The attached buffer and the regions live sends occupy in it, by offset.
struct AttachedBuffer {
  char* base = nullptr;
  std::size_t size = 0;
  std::map<std::size_t, Region> in_use;  // offset -> the send using it
};
AttachedBuffer g_buffer;
uint64_t g_sends_buffered = 0;

// MPI_Buffer_iflush requests still waiting: each completes once no send
// buffered before it (number below `before`) is left.
struct PendingFlush {
  Request* req = nullptr;
  uint64_t before = 0;
};
std::vector<PendingFlush> g_flushes;
int g_flush_hook = -1;

// Frees the regions of sends that completed.
void reclaim() {
  for (auto it = g_buffer.in_use.begin(); it != g_buffer.in_use.end();) {
    Request* req = it->second.req;
    if (request_test(req)) {
      request_free(req);
      it = g_buffer.in_use.erase(it);
    } else {
      ++it;
    }
  }
}

// First fit; each region is preceded by MPI_BSEND_OVERHEAD bytes of
// bookkeeping space, as the standard's size rules assume.
bool allocate(std::size_t bytes, std::size_t* offset) {
  const std::size_t need = bytes + MPI_BSEND_OVERHEAD;
  std::size_t cursor = 0;
  for (const auto& [start, region] : g_buffer.in_use) {
    if (start - cursor >= need) break;
    cursor = start + region.req->bsend_bytes + MPI_BSEND_OVERHEAD;
  }
  if (cursor + need > g_buffer.size) return false;
  *offset = cursor;
  return true;
}

// Whether every send buffered before number `before` has left the buffer.
bool flushed(uint64_t before) {
  for (const auto& entry : g_buffer.in_use)
    if (entry.second.number < before) return false;
  return true;
}

// The progress hook of MPI_Buffer_iflush: completes the flushes whose sends
// are gone, and removes itself when none is left.
int flush_progress(void*) {
  reclaim();
  int done = 0;
  for (auto it = g_flushes.begin(); it != g_flushes.end();) {
    if (flushed(it->before)) {
      it->req->dev.done.store(true, std::memory_order_release);
      it = g_flushes.erase(it);
      ++done;
    } else {
      ++it;
    }
  }
  if (g_flushes.empty()) {
    dev::remove_progress_hook(g_flush_hook);
    g_flush_hook = -1;
  }
  return done;
}

}  // namespace

int send(const void* buf, MPI_Count count, Datatype& type, int dest, int tag, Comm& comm,
         Request** out) {
  if (dest == MPI_PROC_NULL) {
    if (out != nullptr) {
      *out = request_create(Request::Kind::kDone);
      (*out)->dev.done.store(true, std::memory_order_relaxed);
    }
    return MPI_SUCCESS;
  }
  const auto bytes = static_cast<std::size_t>(count * type.size);
  reclaim();
  std::size_t offset = 0;
  if (!allocate(bytes, &offset))
    return errhan::make_error(
        MPI_ERR_BUFFER,
        "buffered send of %zu bytes (+%d overhead) does not fit in the attached "
        "buffer of %zu bytes (%zu regions in use)",
        bytes, MPI_BSEND_OVERHEAD, g_buffer.size, g_buffer.in_use.size());
  char* region = g_buffer.base + offset + MPI_BSEND_OVERHEAD;
  if (bytes != 0) type.pack(buf, count, region);
  Request* req = request_create(Request::Kind::kSend);
  req->bsend_offset = offset;
  req->bsend_bytes = bytes;
  Datatype& byte_type = *datatype_get(MPI_BYTE);
  if (int err = pt2pt::start_send(req, region, static_cast<MPI_Count>(bytes), byte_type, dest, tag,
                                  comm, comm.context_id, dev::SendMode::kStandard);
      err != MPI_SUCCESS) {
    request_free(req);
    return err;
  }
  g_buffer.in_use.emplace(offset, Region{req, g_sends_buffered++});
  if (out != nullptr) {
    *out = request_create(Request::Kind::kDone);
    (*out)->dev.done.store(true, std::memory_order_relaxed);
  }
  return MPI_SUCCESS;
}

int attach(void* buffer, MPI_Count size) {
  if (g_buffer.base != nullptr)
    return errhan::make_error(MPI_ERR_BUFFER, "a buffer of %zu bytes is already attached",
                              g_buffer.size);
  if (size < 0)
    return errhan::make_error(MPI_ERR_ARG, "size=%lld must be non-negative",
                              static_cast<long long>(size));
  if (buffer == nullptr && size > 0)
    return errhan::make_error(MPI_ERR_BUFFER, "buffer=NULL with size=%lld",
                              static_cast<long long>(size));
  g_buffer.base = static_cast<char*>(buffer);
  g_buffer.size = static_cast<std::size_t>(size);
  return MPI_SUCCESS;
}

int detach(void* buffer_addr, MPI_Count* size) {
  if (g_buffer.base == nullptr) return errhan::make_error(MPI_ERR_BUFFER, "no buffer is attached");
  dev::ProgressWait wait;
  while (!g_buffer.in_use.empty()) {
    wait.pause();
    reclaim();
  }
  *static_cast<void**>(buffer_addr) = g_buffer.base;
  *size = static_cast<MPI_Count>(g_buffer.size);
  g_buffer = AttachedBuffer{};
  return MPI_SUCCESS;
}

int flush() {
  dev::ProgressWait wait;
  reclaim();
  const uint64_t before = g_sends_buffered;
  while (!flushed(before)) {
    wait.pause();
    reclaim();
  }
  return MPI_SUCCESS;
}

int iflush(Request** out) {
  Request* req = request_create(Request::Kind::kGeneralized);
  reclaim();
  if (flushed(g_sends_buffered)) {
    req->dev.done.store(true, std::memory_order_relaxed);
  } else {
    g_flushes.push_back(PendingFlush{req, g_sends_buffered});
    if (g_flush_hook < 0) g_flush_hook = dev::add_progress_hook(flush_progress, nullptr);
  }
  *out = req;
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::bsend

namespace stmpi::impl {

int buffer_attach_any(void* buffer, MPI_Count size) { return mpi::bsend::attach(buffer, size); }
int buffer_detach(void* buffer_addr, int* size) {
  MPI_Count big = 0;
  const int err = mpi::bsend::detach(buffer_addr, &big);
  if (err == MPI_SUCCESS) *size = static_cast<int>(big);
  return err;
}
int buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return mpi::bsend::detach(buffer_addr, size);
}
int buffer_flush() { return mpi::bsend::flush(); }
int buffer_iflush(MPI_Request* request) {
  mpi::Request* req = nullptr;
  const int err = mpi::bsend::iflush(&req);
  if (err == MPI_SUCCESS) *request = req->handle;
  return err;
}

}  // namespace stmpi::impl
