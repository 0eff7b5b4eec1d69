/* mpix.h - STMPI extensions (MPIX_*). Included by mpi.h. */
#ifndef STMPI_MPIX_H
#define STMPI_MPIX_H

/* Host streams: an in-order queue of host work ("kernels") run by a thread
 * of the library, the CPU counterpart of a GPU stream. Usable at any time,
 * before MPI_Init and after MPI_Finalize included; thread-safe; the calls
 * never take MPI's global lock, so enqueued functions may call MPI (with
 * MPI_THREAD_MULTIPLE). Errors are MPI_ERR_ARG (NULL or unknown stream, NULL
 * fn) or MPI_ERR_OTHER, raised on MPI_COMM_SELF's error handler between
 * MPI_Init and MPI_Finalize and returned otherwise. */
typedef struct MPIX_Host_stream_s *MPIX_Host_stream;
typedef void MPIX_Host_stream_function(void *arg); /* user work run by a host stream */
int MPIX_Host_stream_create(MPIX_Host_stream *stream);
int MPIX_Host_stream_launch(MPIX_Host_stream stream, MPIX_Host_stream_function *fn,
                            void *arg); /* enqueue user work */
int MPIX_Host_stream_synchronize(MPIX_Host_stream stream);
int MPIX_Host_stream_free(MPIX_Host_stream *stream);
int PMPIX_Host_stream_create(MPIX_Host_stream *stream);
int PMPIX_Host_stream_launch(MPIX_Host_stream stream, MPIX_Host_stream_function *fn, void *arg);
int PMPIX_Host_stream_synchronize(MPIX_Host_stream stream);
int PMPIX_Host_stream_free(MPIX_Host_stream *stream);
/* Who ran a host stream's operations so far: operations queued, run by the
 * stream's thread, run by threads in MPIX_Host_stream_synchronize ("caller
 * runs"), run at enqueue on an idle stream (library signals, copies and
 * already satisfied waits, never queued); times the stream's thread took
 * queued work over (hand-offs) and times an enqueue had to wake it. Any
 * argument may be NULL. */
int MPIX_Host_stream_get_stats(MPIX_Host_stream stream, long long *queued, long long *thread_ops,
                               long long *caller_ops, long long *inline_ops, long long *handoffs,
                               long long *wakeups);
int PMPIX_Host_stream_get_stats(MPIX_Host_stream stream, long long *queued, long long *thread_ops,
                                long long *caller_ops, long long *inline_ops, long long *handoffs,
                                long long *wakeups);

/* Passive-target lock statistics of a window at this process (all lock
 * and lock_all acquisitions so far): how many acquisitions, and how many
 * remote atomic operations (fetch-add, compare-and-swap, one-word put/get
 * on lock words and on other processes' queue nodes) they took in total,
 * lock and unlock together. The _max form gives the most one acquisition
 * took and how many acquisitions had to wait. A waiter polls only its own
 * memory, so these numbers do not grow with waiting time. */
int MPIX_Win_get_lock_stats(MPI_Win win, long long *acquisitions, long long *remote_atomics);
int MPIX_Win_get_lock_stats_max(MPI_Win win, long long *max_remote_atomics, long long *waited);
int PMPIX_Win_get_lock_stats(MPI_Win win, long long *acquisitions, long long *remote_atomics);
int PMPIX_Win_get_lock_stats_max(MPI_Win win, long long *max_remote_atomics, long long *waited);

