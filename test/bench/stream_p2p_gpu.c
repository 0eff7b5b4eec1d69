/* stream_p2p_gpu: a ring neighbour exchange of device buffers driven by a
 * CUDA stream, three ways in the same run (each rank sends BYTES to its
 * left and right neighbours and receives from both, every step; a fill
 * "kernel", cuMemsetD32Async, writes the step into the send buffers first):
 *
 *   sync     the way a GPU code uses MPI without stream support: fill,
 *            copy the send buffers to pinned host memory, synchronize the
 *            stream, MPI_Irecv x2 / MPI_Isend x2 / MPI_Waitall on the CPU,
 *            copy what arrived back to the device
 *   hostfn   MPICH's way of enqueuing (a host function that runs blocking
 *            MPI per operation): fill, copy to pinned memory, a
 *            cuLaunchHostFunc whose function does the MPI_Irecv/Isend/
 *            Waitall, copy back; the CPU never waits until the end
 *   enqueue  STMPI's enqueue API on the device buffers: fill,
 *            MPIX_Irecv_enqueue x2, MPIX_Isend_enqueue x2,
 *            MPIX_Waitall_enqueue; the CPU never waits until the end
 *
 * The variants alternate every repeat; each prints the median over the
 * repeats of the time per step (rank 0, from a barrier to the end of the
 * last step, the final synchronize included). After each run every rank
 * checks that its receive buffers hold the last step's values.
 *
 *   mpicc -O2 -I test/mpi/util test/bench/stream_p2p_gpu.c -o stream_p2p_gpu
 *   mpiexec -n 2 stream_p2p_gpu [-n STEPS] [-r REPEATS] [-b BYTES]
 * Output: "stream_p2p_gpu np=N bytes=B steps=S sync_us=X hostfn_us=Y
 *          enqueue_us=Z hostfn_ratio=Y/X enqueue_ratio=Z/X enqueue_vs_hostfn=Z/Y bad=0"
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"

/* GCC 12 misreads MPI_STATUSES_IGNORE (a null pointer) as a zero-length array. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MAX_REPEATS 51

static struct cuda_driver cu;

typedef struct {
  CUstream_t stream;
  CUdptr dsend[2], drecv[2];
  char *hsend[2], *hrecv[2]; /* pinned */
  size_t bytes, words;
  int left, right;
} Ring;

static void *dptr(CUdptr p) { return (void *)(uintptr_t)p; }
static CUdptr hptr(void *p) { return (CUdptr)(uintptr_t)p; }

static void fill(Ring *x, int step) {
  for (int d = 0; d < 2; d++)
    CU_CHECK(cu.memset_d32_async(x->dsend[d], (unsigned)step + 1, x->words, x->stream));
}

