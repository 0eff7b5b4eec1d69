/* stream_p2p: a ring neighbour exchange (each rank sends BYTES to its left
 * and right neighbours and receives from both, every step) enqueued on a
 * host stream with MPICH's stream API, against the same exchange with
 * MPI_Isend/MPI_Irecv/MPI_Waitall on the CPU, in the same run.
 *
 *   mpi      per step: a CPU "kernel" writes the step into the send buffers,
 *            MPI_Irecv x2, MPI_Isend x2, MPI_Waitall, check the received
 *            buffers' first words
 *   enqueue  per step: MPIX_Host_stream_launch(kernel), MPIX_Irecv_enqueue
 *            x2, MPIX_Isend_enqueue x2, MPIX_Waitall_enqueue,
 *            MPIX_Host_stream_launch(check); one synchronize after STEPS
 *   persistent  the same four transfers made once with MPIS_Recv_init /
 *            MPIS_Send_init and MPIS_Matchall (MPI Advance's stream-triggering
 *            API); per step: kernel, MPIS_Enqueue_startall,
 *            MPIS_Enqueue_waitall, check; one MPIS_Queue_wait after STEPS
 *
 * The variants alternate every repeat; each prints the median over the
 * repeats of the time per step (rank 0's wall clock from a barrier to the
 * end of the last step). Built with an MPI without STMPI's host streams
 * (Debian's MPICH), only "mpi" runs.
 *
 *   mpicc -O2 test/bench/stream_p2p.c -o stream_p2p
 *   mpiexec -n 4 stream_p2p [-n STEPS] [-r REPEATS] [-b BYTES]
 * Output: "stream_p2p np=N bytes=B steps=S mpi_us=X [enqueue_us=Y ratio=Y/X
 *          persistent_us=Z pratio=Z/X] bad=0"
 */
#include <mpi.h>
#ifdef MPIX_MODE_STREAM
#include <stream-triggering.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GCC 12 misreads MPI_STATUSES_IGNORE (a null pointer) as a zero-length array. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

typedef struct {
  char *send[2], *recv[2];
  int step, bad;
  size_t bytes;
} Exchange;

static void kernel(void *arg) {
  Exchange *x = arg;
  for (int d = 0; d < 2; d++) memcpy(x->send[d], &x->step, sizeof(int));
}

static void check(void *arg) {
  Exchange *x = arg;
  for (int d = 0; d < 2; d++) {
    int got;
    memcpy(&got, x->recv[d], sizeof(int));
    if (got != x->step) x->bad++;
  }
  x->step++;
}