/* Stream-triggered active-target RMA. The CPU enqueues a whole epoch on a
 * stream and returns at once; the stream runs the signals, the data movement
 * and the waits in its order:
 *   MPIX_Win_post_stream(group, win, stream)    target: exposure epoch open
 *   MPI_Win_start(group, MPIX_MODE_STREAM, win) origin: MPI_Put, MPI_Get and
 *                                               MPI_Accumulate are recorded,
 *                                               not executed
 *   MPIX_Win_complete_stream(win, stream)       origin: the stream waits for
 *                                               the posts, moves the data and
 *                                               signals the targets
 *   MPIX_Win_wait_stream(win, stream)           target: the stream waits for
 *                                               the origins' completions
 * `stream` is an MPIX_Host_stream, or a hipStream_t / cudaStream_t when that
 * GPU backend is active. The window must come from MPI_Win_allocate or
 * MPI_Win_allocate_shared. Origin buffers are read (written, for MPI_Get)
 * when the stream executes the epoch, so they must stay valid, and hold the
 * data, until the stream reaches MPIX_Win_complete_stream; received data is
 * valid in stream order after MPIX_Win_wait_stream.
 * MPIX_MODE_STREAM is 1 << 20: outside every MPI_MODE_* bit (1..16384). */
#define MPIX_MODE_STREAM 1048576
int MPIX_Win_post_stream(MPI_Group group, MPI_Win win, void *stream);
int MPIX_Win_complete_stream(MPI_Win win, void *stream);
int MPIX_Win_wait_stream(MPI_Win win, void *stream);
int PMPIX_Win_post_stream(MPI_Group group, MPI_Win win, void *stream);
int PMPIX_Win_complete_stream(MPI_Win win, void *stream);
int PMPIX_Win_wait_stream(MPI_Win win, void *stream);

/* Stream-triggered statistics of a window at this process: epochs closed by
 * MPIX_Win_complete_stream plus those closed by MPIX_Win_wait_stream, and
 * the launches they enqueued by kind (a merged operation is one launch
 * whatever its number of peers or RMA calls). _pending gives the access
 * epochs whose plans the streams have not executed yet. */
int MPIX_Win_get_stream_stats(MPI_Win win, long long *epochs, long long *signal_launches,
                              long long *copy_launches, long long *wait_launches);
int MPIX_Win_get_stream_pending(MPI_Win win, long long *pending_epochs);
int PMPIX_Win_get_stream_stats(MPI_Win win, long long *epochs, long long *signal_launches,
                               long long *copy_launches, long long *wait_launches);
int PMPIX_Win_get_stream_pending(MPI_Win win, long long *pending_epochs);

/* Triggered operations of stream epochs between nodes (STMPI_ST_TRIGGER,
 * STMPI_ST_THROTTLE): of window `win` at this process, or of the whole
 * process (freed windows included) when win is MPI_WIN_NULL. `size` is
 * sizeof(MPIX_Stream_trigger_stats) as the caller was compiled: fields
 * added later are appended, and only the first `size` bytes are written.
 * Counters in use and the largest number in use are per process (one pool)
 * for MPI_WIN_NULL, per window otherwise. */
typedef struct MPIX_Stream_trigger_stats {
  long long posted;         /* triggered operations posted */
  long long fired;          /* fired and completed */
  long long software_fired; /* of those, by the library's software engine */
  long long counters_in_use;
  long long counters_max_in_use;
  long long throttle_stalls;     /* calls that waited for counters or slots */
  long long throttle_ns;         /* time they waited */
  long long throttle_reclaimed;  /* epochs whose resources those waits reclaimed */
  long long throttle_overlapped; /* waits that ended while earlier epochs still held
                                    resources (adaptive reuse; 0 under static) */
} MPIX_Stream_trigger_stats;
int MPIX_Win_get_stream_trigger_stats(MPI_Win win, MPIX_Stream_trigger_stats *stats, int size);
int PMPIX_Win_get_stream_trigger_stats(MPI_Win win, MPIX_Stream_trigger_stats *stats, int size);