static void exchange_host(Ring *x) {
  MPI_Request r[4];
  MPI_Irecv(x->hrecv[0], (int)x->bytes, MPI_BYTE, x->left, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(x->hrecv[1], (int)x->bytes, MPI_BYTE, x->right, 1, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(x->hsend[0], (int)x->bytes, MPI_BYTE, x->right, 0, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(x->hsend[1], (int)x->bytes, MPI_BYTE, x->left, 1, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
}

static void exchange_fn(void *arg) { exchange_host(arg); }

static void to_host(Ring *x) {
  for (int d = 0; d < 2; d++)
    CU_CHECK(cu.memcpy_async(hptr(x->hsend[d]), x->dsend[d], x->bytes, x->stream));
}

static void to_device(Ring *x) {
  for (int d = 0; d < 2; d++)
    CU_CHECK(cu.memcpy_async(x->drecv[d], hptr(x->hrecv[d]), x->bytes, x->stream));
}

static double run(const char *how, Ring *x, int steps, MPI_Comm comm) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
    fill(x, s);
    if (how[0] == 's') { /* sync */
      to_host(x);
      CU_CHECK(cu.stream_synchronize(x->stream));
      exchange_host(x);
      to_device(x);
    } else if (how[0] == 'h') { /* hostfn */
      to_host(x);
      CU_CHECK(cu.launch_host_func(x->stream, exchange_fn, x));
      to_device(x);
    } else { /* enqueue */
      MPI_Request r[4];
      MPIX_Irecv_enqueue(dptr(x->drecv[0]), (int)x->bytes, MPI_BYTE, x->left, 0, comm, &r[0]);
      MPIX_Irecv_enqueue(dptr(x->drecv[1]), (int)x->bytes, MPI_BYTE, x->right, 1, comm, &r[1]);
      MPIX_Isend_enqueue(dptr(x->dsend[0]), (int)x->bytes, MPI_BYTE, x->right, 0, comm, &r[2]);
      MPIX_Isend_enqueue(dptr(x->dsend[1]), (int)x->bytes, MPI_BYTE, x->left, 1, comm, &r[3]);
      MPIX_Waitall_enqueue(4, r, MPI_STATUSES_IGNORE);
    }
  }
  CU_CHECK(cu.stream_synchronize(x->stream));
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

/* Both receive buffers must hold the last step's value. */
static int check(Ring *x, int steps) {
  int bad = 0;
  unsigned *got = malloc(x->bytes);
  for (int d = 0; d < 2; d++) {
    CU_CHECK(cu.memcpy_async(hptr(got), x->drecv[d], x->bytes, x->stream));
    CU_CHECK(cu.stream_synchronize(x->stream));
    for (size_t i = 0; i < x->words; i++)
      if (got[i] != (unsigned)steps) {
        bad++;
        break;
      }
    CU_CHECK(cu.memset_d32_async(x->drecv[d], 0, x->words, x->stream));
  }
  CU_CHECK(cu.stream_synchronize(x->stream));
  free(got);
  return bad;
}

static int cmp_double(const void *a, const void *b) {
  double d = *(const double *)a - *(const double *)b;
  return (d > 0) - (d < 0);
}

int main(int argc, char **argv) {
  int steps = 2000, repeats = 5, provided, rank, size;
  long bytes = 4096;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "-n") == 0) steps = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "-r") == 0) repeats = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "-b") == 0) bytes = atol(argv[i + 1]);
  }
  if (repeats > MAX_REPEATS) repeats = MAX_REPEATS;
  bytes = (bytes + 3) / 4 * 4;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char why[256] = "";
  int have = cudrv_load(&cu, why, sizeof why), all;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all || provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      printf("stream_p2p_gpu skipped: %s\n",
             !all ? (have ? "a rank has no CUDA device" : why) : "no MPI_THREAD_MULTIPLE");
    MPI_Finalize();
    return 0;
  }
  Ring x = {.bytes = (size_t)bytes, .words = (size_t)bytes / 4};
  x.left = (rank + size - 1) % size;
  x.right = (rank + 1) % size;
  CU_CHECK(cu.stream_create(&x.stream, 0));
  for (int d = 0; d < 2; d++) {
    CU_CHECK(cu.mem_alloc(&x.dsend[d], x.bytes));
    CU_CHECK(cu.mem_alloc(&x.drecv[d], x.bytes));
    CU_CHECK(cu.mem_host_alloc((void **)&x.hsend[d], x.bytes, 0));
    CU_CHECK(cu.mem_host_alloc((void **)&x.hrecv[d], x.bytes, 0));
  }
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "cudaStream_t");
  MPIX_Info_set_hex(info, "value", &x.stream, sizeof x.stream);
  MPIX_Stream mstream;
  MPIX_Stream_create(info, &mstream);
  MPI_Info_free(&info);
  MPI_Comm comm;
  MPIX_Stream_comm_create(MPI_COMM_WORLD, mstream, &comm);

  const char *names[3] = {"sync", "hostfn", "enqueue"};
  double t[3][MAX_REPEATS];
  int bad = 0;
  for (int v = 0; v < 3; v++) /* warm-up */
    run(names[v], &x, steps / 10 + 1, comm), bad += check(&x, steps / 10 + 1);
  for (int r = 0; r < repeats; r++)
    for (int v = 0; v < 3; v++) {
      t[v][r] = run(names[v], &x, steps, comm) / steps * 1e6;
      bad += check(&x, steps);
    }
  int all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double med[3];
    for (int v = 0; v < 3; v++) {
      qsort(t[v], (size_t)repeats, sizeof(double), cmp_double);
      med[v] = t[v][repeats / 2];
    }
    printf(
        "stream_p2p_gpu np=%d bytes=%ld steps=%d sync_us=%.2f hostfn_us=%.2f enqueue_us=%.2f "
        "hostfn_ratio=%.2f enqueue_ratio=%.2f enqueue_vs_hostfn=%.2f bad=%d\n",
        size, bytes, steps, med[0], med[1], med[2], med[1] / med[0], med[2] / med[0],
        med[2] / med[1], all_bad);
  }
  MPI_Comm_free(&comm);
  MPIX_Stream_free(&mstream);
  for (int d = 0; d < 2; d++) {
    cu.mem_free(x.dsend[d]);
    cu.mem_free(x.drecv[d]);
    cu.mem_free_host(x.hsend[d]);
    cu.mem_free_host(x.hrecv[d]);
  }
  cu.stream_destroy(x.stream);
  MPI_Finalize();
  return all_bad != 0;
}
