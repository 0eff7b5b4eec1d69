// The streams this library knows: live host streams (MPIX_Host_stream), and
// wrappers of the GPU streams users have passed in. `resolve` is how the
// stream argument of an MPIX_*_stream call becomes a Stream.
#pragma once

#include <memory>

#include "stream/host_stream.h"
#include "stream/stream.h"

namespace stmpi::stream {

// Creates and registers a host stream; its handle is HostStream::handle().
[[nodiscard]] int create_host_stream(std::shared_ptr<HostStream>* out);

// The live host stream with this handle, or null (never created, or freed).
std::shared_ptr<HostStream> find_host_stream(const void* handle);

// As find_host_stream, without taking a reference: the stream is the one
// this thread's lookup cache holds, valid until this thread's next lookup
// or until this thread frees it. For the per-call path of the MPIX calls,
// which look a stream up once and use it before returning.
HostStream* find_host_stream_borrowed(const void* handle);

// Unregisters the host stream, runs what is still queued, stops its thread.
// MPI_ERR_ARG for a handle that is not a live host stream; MPI_ERR_OTHER
// when called from an operation running on that stream.
[[nodiscard]] int free_host_stream(const void* handle);

// A live host stream, else a stream of the active GPU backend (chosen on the
// first call). Otherwise MPI_ERR_ARG: "stream=0x... is not a stream this
// library can use (backend: host)", or the backend's MPI_ERR_OTHER when the
// requested GPU backend is unavailable.
[[nodiscard]] int resolve(void* handle, std::shared_ptr<Stream>* out);
// As resolve, without taking a reference (find_host_stream_borrowed's rule
// for host streams; GPU stream wrappers live as long as the process).
[[nodiscard]] int resolve_borrowed(void* handle, Stream** out);

// Live host streams (for tests and statistics).
std::size_t host_stream_count();

}  // namespace stmpi::stream
