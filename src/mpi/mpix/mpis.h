// MPI Advance's persistent stream-triggering calls (include/mpis.h) at the
// MPI layer: the implementations behind src/binding/mpis.cc's entry points,
// which hold the global lock (except where a call says otherwise), checked
// the handles, ranks, tags, counts and buffers, and raise the errors these
// return. Their objects (MPIS_Queue, MPIS_Request) are defined in mpis.cc.
#pragma once

#include <mpi.h>
#include <mpis.h>

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Op;
}  // namespace stmpi::mpi

namespace stmpi::impl {

// MPI_Finalize: frees the engine's duplicates of the communicators MPIS_
// requests were made on (collective, like the duplicates).
[[nodiscard]] int mpis_finalize();
[[nodiscard]] int mpis_queue_init(MPIS_Queue* queue, int type, void* stream_address);
// Without the lock: waits for the queue's stream, whose operations take it.
[[nodiscard]] int mpis_queue_wait(MPIS_Queue queue);
[[nodiscard]] int mpis_queue_free(MPIS_Queue* queue);  // without the lock
[[nodiscard]] int mpis_p2p_init(bool is_send, const void* buf, MPI_Count count, mpi::Datatype& type,
                                int peer, int tag, mpi::Comm& comm, MPIS_Request* request);
[[nodiscard]] int mpis_barrier_init(mpi::Comm& comm, MPIS_Request* request);
[[nodiscard]] int mpis_allreduce_init(const void* sendbuf, void* recvbuf, int count,
                                      mpi::Datatype& type, mpi::Op& op, mpi::Comm& comm,
                                      MPIS_Request* request);
[[nodiscard]] int mpis_match(const char* call, MPIS_Request* request, MPI_Status* status);
[[nodiscard]] int mpis_imatch(MPIS_Request* request, MPIS_Request* match_request);
[[nodiscard]] int mpis_is_matched(MPIS_Request* request, int* matched);
[[nodiscard]] int mpis_enqueue_start(const char* call, MPIS_Queue queue, MPIS_Request* request);
// Every request is checked first; nothing is enqueued when one is refused.
[[nodiscard]] int mpis_enqueue_startall(const char* call, MPIS_Queue queue, int count,
                                        MPIS_Request requests[]);
[[nodiscard]] int mpis_enqueue_waitall(MPIS_Queue queue);
[[nodiscard]] int mpis_request_free(const char* call, MPIS_Request* request);
[[nodiscard]] int mpis_wait(const char* call, MPIS_Request* request, MPI_Status* status);

}  // namespace stmpi::impl
