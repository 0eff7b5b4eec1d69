// The MPIX_Host_stream C API (include/mpix.h). These are extensions, not in
// the MPI Forum's API data, so they are written here rather than generated.
//
// Host streams depend on nothing MPI_Init sets up, so the calls work at any
// time. They never take MPI's global lock: an enqueued function may call MPI
// while another thread synchronizes the stream. Between MPI_Init and
// MPI_Finalize errors are raised on MPI_COMM_SELF's error handler (no
// communicator is involved); outside, they are only returned.
#include <mpi.h>

#include "mpi/errhan/errhandler.h"
#include "util/error.h"
#include "mpi/init/state.h"
#include "stream/registry.h"

namespace stmpi::stream {
namespace {

int report(int code, const char* function) {
  if (code == MPI_SUCCESS) [[likely]] return code;
  if (!mpi::is_initialized() || mpi::is_finalized()) return code;
  return mpi::errhan::raise_on_comm(nullptr, code, function);
}

int bad_stream(const void* handle, const char* function) {
  const int code =
      handle == nullptr
          ? util::make_error(MPI_ERR_ARG, "stream is NULL (not an MPIX_Host_stream)")
          : util::make_error(
                MPI_ERR_ARG,
                "stream=%p is not a live MPIX_Host_stream (never created, or already freed)",
                handle);
  return report(code, function);
}

MPIX_Host_stream to_handle(const HostStream& stream) {
  return static_cast<MPIX_Host_stream>(stream.handle());
}

}  // namespace
}  // namespace stmpi::stream

using stmpi::stream::bad_stream;
using stmpi::stream::report;

extern "C" __attribute__((visibility("default"))) int PMPIX_Host_stream_create(
    MPIX_Host_stream* stream) {
  constexpr const char* kFunction = "MPIX_Host_stream_create";
  if (stream == nullptr)
    return report(stmpi::util::make_error(
                     MPI_ERR_ARG, "stream is NULL (it must point to an MPIX_Host_stream to set)"),
                 kFunction);
  std::shared_ptr<stmpi::stream::HostStream> created;
  if (int err = stmpi::stream::create_host_stream(&created); err != MPI_SUCCESS)
    return report(err, kFunction);
  *stream = stmpi::stream::to_handle(*created);
  return MPI_SUCCESS;
}

extern "C" __attribute__((visibility("default"))) int PMPIX_Host_stream_launch(
    MPIX_Host_stream stream, void (*fn)(void* arg), void* arg) {
  constexpr const char* kFunction = "MPIX_Host_stream_launch";
  const std::shared_ptr<stmpi::stream::HostStream> host = stmpi::stream::find_host_stream(stream);
  if (host == nullptr) [[unlikely]] return bad_stream(stream, kFunction);
  return report(host->launch(fn, arg), kFunction);
}

extern "C" __attribute__((visibility("default"))) int PMPIX_Host_stream_synchronize(
    MPIX_Host_stream stream) {
  constexpr const char* kFunction = "MPIX_Host_stream_synchronize";
  const std::shared_ptr<stmpi::stream::HostStream> host = stmpi::stream::find_host_stream(stream);
  if (host == nullptr) [[unlikely]] return bad_stream(stream, kFunction);
  return report(host->synchronize(), kFunction);
}

extern "C" __attribute__((visibility("default"))) int PMPIX_Host_stream_free(
    MPIX_Host_stream* stream) {
  constexpr const char* kFunction = "MPIX_Host_stream_free";
  if (stream == nullptr)
    return report(stmpi::util::make_error(
                     MPI_ERR_ARG, "stream is NULL (it must point to the MPIX_Host_stream to free)"),
                 kFunction);
  if (*stream == nullptr)
    return report(stmpi::util::make_error(
                     MPI_ERR_ARG, "*stream is NULL (not a host stream: already freed?)"),
                 kFunction);
  if (int err = stmpi::stream::free_host_stream(*stream); err != MPI_SUCCESS)
    return report(err, kFunction);
  *stream = nullptr;
  return MPI_SUCCESS;
}

// MPIX_X is a weak alias of PMPIX_X, as MPI_X is of PMPI_X.
extern "C" __attribute__((visibility("default"))) decltype(PMPIX_Host_stream_create)
    MPIX_Host_stream_create __attribute__((weak, alias("PMPIX_Host_stream_create")));
extern "C" __attribute__((visibility("default"))) decltype(PMPIX_Host_stream_launch)
    MPIX_Host_stream_launch __attribute__((weak, alias("PMPIX_Host_stream_launch")));
extern "C" __attribute__((visibility("default"))) decltype(PMPIX_Host_stream_synchronize)
    MPIX_Host_stream_synchronize __attribute__((weak, alias("PMPIX_Host_stream_synchronize")));
extern "C" __attribute__((visibility("default"))) decltype(PMPIX_Host_stream_free)
    MPIX_Host_stream_free __attribute__((weak, alias("PMPIX_Host_stream_free")));