/* Persistent stream-triggered epochs: a whole PSCW step of a window at this
 * process (the exposure part to `post_group`, the access part to
 * `start_group` with its RMA calls) recorded once and started many times,
 * each start one enqueued operation:
 *   MPIX_Win_epoch_init(post_group, start_group, win, &epoch)
 *       opens the recording: MPI_Put, MPI_Get and MPI_Accumulate on `win`
 *       to members of start_group are recorded (buffers, displacements and
 *       datatypes as given; nothing is read or written), as in an access
 *       epoch opened with MPIX_MODE_STREAM
 *   MPIX_Win_epoch_commit(epoch)     closes the recording
 *   MPIX_Win_epoch_start_stream(epoch, stream)
 *       enqueues one run: the stream signals post_group's members that the
 *       window is open to them, waits for start_group's members to be open,
 *       moves the recorded data (origin buffers read, MPI_Get buffers
 *       written, now), signals the targets, and waits until every member of
 *       post_group has completed its access
 *   MPIX_Win_epoch_free(&epoch)      waits until the streams ran its starts
 * The k-th start pairs with the peers' k-th stream epochs (persistent or
 * not: MPIX_Win_post_stream ... MPIX_Win_wait_stream match them), so every
 * process of an exchange starts its own persistent epoch once per step.
 * Either group may be MPI_GROUP_EMPTY. Starts need a window without open
 * epochs (MPI_ERR_RMA_SYNC); the window rules of the stream-triggered calls
 * above apply (MPI_Win_allocate or MPI_Win_allocate_shared; `stream` an
 * MPIX_Host_stream or a stream of the active GPU backend, else
 * MPI_ERR_ARG). A handle that is not a live epoch is MPI_ERR_ARG, an epoch
 * whose window was freed MPI_ERR_WIN, a start before the commit
 * MPI_ERR_RMA_SYNC; errors of calls without a window go to MPI_COMM_SELF's
 * error handler. */
typedef struct MPIX_Win_epoch_s *MPIX_Win_epoch;
#define MPIX_WIN_EPOCH_NULL ((MPIX_Win_epoch)0)
int MPIX_Win_epoch_init(MPI_Group post_group, MPI_Group start_group, MPI_Win win,
                        MPIX_Win_epoch *epoch);
int MPIX_Win_epoch_commit(MPIX_Win_epoch epoch);
int MPIX_Win_epoch_start_stream(MPIX_Win_epoch epoch, void *stream);
int MPIX_Win_epoch_free(MPIX_Win_epoch *epoch);
int PMPIX_Win_epoch_init(MPI_Group post_group, MPI_Group start_group, MPI_Win win,
                         MPIX_Win_epoch *epoch);
int PMPIX_Win_epoch_commit(MPIX_Win_epoch epoch);
int PMPIX_Win_epoch_start_stream(MPIX_Win_epoch epoch, void *stream);
int PMPIX_Win_epoch_free(MPIX_Win_epoch *epoch);

/* HPE Cray MPICH's queues, with HPE's signatures: operations collected on a
 * queue and started together when its stream reaches MPIX_Enqueue_start:
 *   MPIX_Create_queue(comm, stream, &queue)   stream: an MPIX_Host_stream,
 *       or a cudaStream_t / hipStream_t of the active GPU backend (the
 *       stream's value, not its address); collective over comm (the queue
 *       works on a duplicate of it)
 *   MPIX_Enqueue_send / MPIX_Enqueue_recv(buf, count, datatype, peer, tag,
 *       queue, &request)   the envelope is matched now, nothing moves yet
 *   MPIX_Enqueue_start(queue)   every operation enqueued since the last
 *       start begins, in FIFO order, when the stream gets there: a send
 *       buffer is read, a receive buffer written, only after that
 *   MPIX_Enqueue_wait(queue)    the stream waits until they completed
 *   MPIX_Free_queue(queue)      after the last wait (MPI_ERR_OTHER while
 *       operations are still unstarted or unwaited)
 * The requests complete with MPI_Wait / MPI_Test on the host as well
 * (status of a receive included). Ranks outside the queue's communicator
 * are MPI_ERR_RANK; a handle that is not a live queue MPI_ERR_ARG; a
 * stream of a backend this build or run lacks MPI_ERR_ARG naming it. */
