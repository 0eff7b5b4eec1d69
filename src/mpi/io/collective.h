// Collective access (MPI_File_read_all & co.): two-phase collective
// buffering. Every process of the file's communicator calls these with its
// own offset, buffer and count.
//
// How a call runs (collective.cc explains the steps):
//   - romio_cb_read / romio_cb_write = disable: each process reads or writes
//     its own data through the independent path (read_at / write_at);
//   - automatic: the processes exchange the file range each one touches
//     and the mean length of its pieces; when every mean is at least
//     direct_min_bytes(), each process accesses its own data directly
//     (interleaved or not), otherwise the data goes through aggregators;
//   - enable: always through aggregators.
// Aggregators: the lowest rank of each node (the peer table), or cb_nodes
// ranks spread over the nodes. The accessed range is cut into one file
// domain per aggregator, each domain handled in rounds of at most
// cb_buffer_size bytes.
#pragma once

#include <mpi.h>

namespace stmpi::mpi {
struct Datatype;
}

namespace stmpi::mpi::io {

class File;

// Accesses whose pieces are on average at least this long on every process
// are not aggregated under romio_cb_* = automatic: the runtime parameter
// STMPI_IO_DIRECT_MIN_BYTES (1 KiB by default; settings.cc says why),
// read at each collective call and the same on every process.
MPI_Count direct_min_bytes();

// Bytes of the view's etype (1 without a view).
MPI_Count etype_size(const File& file);

// Collective read / write of `count` instances of `type` at `offset` etypes
// into the view. `status` (may be MPI_STATUS_IGNORE) gets this process's
// exact byte count; a read past the end of the file gives a short count.
// An error on any process (an aggregator's write, say) makes every process
// return an error of that class.
[[nodiscard]] int read_at_all(File& file, MPI_Offset offset, void* buf, MPI_Count count,
                              const Datatype& type, MPI_Status* status);
[[nodiscard]] int write_at_all(File& file, MPI_Offset offset, const void* buf, MPI_Count count,
                               const Datatype& type, MPI_Status* status);

// Access mode checks shared by the collective, shared-pointer and
// nonblocking calls: MPI_ERR_ACCESS for a read of a write-only file,
// MPI_ERR_READ_ONLY for a write to a read-only file, and, when
// `individual` (the call uses the individual file pointer or an explicit
// offset), MPI_ERR_UNSUPPORTED_OPERATION on an MPI_MODE_SEQUENTIAL file.
[[nodiscard]] int check_access(const File& file, bool write, bool individual, const char* function);

}  // namespace stmpi::mpi::io
