/* MPI_Win_create_dynamic with MPI_Win_attach/detach: every rank attaches two
 * buffers and publishes their addresses (MPI_Get_address + allgather); the
 * others put, get and accumulate at those addresses under locks and in
 * fence epochs, with strided datatypes too. Accesses outside attached
 * memory (after a detach, or straddling a region's end) fail with
 * MPI_ERR_RMA_RANGE; memory attached in two adjacent pieces acts as one
 * region; attach on a non-dynamic window with MPI_ERR_RMA_FLAVOR;
 * detach of unknown memory and overlapping attaches with
 * MPI_ERR_RMA_ATTACH. */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

#define N 32

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int flavor_ok = 0, *flavor = NULL;
  CHECK_SUCCESS(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flavor_ok));
  CHECK(flavor_ok && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor attribute");

  long *a = calloc(N, sizeof(long)), *b = calloc(N, sizeof(long));
  CHECK_SUCCESS(MPI_Win_attach(win, a, N * sizeof(long)));
  CHECK_SUCCESS(MPI_Win_attach(win, b, N * sizeof(long)));
  CHECK_ERR_CLASS(MPI_Win_attach(win, a + 4, 8), MPI_ERR_RMA_ATTACH); /* overlaps a */
  MPI_Aint mine[2], *addr = malloc(sizeof(MPI_Aint) * 2 * size);
  MPI_Get_address(a, &mine[0]);
  MPI_Get_address(b, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, addr, 2, MPI_AINT, MPI_COMM_WORLD);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Lock epochs: put into the right neighbour's a, accumulate into everyone's b[0]. */
  long src[N], one = 1;
  for (int i = 0; i < N; ++i) src[i] = rank * 100 + i;
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  CHECK_SUCCESS(MPI_Put(src, N, MPI_LONG, right, addr[2 * right], N, MPI_LONG, win));
  CHECK_SUCCESS(MPI_Win_unlock(right, win));
  CHECK_SUCCESS(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; ++t)
    CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, t, addr[2 * t + 1], 1, MPI_LONG, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) CHECK_INT(a[i], left * 100 + i);
  CHECK_INT(b[0], size);

  /* Fence epoch with a strided get: every other element of the left's a. */
  MPI_Datatype stride2;
  MPI_Type_vector(N / 2, 1, 2, MPI_LONG, &stride2);
  MPI_Type_commit(&stride2);
  long got[N / 2];
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(MPI_Get(got, N / 2, MPI_LONG, left, addr[2 * left], 1, stride2, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  const int leftleft = (left + size - 1) % size;
  for (int i = 0; i < N / 2; ++i) CHECK_INT(got[i], leftleft * 100 + 2 * i);

  /* Straddling the end of a: out of range. */
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_ERR_CLASS(
      MPI_Get(got, 2, MPI_LONG, right, addr[2 * right] + (N - 1) * sizeof(long), 2, MPI_LONG, win),
      MPI_ERR_RMA_RANGE);
  CHECK_SUCCESS(MPI_Win_unlock(right, win));
  MPI_Barrier(MPI_COMM_WORLD);

  /* One array attached as two halves: accesses across the seam reach both, as
   * one region (put, accumulate, strided get); after the second half is
   * detached the same access is out of range. */
  long *c = calloc(2 * N, sizeof(long));
  CHECK_SUCCESS(MPI_Win_attach(win, c + N, N * sizeof(long)));
  CHECK_SUCCESS(MPI_Win_attach(win, c, N * sizeof(long)));
  MPI_Aint cmine, *caddr = malloc(sizeof(MPI_Aint) * size);
  MPI_Get_address(c, &cmine);
  MPI_Allgather(&cmine, 1, MPI_AINT, caddr, 1, MPI_AINT, MPI_COMM_WORLD);
  const MPI_Aint seam = caddr[right] + (N - 4) * sizeof(long);
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  CHECK_SUCCESS(MPI_Put(src, 8, MPI_LONG, right, seam, 8, MPI_LONG, win));
  CHECK_SUCCESS(MPI_Accumulate(src, 8, MPI_LONG, right, seam, 8, MPI_LONG, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_unlock(right, win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 2 * N; ++i)
    CHECK_INT(c[i], i >= N - 4 && i < N + 4 ? 2 * (left * 100 + i - (N - 4)) : 0);
  MPI_Datatype seam_stride;
  MPI_Type_vector(4, 1, 2, MPI_LONG, &seam_stride);
  MPI_Type_commit(&seam_stride);
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(
      MPI_Get(got, 4, MPI_LONG, left, caddr[left] + (N - 4) * sizeof(long), 1, seam_stride, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  MPI_Type_free(&seam_stride);
  for (int i = 0; i < 4; ++i) CHECK_INT(got[i], 2 * (leftleft * 100 + 2 * i));
  CHECK_SUCCESS(MPI_Win_detach(win, c + N));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_ERR_CLASS(MPI_Get(got, 8, MPI_LONG, right, seam, 8, MPI_LONG, win), MPI_ERR_RMA_RANGE);
  CHECK_SUCCESS(MPI_Get(got, 4, MPI_LONG, right, seam, 4, MPI_LONG, win));
  CHECK_SUCCESS(MPI_Win_unlock(right, win));
  for (int i = 0; i < 4; ++i) CHECK_INT(got[i], 2 * (rank * 100 + i));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_SUCCESS(MPI_Win_detach(win, c));

  /* Detach a: the others can no longer reach it, b still works. */
  CHECK_SUCCESS(MPI_Win_detach(win, a));
  CHECK_ERR_CLASS(MPI_Win_detach(win, a), MPI_ERR_RMA_ATTACH);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  int rc = MPI_Get(got, 1, MPI_LONG, right, addr[2 * right], 1, MPI_LONG, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RMA_RANGE);
  CHECK_ERR_STRING(rc, "attached");
  CHECK_SUCCESS(MPI_Get(got, 1, MPI_LONG, right, addr[2 * right + 1], 1, MPI_LONG, win));
  CHECK_SUCCESS(MPI_Win_unlock(right, win));
  CHECK_INT(got[0], size);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_SUCCESS(MPI_Win_detach(win, b));
  MPI_Type_free(&stride2);
  CHECK_SUCCESS(MPI_Win_free(&win));

  /* Attach needs a dynamic window. */
  long *mem;
  CHECK_SUCCESS(
      MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  CHECK_ERR_CLASS(MPI_Win_attach(win, a, sizeof(long)), MPI_ERR_RMA_FLAVOR);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(a);
  free(b);
  free(c);
  free(addr);
  free(caddr);
  return mtest_finish();
}