typedef struct MPIX_Queue_s *MPIX_Queue;
int MPIX_Create_queue(MPI_Comm comm, void *stream, MPIX_Queue *queue);
int MPIX_Free_queue(MPIX_Queue queue);
int MPIX_Enqueue_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPIX_Queue queue, MPI_Request *request);
int MPIX_Enqueue_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPIX_Queue queue, MPI_Request *request);
int MPIX_Enqueue_start(MPIX_Queue queue);
int MPIX_Enqueue_wait(MPIX_Queue queue);
int PMPIX_Create_queue(MPI_Comm comm, void *stream, MPIX_Queue *queue);
int PMPIX_Free_queue(MPIX_Queue queue);
int PMPIX_Enqueue_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPIX_Queue queue, MPI_Request *request);
int PMPIX_Enqueue_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPIX_Queue queue, MPI_Request *request);
int PMPIX_Enqueue_start(MPIX_Queue queue);
int PMPIX_Enqueue_wait(MPIX_Queue queue);

/* MPICH's extensions, with MPICH's signatures (MPICH's Fortran library calls
 * them). No process failure is ever detected here, so: MPIX_Comm_agree is the
 * bitwise AND of `flag` over an intracommunicator, MPIX_Comm_shrink a new
 * communicator of all the processes, MPIX_Comm_failure_ack does nothing,
 * MPIX_Comm_failure_get_acked gives MPI_GROUP_EMPTY, and MPIX_Comm_revoke
 * fails with MPI_ERR_UNSUPPORTED_OPERATION. MPIX_GPU_query_support says
 * whether MPI calls take GPU memory of that kind as buffers: 0 for all three
 * kinds (GPU memory takes part only in stream-triggered RMA epochs and in
 * operations enqueued on a GPU stream);
 * MPIX_Query_cuda_support and its companions return the same answer.
 * MPIX_Delete_error_class/code/string undo MPI_Add_error_class/code/string
 * (MPI_ERR_ARG for a class or code the program did not add). */
#define MPIX_GPU_SUPPORT_CUDA 0
#define MPIX_GPU_SUPPORT_ZE 1
#define MPIX_GPU_SUPPORT_HIP 2
int MPIX_Comm_revoke(MPI_Comm comm);
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int MPIX_Comm_failure_ack(MPI_Comm comm);
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
int MPIX_Comm_agree(MPI_Comm comm, int *flag);
int MPIX_GPU_query_support(int gpu_type, int *is_supported);
int MPIX_Query_cuda_support(void);
int MPIX_Query_ze_support(void);
int MPIX_Query_hip_support(void);
int MPIX_Delete_error_class(int errorclass);
int MPIX_Delete_error_code(int errorcode);
int MPIX_Delete_error_string(int errorcode);
int PMPIX_Comm_revoke(MPI_Comm comm);
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int PMPIX_Comm_failure_ack(MPI_Comm comm);
int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
int PMPIX_Comm_agree(MPI_Comm comm, int *flag);
int PMPIX_GPU_query_support(int gpu_type, int *is_supported);
int PMPIX_Query_cuda_support(void);
int PMPIX_Query_ze_support(void);
int PMPIX_Query_hip_support(void);
int PMPIX_Delete_error_class(int errorclass);
int PMPIX_Delete_error_code(int errorcode);
int PMPIX_Delete_error_string(int errorcode);

