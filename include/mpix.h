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
int MPIX_Host_stream_create(MPIX_Host_stream *stream);
int MPIX_Host_stream_launch(MPIX_Host_stream stream, void (*fn)(void *arg), void *arg); /* enqueue user work */
int MPIX_Host_stream_synchronize(MPIX_Host_stream stream);
int MPIX_Host_stream_free(MPIX_Host_stream *stream);
int PMPIX_Host_stream_create(MPIX_Host_stream *stream);
int PMPIX_Host_stream_launch(MPIX_Host_stream stream, void (*fn)(void *arg), void *arg);
int PMPIX_Host_stream_synchronize(MPIX_Host_stream stream);
int PMPIX_Host_stream_free(MPIX_Host_stream *stream);

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

#endif /* STMPI_MPIX_H */
