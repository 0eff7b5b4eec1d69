// The MPIX_Host_stream calls (include/mpix.h) over src/stream's host streams.
// Their wrappers are generated (maint/mpix.spec): they work at any time,
// never take MPI's global lock (an enqueued function may call MPI while
// another thread synchronizes the stream), check the pointers the calls
// write through, and raise errors on MPI_COMM_SELF's error handler between
// MPI_Init and MPI_Finalize (returned outside).
#include <mpi.h>

#include <memory>

#include "mpi/mpix/impl_mpix.h"
#include "stream/registry.h"
#include "util/error.h"

namespace stmpi::impl {
namespace {

int bad_stream(const void* handle) {
  if (handle == nullptr)
    return util::make_error(MPI_ERR_ARG, "stream is NULL (not an MPIX_Host_stream)");
  return util::make_error(
      MPI_ERR_ARG, "stream=%p is not a live MPIX_Host_stream (never created, or already freed)",
      handle);
}

}  // namespace

int mpix_host_stream_create(MPIX_Host_stream* stream) {
  std::shared_ptr<stream::HostStream> created;
  if (int err = stream::create_host_stream(&created); err != MPI_SUCCESS) return err;
  *stream = static_cast<MPIX_Host_stream>(created->handle());
  return MPI_SUCCESS;
}

int mpix_host_stream_launch(MPIX_Host_stream stream, MPIX_Host_stream_function* fn, void* arg) {
  // Borrowed (no reference taken): an enqueue runs no user code that could
  // look up another stream on this thread.
  stream::HostStream* host = stream::find_host_stream_borrowed(stream);
  if (host == nullptr) [[unlikely]]
    return bad_stream(stream);
  return host->launch(fn, arg);
}

int mpix_host_stream_synchronize(MPIX_Host_stream stream) {
  // A reference: user functions run here (caller runs) and may look up
  // other streams on this thread.
  const std::shared_ptr<stream::HostStream> host = stream::find_host_stream(stream);
  if (host == nullptr) [[unlikely]]
    return bad_stream(stream);
  return host->synchronize();
}

int mpix_host_stream_free(MPIX_Host_stream* stream) {
  if (*stream == nullptr)
    return util::make_error(MPI_ERR_ARG, "*stream is NULL (not a host stream: already freed?)");
  if (int err = stream::free_host_stream(*stream); err != MPI_SUCCESS) return err;
  *stream = nullptr;
  return MPI_SUCCESS;
}

int mpix_host_stream_get_stats(MPIX_Host_stream stream, long long* queued, long long* thread_ops,
                               long long* caller_ops, long long* inline_ops, long long* handoffs,
                               long long* wakeups) {
  const stream::HostStream* host = stream::find_host_stream_borrowed(stream);
  if (host == nullptr) [[unlikely]]
    return bad_stream(stream);
  const stream::HostStreamCounters c = host->executor().counters();
  auto set = [](long long* out, uint64_t value) {
    if (out != nullptr) *out = static_cast<long long>(value);
  };
  set(queued, c.enqueued);
  set(thread_ops, c.executor_ops);
  set(caller_ops, c.caller_ops + c.progress_ops);  // the application's threads
  set(inline_ops, c.inline_ops);
  set(handoffs, c.handoffs);
  set(wakeups, c.wakeups);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
