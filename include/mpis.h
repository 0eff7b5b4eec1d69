/* mpis.h - persistent operations started from a stream, with the calls of
 * MPI Advance's stream-triggering library (MPIS_*), so that its programs
 * build unchanged against STMPI (include "stream-triggering.h", which
 * includes this file, or this file; link with mpicc as usual: the calls
 * are in libmpich). Usable from C and C++.
 *
 * A queue runs on a stream; persistent requests are made by the _init
 * calls, matched once with their peers (MPIS_Match and its companions),
 * then started any number of times from the queue's stream:
 *   MPIS_Queue_init(&queue, type, &stream)   THREAD: an MPIX_Host_stream the
 *                                            program made (or NULL, or any
 *                                            other value: the queue gets a
 *                                            host stream of its own);
 *                                            GPU_MEM_OPS and CXI: a
 *                                            cudaStream_t / hipStream_t of
 *                                            the active GPU backend
 *   MPIS_Send_init, MPIS_Rsend_init, MPIS_Recv_init, MPIS_Barrier_init,
 *   MPIS_Allreduce_init                      persistent requests
 *   MPIS_Match(&req, status), MPIS_Matchall, MPIS_Imatch + MPIS_Wait,
 *   MPIS_Queue_match, MPIS_Is_matched        pair them with their peers
 *   MPIS_Enqueue_start(queue, &req), MPIS_Enqueue_startall
 *                                            one round each, when the
 *                                            stream gets there: a receive
 *                                            buffer is written and a send
 *                                            buffer read only then
 *   MPIS_Enqueue_waitall(queue)              the stream waits for every
 *                                            round started on the queue
 *   MPIS_Queue_wait(queue)                   the CPU waits for the stream
 *   MPIS_Request_free(all), MPIS_Queue_free  afterwards
 * MPIS_Alloc_mem and MPIS_Free_mem are MPI_Alloc_mem and MPI_Free_mem.
 * Errors are MPI error codes (MPIS_SUCCESS is MPI_SUCCESS), raised on the
 * communicator's error handler (calls without one: MPI_COMM_SELF's), with a
 * message naming the call and the queue or request. The first request on a
 * communicator duplicates it for the library (collective over it). */
#ifndef STMPI_MPIS_H
#define STMPI_MPIS_H

#include <stdint.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uintptr_t MPIS_Queue;
typedef struct MPIS_Request_struct *MPIS_Request;

/* Return values beyond MPI's error codes. */
enum {
  MPIS_SUCCESS = 0,
  MPIS_NOT_READY = -1,
  MPIS_INVALID_REQUEST_STATE = -2,
  MPIS_UNSUPPORTED_BEHAVIOR = -3
};

/* Exported from libmpich, which hides what it does not name. */
#if defined(__GNUC__)
#define STMPI_MPIS_EXPORT __attribute__((visibility("default")))
#else
#define STMPI_MPIS_EXPORT
#endif
extern STMPI_MPIS_EXPORT const uintptr_t MPIS_QUEUE_NULL;
extern STMPI_MPIS_EXPORT const MPIS_Request MPIS_REQUEST_NULL;

/* Queue kinds (the unprefixed names are the library's). */
enum MPIS_Queue_type { THREAD = 0, GPU_MEM_OPS = 3, CXI = 4 };
typedef enum MPIS_Queue_type MPIS_Queue_type;
typedef enum MPIS_Queue_type MPS_Queue_type;

void MPIS_Hello_world(void);

int MPIS_Queue_init(MPIS_Queue *queue, MPIS_Queue_type type, void *stream_address);
int MPIS_Queue_free(MPIS_Queue *queue);
int MPIS_Queue_wait(MPIS_Queue queue);

int MPIS_Enqueue_start(MPIS_Queue queue, MPIS_Request *request);
int MPIS_Enqueue_startall(MPIS_Queue queue, int count, MPIS_Request requests[]);
int MPIS_Enqueue_waitall(MPIS_Queue queue);

int MPIS_Match(MPIS_Request *request, MPI_Status *status);
int MPIS_Matchall(int count, MPIS_Request requests[], MPI_Status *statuses);
int MPIS_Imatch(MPIS_Request *request, MPIS_Request *match_request);
int MPIS_Is_matched(MPIS_Request *request, int *matched);
int MPIS_Queue_match(MPIS_Queue queue, MPIS_Request *request, MPI_Status *status);

int MPIS_Request_free(MPIS_Request *request);
int MPIS_Request_freeall(int count, MPIS_Request requests[]);
int MPIS_Wait(MPIS_Request *request, MPI_Status *status);
int MPIS_Waitall(int count, MPIS_Request requests[], MPI_Status *statuses);

int MPIS_Barrier_init(MPI_Comm comm, MPI_Info info, MPIS_Request *request);
int MPIS_Recv_init(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Info info, MPIS_Request *request);
int MPIS_Send_init(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Info info, MPIS_Request *request);
int MPIS_Rsend_init(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPIS_Request *request);
int MPIS_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPIS_Request *request);

int MPIS_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPIS_Free_mem(void *base);

#ifdef __cplusplus
}
#endif

#endif /* STMPI_MPIS_H */
