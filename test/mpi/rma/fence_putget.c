/* MPI_Win_allocate and MPI_Win_create with fence epochs: every rank puts
 * its pattern into its right neighbour's window, gets its left neighbour's
 * window, accumulates into rank 0, with contiguous and strided (vector)
 * datatypes on either side; values are checked after each fence. */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

#define N 64

static int value(int rank, int i) { return rank * 1000 + i; }

static void run(MPI_Win win, int *buf, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int src[N], got[N];
  for (int i = 0; i < N; ++i) src[i] = value(rank, i);

  /* Put contiguous into the right neighbour. */
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) CHECK_INT(buf[i], value(left, i));

  /* Get: read the left neighbour's window (which holds what its left put). */
  CHECK_SUCCESS(MPI_Get(got, N, MPI_INT, left, 0, N, MPI_INT, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) CHECK_INT(got[i], value((left + size - 1) % size, i));

  /* Strided target: every other int of the right window gets -(value). */
  MPI_Datatype every_other;
  MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int neg[N / 2];
  for (int i = 0; i < N / 2; ++i) neg[i] = -value(rank, i);
  CHECK_SUCCESS(MPI_Put(neg, N / 2, MPI_INT, right, 0, 1, every_other, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) CHECK_INT(buf[i], i % 2 == 0 ? -value(left, i / 2) : value(left, i));

  /* Strided origin: get the right window's even elements into odd slots. */
  int scattered[N];
  for (int i = 0; i < N; ++i) scattered[i] = -1;
  CHECK_SUCCESS(MPI_Get(scattered + 1, 1, every_other, right, 0, 1, every_other, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  for (int i = 0; i < N; ++i) CHECK_INT(scattered[i], i % 2 == 1 ? -value(rank, (i - 1) / 2) : -1);
  MPI_Type_free(&every_other);

  /* Accumulate: everyone adds rank+1 to each element of rank 0's window. */
  for (int i = 0; i < N; ++i) buf[i] = 0;
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  int ones[N];
  for (int i = 0; i < N; ++i) ones[i] = rank + 1;
  CHECK_SUCCESS(MPI_Accumulate(ones, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (rank == 0)
    for (int i = 0; i < N; ++i) CHECK_INT(buf[i], size * (size + 1) / 2);

  /* Displacement units: disp 3 of a window with disp_unit sizeof(int). */
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(MPI_Put(&src[0], 1, MPI_INT, right, 3, 1, MPI_INT, win));
  CHECK_SUCCESS(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_INT(buf[3], value(left, 0));
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int *buf = NULL;
  MPI_Win win;
  CHECK_SUCCESS(
      MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  run(win, buf, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free sets the handle to MPI_WIN_NULL");

  int *user = calloc(N, sizeof(int));
  CHECK_SUCCESS(
      MPI_Win_create(user, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  run(win, user, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(user);
  return mtest_finish();
}
