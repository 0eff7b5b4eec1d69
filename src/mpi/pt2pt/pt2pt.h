// Point-to-point internals shared by the MPI calls and by collectives:
// start a send or receive on a request (PROC_NULL, datatype staging and
// the device call in one place).
#pragma once

#include <cstdint>

#include <mpi.h>

#include "device/request_dev.h"

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Request;
}  // namespace stmpi::mpi

namespace stmpi::mpi::pt2pt {

// `peer` is a rank in `comm` or MPI_PROC_NULL; `context` is the
// communicator's point-to-point or collective context id.
[[nodiscard]] int start_send(Request* req, const void* buf, MPI_Count count, Datatype& type,
                             int peer, int tag, Comm& comm, uint32_t context, dev::SendMode mode);
[[nodiscard]] int start_recv(Request* req, void* buf, MPI_Count count, Datatype& type, int peer,
                             int tag, Comm& comm, uint32_t context);

// New request + start; *out receives it.
[[nodiscard]] int isend(const void* buf, MPI_Count count, Datatype& type, int dest, int tag,
                        Comm& comm, uint32_t context, dev::SendMode mode, Request** out);
[[nodiscard]] int irecv(void* buf, MPI_Count count, Datatype& type, int source, int tag, Comm& comm,
                        uint32_t context, Request** out);

// Blocking forms (wait and retire inside).
[[nodiscard]] int send(const void* buf, MPI_Count count, Datatype& type, int dest, int tag,
                       Comm& comm, uint32_t context, dev::SendMode mode);
[[nodiscard]] int recv(void* buf, MPI_Count count, Datatype& type, int source, int tag, Comm& comm,
                       uint32_t context, MPI_Status* status);
[[nodiscard]] int sendrecv(const void* sendbuf, MPI_Count sendcount, Datatype& sendtype, int dest,
                           int sendtag, void* recvbuf, MPI_Count recvcount, Datatype& recvtype,
                           int source, int recvtag, Comm& comm, uint32_t context,
                           MPI_Status* status);

// Waits for all, retires all; the first error wins.
[[nodiscard]] int wait_all(int n, Request* const* reqs);

}  // namespace stmpi::mpi::pt2pt
