/* Default accumulate ordering (rar, raw, war, waw) inside one epoch, with no
 * flush in between: a sequence of MPI_Accumulate(MPI_REPLACE) and
 * MPI_Get_accumulate(MPI_NO_OP) on one location must behave as if executed
 * in program order. And accumulates with derived datatypes on every side:
 * a strided (vector) target, an indexed origin, a strided result type, and
 * MINLOC on a contiguous type of MPI_2INT. On MPI_Win_allocate and
 * MPI_Win_create windows. */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

#define N 12

static void run(MPI_Win win, double *mem, int rank, int size) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  const int target = (rank + 1) % size;
  /* Ordering: each rank works on its own slot of its right neighbour. */
  CHECK_SUCCESS(MPI_Win_lock_all(0, win));
  for (int k = 1; k <= 50; ++k) {
    long v = k * 10 + rank, before = -1, after = -1;
    CHECK_SUCCESS(MPI_Get_accumulate(NULL, 0, MPI_LONG, &before, 1, MPI_LONG, target, 100 + rank, 1,
                                     MPI_LONG, MPI_NO_OP, win));
    CHECK_SUCCESS(
        MPI_Accumulate(&v, 1, MPI_LONG, target, 100 + rank, 1, MPI_LONG, MPI_REPLACE, win));
    CHECK_SUCCESS(MPI_Get_accumulate(NULL, 0, MPI_LONG, &after, 1, MPI_LONG, target, 100 + rank, 1,
                                     MPI_LONG, MPI_NO_OP, win));
    CHECK_SUCCESS(MPI_Win_flush(target, win));
    CHECK(before == (k == 1 ? 0 : (k - 1) * 10 + rank), "war: read %ld before write %d", before, k);
    CHECK(after == v, "raw: read %ld after writing %ld", after, v);
  }
  /* the same with doubles (accumulate lock instead of CPU atomics) */
  for (int k = 1; k <= 50; ++k) {
    double v = k + 0.5 * rank, after = -1;
    CHECK_SUCCESS(
        MPI_Accumulate(&v, 1, MPI_DOUBLE, target, 200 + rank, 1, MPI_DOUBLE, MPI_REPLACE, win));
    CHECK_SUCCESS(
        MPI_Accumulate(&v, 1, MPI_DOUBLE, target, 200 + rank, 1, MPI_DOUBLE, MPI_SUM, win));
    CHECK_SUCCESS(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, &after, 1, MPI_DOUBLE, target, 200 + rank,
                                     1, MPI_DOUBLE, MPI_NO_OP, win));
    CHECK_SUCCESS(MPI_Win_flush(target, win));
    CHECK(after == 2 * v, "waw/raw with doubles: read %g, expected %g", after, 2 * v);
  }
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  const int left = (rank + size - 1) % size;
  CHECK(((long *)mem)[100 + left] == 50 * 10 + left, "final value of the ordered writes");

  /* Derived datatypes: target every 3rd double, origin indexed. */
  for (int i = 0; i < 3 * N; ++i) mem[i] = 1000 + i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Datatype every3, picks, every2;
  MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &every3);
  int lens[3] = {2, 6, 4}, disps[3] = {0, 4, 12};
  MPI_Type_indexed(3, lens, disps, MPI_DOUBLE, &picks);
  MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every2);
  MPI_Type_commit(&every3);
  MPI_Type_commit(&picks);
  MPI_Type_commit(&every2);
  double src[16], result[2 * N];
  for (int i = 0; i < 16; ++i) src[i] = i;
  for (int i = 0; i < 2 * N; ++i) result[i] = -1;
  /* picks selects src[0,1,4..9,12..15]: 12 values */
  const double picked[N] = {0, 1, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15};
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
  CHECK_SUCCESS(
      MPI_Get_accumulate(src, 1, picks, result, 1, every2, target, 0, 1, every3, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_unlock(target, win));
  for (int i = 0; i < N; ++i) {
    CHECK(result[2 * i] == 1000 + 3 * i, "fetched old value %d: %g", i, result[2 * i]);
    CHECK(result[2 * i + 1] == -1, "result gap %d written", i);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 3 * N; ++i)
    CHECK(mem[i] == 1000 + i + (i % 3 == 0 ? picked[i / 3] : 0), "accumulated element %d: %g", i,
          mem[i]);

  /* MINLOC on a contiguous type of 2INT pairs. */
  MPI_Datatype pairs;
  MPI_Type_contiguous(4, MPI_2INT, &pairs);
  MPI_Type_commit(&pairs);
  int *p = (int *)mem;
  for (int i = 0; i < 8; ++i) p[2 * i] = 50, p[2 * i + 1] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  int mine[16];
  for (int i = 0; i < 8; ++i) mine[2 * i] = (rank * 7 + i) % 5, mine[2 * i + 1] = rank;
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_SUCCESS(MPI_Accumulate(mine, 2, pairs, 0, 0, 2, pairs, MPI_MINLOC, win));
  CHECK_SUCCESS(MPI_Win_unlock(0, win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (int i = 0; i < 8; ++i) {
      int best = 50, at = -1;
      for (int r = 0; r < size; ++r)
        if ((r * 7 + i) % 5 < best) best = (r * 7 + i) % 5, at = r;
      CHECK(p[2 * i] == best && p[2 * i + 1] == at, "MINLOC pair %d: (%d,%d) expected (%d,%d)", i,
            p[2 * i], p[2 * i + 1], best, at);
    }
  MPI_Type_free(&pairs);
  MPI_Type_free(&every3);
  MPI_Type_free(&picks);
  MPI_Type_free(&every2);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Aint bytes = 256 * sizeof(double);
  double *mem;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < 256; ++i) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  mem = calloc(256, sizeof(double));
  CHECK_SUCCESS(MPI_Win_create(mem, bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(mem);
  return mtest_finish();
}
