/* Truly passive target: rank 0 computes for COMPUTE_MS without any MPI call
 * while every other rank locks it, puts, accumulates, gets and unlocks, many
 * times, with exclusive and shared locks and lock_all. They must all be
 * done before rank 0's loop ends (clock_gettime(CLOCK_MONOTONIC) is one
 * clock for all processes of the node), and the data must be right. Run on
 * an MPI_Win_allocate window (shared memory) and on an MPI_Win_create window
 * (single copy). Prints how long the origins took relative to the compute
 * time. Usage: lock_passive [ITERS [COMPUTE_MS]] (defaults 100, 1500): across
 * nodes, where each operation is a network round trip, fewer iterations and
 * a longer compute loop still tell a truly passive target from one whose
 * origins wait for its next MPI call. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#include "mtest.h"

static int COMPUTE_MS = 1500;
static int ITERS = 100;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static volatile double sink;

static void run(MPI_Win win, long *mem, int rank, int size, const char *kind) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  if (rank == 0)
    for (int i = 0; i < size + 1; ++i) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = now(), end = 0;
  if (rank == 0) {
    /* No MPI call here: the others must progress on their own. */
    double x = 1.0;
    while (now() - start < COMPUTE_MS * 1e-3)
      for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
    sink = x;
    end = now();
  } else {
    long one = 1, mine = rank, got = -1;
    for (int i = 0; i < ITERS; ++i) {
      CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_SUCCESS(MPI_Put(&mine, 1, MPI_LONG, 0, rank, 1, MPI_LONG, win));
      CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
      CHECK_SUCCESS(MPI_Win_unlock(0, win));
      CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
      CHECK_SUCCESS(MPI_Get(&got, 1, MPI_LONG, 0, rank, 1, MPI_LONG, win));
      CHECK_SUCCESS(MPI_Win_unlock(0, win));
      CHECK_INT(got, rank);
    }
    CHECK_SUCCESS(MPI_Win_lock_all(0, win));
    CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
    CHECK_SUCCESS(MPI_Win_unlock_all(win));
    end = now();
  }
  double ends[64];
  MPI_Gather(&end, 1, MPI_DOUBLE, ends, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double slowest = 0;
    for (int r = 1; r < size; ++r) {
      CHECK(ends[r] < ends[0],
            "%s: rank %d finished %.3f s after the target's compute loop ended; "
            "its locks needed the target",
            kind, r, ends[r] - ends[0]);
      if (ends[r] - start > slowest) slowest = ends[r] - start;
    }
    CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_INT(mem[0], (long)(size - 1) * (ITERS + 1));
    CHECK_SUCCESS(MPI_Win_unlock(0, win));
    printf("%s: origins done after %.1f ms of the target's %d ms compute loop\n", kind,
           slowest * 1e3, COMPUTE_MS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  if (argc > 1) ITERS = atoi(argv[1]);
  if (argc > 2) COMPUTE_MS = atoi(argv[2]);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *mem;
  MPI_Win win;
  const MPI_Aint bytes = (size + 1) * sizeof(long);
  CHECK_SUCCESS(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  run(win, mem, rank, size, "MPI_Win_allocate");
  CHECK_SUCCESS(MPI_Win_free(&win));
  mem = calloc(size + 1, sizeof(long));
  CHECK_SUCCESS(MPI_Win_create(mem, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, mem, rank, size, "MPI_Win_create");
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(mem);
  return mtest_finish();
}