static double run_mpi(Exchange *x, int steps, int left, int right) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    MPI_Request r[4];
    kernel(x);
    MPI_Irecv(x->recv[0], (int)x->bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(x->recv[1], (int)x->bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(x->send[0], (int)x->bytes, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(x->send[1], (int)x->bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    check(x);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

#ifdef MPIX_MODE_STREAM /* STMPI: host streams and MPICH's stream API */
static double run_enqueue(Exchange *x, int steps, int left, int right, MPIX_Host_stream host,
                          MPI_Comm comm) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    MPI_Request r[4];
    MPIX_Host_stream_launch(host, kernel, x);
    MPIX_Irecv_enqueue(x->recv[0], (int)x->bytes, MPI_BYTE, left, 0, comm, &r[0]);
    MPIX_Irecv_enqueue(x->recv[1], (int)x->bytes, MPI_BYTE, right, 1, comm, &r[1]);
    MPIX_Isend_enqueue(x->send[0], (int)x->bytes, MPI_BYTE, right, 0, comm, &r[2]);
    MPIX_Isend_enqueue(x->send[1], (int)x->bytes, MPI_BYTE, left, 1, comm, &r[3]);
    MPIX_Waitall_enqueue(4, r, MPI_STATUSES_IGNORE);
    MPIX_Host_stream_launch(host, check, x);
  }
  MPIX_Host_stream_synchronize(host);
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

static double run_persistent(Exchange *x, int steps, int left, int right, MPIX_Host_stream host) {
  MPIS_Queue queue;
  MPIS_Request r[4];
  MPIS_Queue_init(&queue, THREAD, &host);
  MPIS_Recv_init(x->recv[0], (int)x->bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                 &r[0]);
  MPIS_Recv_init(x->recv[1], (int)x->bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                 &r[1]);
  MPIS_Send_init(x->send[0], (int)x->bytes, MPI_BYTE, right, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                 &r[2]);
  MPIS_Send_init(x->send[1], (int)x->bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                 &r[3]);
  MPIS_Matchall(4, r, MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    MPIX_Host_stream_launch(host, kernel, x);
    MPIS_Enqueue_startall(queue, 4, r);
    MPIS_Enqueue_waitall(queue);
    MPIX_Host_stream_launch(host, check, x);
  }
  MPIS_Queue_wait(queue);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;
  MPIS_Request_freeall(4, r);
  MPIS_Queue_free(&queue);
  return t;
}
#endif

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int steps = 2000, repeats = 5;
  size_t bytes = 8;
  MPI_Init(&argc, &argv);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n")) steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-r")) repeats = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-b")) bytes = (size_t)atol(argv[i + 1]);
  }
  if (bytes < sizeof(int)) bytes = sizeof(int);
  if (repeats > 64) repeats = 64;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  Exchange x = {{malloc(bytes), malloc(bytes)}, {malloc(bytes), malloc(bytes)}, 0, 0, bytes};
  double t_mpi[64], t_enq[64], t_per[64];
  int have_enqueue = 0;
#ifdef MPIX_MODE_STREAM
  MPIX_Host_stream host;
  MPIX_Host_stream_create(&host);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "MPIX_Host_stream");
  MPIX_Info_set_hex(info, "value", &host, sizeof host);
  MPIX_Stream stream;
  MPI_Comm comm;
  MPIX_Stream_create(info, &stream);
  MPI_Info_free(&info);
  MPIX_Stream_comm_create(MPI_COMM_WORLD, stream, &comm);
  have_enqueue = 1;
#endif
  for (int r = 0; r < repeats; r++) {
    /* alternate the order so neither variant always runs first */
    for (int v = 0; v < 3; v++) {
      int which = (v + r) % 3; /* 0 mpi, 1 enqueue, 2 persistent */
      if (which > 0 && !have_enqueue) continue;
#ifdef MPIX_MODE_STREAM
      if (which == 1) t_enq[r] = run_enqueue(&x, steps, left, right, host, comm) / steps;
      if (which == 2) t_per[r] = run_persistent(&x, steps, left, right, host) / steps;
#endif
      if (which == 0) t_mpi[r] = run_mpi(&x, steps, left, right) / steps;
    }
  }
  int bad = 0;
  MPI_Reduce(&x.bad, &bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(t_mpi, (size_t)repeats, sizeof(double), cmp);
    printf("stream_p2p np=%d bytes=%zu steps=%d mpi_us=%.2f", size, bytes, steps,
           t_mpi[repeats / 2] * 1e6);
    if (have_enqueue) {
      qsort(t_enq, (size_t)repeats, sizeof(double), cmp);
      qsort(t_per, (size_t)repeats, sizeof(double), cmp);
      printf(" enqueue_us=%.2f ratio=%.2f persistent_us=%.2f pratio=%.2f", t_enq[repeats / 2] * 1e6,
             t_enq[repeats / 2] / t_mpi[repeats / 2], t_per[repeats / 2] * 1e6,
             t_per[repeats / 2] / t_mpi[repeats / 2]);
    }
    printf(" bad=%d\n", bad);
    fflush(stdout);
  }
#ifdef MPIX_MODE_STREAM
  MPI_Comm_free(&comm);
  MPIX_Stream_free(&stream);
  MPIX_Host_stream_free(&host);
#endif
  for (int d = 0; d < 2; d++) free(x.send[d]), free(x.recv[d]);
  MPI_Finalize();
  return bad != 0;
}
