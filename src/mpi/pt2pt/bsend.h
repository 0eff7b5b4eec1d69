// Buffered sends: the data is copied into the user-attached buffer and sent
// from there, so the call returns at once (MPI_Buffer_attach/detach).
#pragma once

#include <mpi.h>

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Request;
}  // namespace stmpi::mpi

namespace stmpi::mpi::bsend {

// Copies the message into the attached buffer and starts sending it. With
// `out`, returns a request that is already complete (MPI_Ibsend);
// without, nothing to wait for. MPI_ERR_BUFFER when the buffer is too small.
[[nodiscard]] int send(const void* buf, MPI_Count count, Datatype& type, int dest, int tag,
                       Comm& comm, Request** out);
[[nodiscard]] int attach(void* buffer, MPI_Count size);
// Waits for every buffered send to leave the buffer, then gives it back.
[[nodiscard]] int detach(void* buffer_addr, MPI_Count* size);
// MPI_Buffer_flush: waits until the sends buffered so far have left the
// buffer (with no buffer attached, there is nothing to wait for).
[[nodiscard]] int flush();
// MPI_Buffer_iflush: a request that completes when they have.
[[nodiscard]] int iflush(Request** out);

}  // namespace stmpi::mpi::bsend
