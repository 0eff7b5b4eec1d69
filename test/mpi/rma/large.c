/* Large and noncontiguous transfers: 4 MiB contiguous puts and gets, a
 * strided target of 200,000 runs (single copy batches its iovecs; active
 * messages cut it into many messages), accumulates of 100,000 doubles and
 * of MPI_SHORT_INT pairs (padding inside each element) with MINLOC, on
 * MPI_Win_allocate and MPI_Win_create windows, under lock and fence. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define BIG (4 << 20)
#define RUNS 200000

struct short_int {
  short value;
  int index;
};

static void run(MPI_Win win, char *mem, int rank, int size) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  char *src = malloc(BIG), *dst = malloc(BIG);
  for (int i = 0; i < BIG; ++i) src[i] = (char)(i * 7 + rank);

  /* 4 MiB contiguous put into the right neighbour, then get it back. */
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  CHECK_SUCCESS(MPI_Put(src, BIG, MPI_BYTE, right, 0, BIG, MPI_BYTE, win));
  CHECK_SUCCESS(MPI_Win_flush(right, win));
  CHECK_SUCCESS(MPI_Get(dst, BIG, MPI_BYTE, right, 0, BIG, MPI_BYTE, win));
  CHECK_SUCCESS(MPI_Win_unlock(right, win));
  CHECK(memcmp(src, dst, BIG) == 0, "4 MiB put/get round trip");
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < BIG; i += 4093)
    CHECK(mem[i] == (char)(i * 7 + left), "byte %d from the left", i);

  /* Strided target: RUNS ints at a stride of 5 ints. */
  MPI_Datatype strided;
  MPI_Type_vector(RUNS, 1, 5, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int *ints = malloc(RUNS * sizeof(int)), *back = malloc(RUNS * sizeof(int));
  for (int i = 0; i < RUNS; ++i) ints[i] = i * 3 + rank;
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(MPI_Put(ints, RUNS, MPI_INT, right, 0, 1, strided, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  for (int i = 0; i < RUNS; i += 997) CHECK_INT(((int *)mem)[5 * i], i * 3 + left);
  CHECK_SUCCESS(MPI_Get(back, RUNS, MPI_INT, left, 0, 1, strided, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  const int leftleft = (left + size - 1) % size;
  for (int i = 0; i < RUNS; ++i)
    if (back[i] != i * 3 + leftleft) {
      CHECK_INT(back[i], i * 3 + leftleft);
      break;
    }
  MPI_Type_free(&strided);

  /* Accumulate 100,000 doubles from everyone into rank 0. */
  const int nd = 100000;
  double *ones = malloc(nd * sizeof(double));
  for (int i = 0; i < nd; ++i) ones[i] = i % 10;
  if (rank == 0) memset(mem, 0, nd * sizeof(double));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(MPI_Accumulate(ones, nd, MPI_DOUBLE, 0, 0, nd, MPI_DOUBLE, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (rank == 0)
    for (int i = 0; i < nd; i += 101)
      CHECK(((double *)mem)[i] == (double)size * (i % 10), "double %d", i);

  /* MINLOC on MPI_SHORT_INT pairs (2 bytes of padding inside each). */
  const int np = 20000;
  struct short_int *pairs = malloc(np * sizeof *pairs), *fetched = malloc(np * sizeof *pairs);
  for (int i = 0; i < np; ++i) pairs[i].value = (short)((i + rank) % 7), pairs[i].index = rank;
  if (rank == 0)
    for (int i = 0; i < np; ++i)
      ((struct short_int *)mem)[i].value = 100, ((struct short_int *)mem)[i].index = -1;
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(MPI_Accumulate(pairs, np, MPI_SHORT_INT, 0, 0, np, MPI_SHORT_INT, MPI_MINLOC, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (rank == 0) {
    for (int i = 0; i < np; i += 37) {
      int best = 1000, at = -1;
      for (int r = 0; r < size; ++r)
        if ((i + r) % 7 < best) best = (i + r) % 7, at = r;
      const struct short_int *m = (const struct short_int *)mem + i;
      CHECK(m->value == best && m->index == at, "MINLOC pair %d: (%d,%d) expected (%d,%d)", i,
            m->value, m->index, best, at);
    }
  }
  /* Get_accumulate of the pairs with MPI_NO_OP fetches them back. */
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_SUCCESS(MPI_Get_accumulate(NULL, 0, MPI_SHORT_INT, fetched, np, MPI_SHORT_INT, 0, 0, np,
                                   MPI_SHORT_INT, MPI_NO_OP, win));
  CHECK_SUCCESS(MPI_Win_unlock(0, win));
  for (int i = 0; i < np; i += 37) {
    int best = 1000, at = -1;
    for (int r = 0; r < size; ++r)
      if ((i + r) % 7 < best) best = (i + r) % 7, at = r;
    CHECK(fetched[i].value == best && fetched[i].index == at,
          "fetched pair %d: (%d,%d) expected (%d,%d)", i, fetched[i].value, fetched[i].index, best,
          at);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(pairs);
  free(fetched);
  free(ones);
  free(ints);
  free(back);
  free(src);
  free(dst);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Aint bytes = 5 * RUNS * sizeof(int) > BIG ? 5 * RUNS * sizeof(int) : BIG;
  char *mem;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  mem = calloc(bytes, 1);
  CHECK_SUCCESS(MPI_Win_create(mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(mem);
  return mtest_finish();
}