/* MPICH's stream API (MPICH 4.1 and later), with MPICH's ABI values.
 *
 * An MPIX_Stream is a local execution context. MPIX_Stream_create's info
 * says which: key "type" = "cudaStream_t" or "hipStream_t" (a GPU stream
 * of a build with that backend) or "MPIX_Host_stream" (an STMPI host
 * stream), with key "value" = the stream handle's bytes as set by
 * MPIX_Info_set_hex; no "type" (or MPI_INFO_NULL) is a CPU context without
 * a stream to enqueue on, as in MPICH. Decoding accepts upper- and
 * lower-case hex digits and the "[N]" form of N zero bytes (MPICH 4.3).
 * MPIX_Stream_free fails (MPIX_ERR_STREAM) while a communicator the
 * program has not freed uses the stream; a freed one whose enqueued
 * operations are still running lets go of it when they complete.
 * MPIX_Stream_comm_create(comm, stream, &newcomm) duplicates comm
 * with the stream attached (MPIX_STREAM_NULL allowed); its duplicates keep
 * it. MPIX_Stream_comm_create_multiplex attaches `count` local streams
 * (count may differ between processes; 0 means one MPIX_STREAM_NULL);
 * MPIX_Comm_get_stream gives the idx-th local stream, or MPIX_STREAM_NULL.
 * MPIX_Stream_send/isend/recv/irecv are point-to-point calls on a
 * multiplex communicator naming the sender's and the receiver's stream
 * indices; an index outside the streams of that process is
 * MPIX_ERR_STREAM. Messages are matched in MPI order between two processes
 * whatever the indices (MPICH keeps a channel per index pair; a program
 * that relies on index pairs to separate messages with equal tags must
 * use different tags here).
 *
 * Enqueued operations (MPIX_*_enqueue) go on the stream of a communicator
 * made by MPIX_Stream_comm_create from a "MPIX_Host_stream", "cudaStream_t"
 * or "hipStream_t" stream (any other communicator: MPIX_ERR_STREAM). The
 * call returns at once; matching and the handshake start at the call, in
 * MPI's order; the data moves only when both streams have reached the
 * operations: a send buffer is not read before the sending stream reaches
 * the send, a receive buffer not written before the receiving stream
 * reaches the receive. MPIX_Send_enqueue and MPIX_Recv_enqueue complete in
 * stream order (later work on the stream sees the data); MPIX_Isend_enqueue
 * and MPIX_Irecv_enqueue return a request that MPIX_Wait_enqueue or
 * MPIX_Waitall_enqueue complete in stream order (they set the handle to
 * MPI_REQUEST_NULL at the call; MPI_Wait and MPI_Test also accept such a
 * request). A status is written when the stream runs the receive or the
 * wait. Wildcards (MPI_ANY_SOURCE, MPI_ANY_TAG) are allowed. The enqueued
 * collectives start when the stream reaches them (every process must
 * enqueue them in the same order) and complete in stream order. Buffers
 * are host memory or, for operations enqueued on a GPU stream, also device
 * memory: the stream copies such a buffer to a pinned staging buffer before
 * the operation reads it and back after the operation wrote it, in stream
 * order (MPIX_GPU_query_support still says 0: other MPI calls take host
 * memory only). Someone must drive MPI
 * progress while a stream waits: a host stream's waits do it themselves;
 * for GPU streams, MPI calls, MPIX_Stream_progress or
 * MPIX_Start_progress_thread. Creating the first MPIX_Stream makes MPI
 * serialize its calls with a lock at every thread level. */
typedef int MPIX_Stream;
#define MPIX_STREAM_NULL ((MPIX_Stream)0x3c000000)
#define MPIX_ERR_STREAM 106 /* MPICH's class: an invalid stream or stream use */
int MPIX_Info_set_hex(MPI_Info info, const char *key, const void *value, int value_size);
int MPIX_Stream_create(MPI_Info info, MPIX_Stream *stream);
int MPIX_Stream_free(MPIX_Stream *stream);
int MPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm);
int MPIX_Stream_comm_create_multiplex(MPI_Comm comm, int count, MPIX_Stream array_of_streams[],
                                      MPI_Comm *newcomm);
int MPIX_Comm_get_stream(MPI_Comm comm, int idx, MPIX_Stream *stream);
int MPIX_Stream_progress(MPIX_Stream stream); /* MPIX_STREAM_NULL: all streams */
int MPIX_Start_progress_thread(MPIX_Stream stream);
int MPIX_Stop_progress_thread(MPIX_Stream stream);
int MPIX_Stream_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, int source_stream_index, int dest_stream_index);
int MPIX_Stream_isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index,
                      MPI_Request *request);
int MPIX_Stream_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, int source_stream_index, int dest_stream_index,
                     MPI_Status *status);
int MPIX_Stream_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index,
                      MPI_Request *request);
int MPIX_Send_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm);
int MPIX_Recv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, MPI_Status *status);
int MPIX_Isend_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request);
int MPIX_Irecv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Request *request);
int MPIX_Send_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm);
int MPIX_Recv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Status *status);
int MPIX_Isend_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm, MPI_Request *request);
int MPIX_Irecv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Request *request);
int MPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status);
int MPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                         MPI_Status array_of_statuses[]);
/* Collectives enqueued on the communicator's stream (MPIX_Allreduce_enqueue
 * is MPICH's; the others follow its naming). MPI_IN_PLACE as for the
 * blocking forms. */
int MPIX_Allreduce_enqueue(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm);
int MPIX_Bcast_enqueue(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPIX_Reduce_enqueue(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm);
int MPIX_Allgather_enqueue(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPIX_Alltoall_enqueue(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPIX_Barrier_enqueue(MPI_Comm comm);
int MPIX_Allreduce_enqueue_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPIX_Bcast_enqueue_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                         MPI_Comm comm);
int MPIX_Reduce_enqueue_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int MPIX_Allgather_enqueue_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);
int MPIX_Alltoall_enqueue_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm);
int PMPIX_Info_set_hex(MPI_Info info, const char *key, const void *value, int value_size);
int PMPIX_Stream_create(MPI_Info info, MPIX_Stream *stream);
int PMPIX_Stream_free(MPIX_Stream *stream);
int PMPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm);
int PMPIX_Stream_comm_create_multiplex(MPI_Comm comm, int count, MPIX_Stream array_of_streams[],
                                       MPI_Comm *newcomm);
int PMPIX_Comm_get_stream(MPI_Comm comm, int idx, MPIX_Stream *stream);
int PMPIX_Stream_progress(MPIX_Stream stream);
int PMPIX_Start_progress_thread(MPIX_Stream stream);
int PMPIX_Stop_progress_thread(MPIX_Stream stream);
int PMPIX_Stream_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index);
int PMPIX_Stream_isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, int source_stream_index, int dest_stream_index,
                       MPI_Request *request);
int PMPIX_Stream_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                      MPI_Comm comm, int source_stream_index, int dest_stream_index,
                      MPI_Status *status);
int PMPIX_Stream_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, int source_stream_index, int dest_stream_index,
                       MPI_Request *request);
int PMPIX_Send_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm);
int PMPIX_Recv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status *status);
int PMPIX_Isend_enqueue(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request *request);
int PMPIX_Irecv_enqueue(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request *request);
int PMPIX_Send_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm);
int PMPIX_Recv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                         MPI_Comm comm, MPI_Status *status);
int PMPIX_Isend_enqueue_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm, MPI_Request *request);
int PMPIX_Irecv_enqueue_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Request *request);
int PMPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status);
int PMPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                          MPI_Status array_of_statuses[]);
int PMPIX_Allreduce_enqueue(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm);
int PMPIX_Bcast_enqueue(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PMPIX_Reduce_enqueue(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm);
int PMPIX_Allgather_enqueue(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPIX_Alltoall_enqueue(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPIX_Barrier_enqueue(MPI_Comm comm);
int PMPIX_Allreduce_enqueue_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPIX_Bcast_enqueue_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                          MPI_Comm comm);
int PMPIX_Reduce_enqueue_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int PMPIX_Allgather_enqueue_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm);
int PMPIX_Alltoall_enqueue_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);

#endif /* STMPI_MPIX_H */
