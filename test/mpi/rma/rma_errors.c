/* Error cases, with MPI_ERRORS_RETURN on the window: each returns the right
 * class with a message naming the argument and value, and the window keeps
 * working afterwards. Never a hang or a crash. */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

static void user_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)in, (void)inout, (void)len, (void)type;
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *base, v = 1, rc;
  long lv = 0, lr = 0;
  MPI_Win win;
  CHECK_SUCCESS(
      MPI_Win_allocate(10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK_SUCCESS(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  const int peer = (rank + 1) % size;

  /* RMA outside any epoch. */
  rc = MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
  CHECK_ERR_STRING(rc, "target_rank");
  CHECK_ERR_STRING_INT(rc, peer);
  CHECK_ERR_CLASS(MPI_Get(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Accumulate(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_SUM, win),
                  MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Fetch_and_op(&lv, &lr, MPI_LONG, peer, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_flush(peer, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_flush_local(peer, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC);

  /* Unmatched synchronization calls. */
  rc = MPI_Win_unlock(peer, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
  CHECK_ERR_STRING(rc, "no lock");
  CHECK_ERR_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
  int flag;
  CHECK_ERR_CLASS(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC);

  /* Bad lock types and asserts. */
  rc = MPI_Win_lock(7, peer, 0, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_LOCKTYPE);
  CHECK_ERR_STRING(rc, "lock_type=7");
  rc = MPI_Win_lock(MPI_LOCK_SHARED, peer, 12345, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_ASSERT);
  CHECK_ERR_STRING_INT(rc, 12345);
  CHECK_ERR_CLASS(MPI_Win_lock_all(MPI_MODE_NOPUT, win), MPI_ERR_ASSERT);
  CHECK_ERR_CLASS(MPI_Win_fence(MPI_MODE_NOCHECK, win), MPI_ERR_ASSERT);
  rc = MPI_Win_lock(MPI_LOCK_SHARED, size + 3, 0, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
  CHECK_ERR_STRING_INT(rc, size + 3);

  /* Conflicting and nested epochs. */
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
  CHECK_ERR_STRING(rc, "already holds a shared lock");
  CHECK_ERR_CLASS(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
  CHECK(win != MPI_WIN_NULL, "a failed MPI_Win_free leaves the window");
  /* Out of range and bad displacements inside a valid epoch. */
  rc = MPI_Put(&v, 1, MPI_INT, peer, 10, 1, MPI_INT, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RMA_RANGE);
  CHECK_ERR_STRING(rc, "target_disp=10");
  CHECK_ERR_CLASS(MPI_Get(base, 11, MPI_INT, peer, 0, 11, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_ERR_CLASS(MPI_Put(&v, 1, MPI_INT, peer, -1, 1, MPI_INT, win), MPI_ERR_DISP);
  CHECK_ERR_CLASS(MPI_Accumulate(&v, 1, MPI_INT, peer, 9, 2, MPI_SHORT, MPI_SUM, win),
                  MPI_ERR_TYPE);
  rc = MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
  CHECK_ERR_STRING(rc, "target_rank");
  CHECK_ERR_CLASS(MPI_Put(&v, 2, MPI_INT, peer, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
  MPI_Op op;
  MPI_Op_create(user_op, 1, &op);
  CHECK_ERR_CLASS(MPI_Accumulate(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, op, win), MPI_ERR_OP);
  MPI_Op_free(&op);
  double d = 0, dr = 0;
  CHECK_ERR_CLASS(MPI_Compare_and_swap(&d, &d, &dr, MPI_DOUBLE, peer, 0, win), MPI_ERR_TYPE);
  CHECK_ERR_CLASS(MPI_Accumulate(&d, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, MPI_BAND, win),
                  MPI_ERR_OP);
  CHECK_SUCCESS(
      MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 1000, 1, MPI_INT, win)); /* PROC_NULL: no-op */
  /* Nothing moves: zero counts and zero-size types are fine whatever the types (MPICH's
   * rma/badrma), while the same types with data are refused above. */
  MPI_Datatype none;
  MPI_Type_contiguous(0, MPI_INT, &none);
  MPI_Type_commit(&none);
  CHECK_SUCCESS(MPI_Accumulate(&v, 0, MPI_INT, peer, 0, 0, MPI_DOUBLE, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Accumulate(&v, 1, none, peer, 0, 0, none, MPI_SUM, win));
  CHECK_SUCCESS(
      MPI_Get_accumulate(&v, 0, MPI_INT, &d, 0, MPI_DOUBLE, peer, 0, 0, none, MPI_SUM, win));
  MPI_Type_free(&none);
  CHECK_SUCCESS(MPI_Win_unlock(peer, win));
  CHECK_ERR_CLASS(MPI_Win_unlock(peer, win), MPI_ERR_RMA_SYNC);

  /* Request-based RMA needs a passive epoch. */
  MPI_Request req;
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_ERR_CLASS(MPI_Rput(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  /* After RMA in a fence epoch, lock is an error until the closing fence. */
  CHECK_SUCCESS(MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
  CHECK_ERR_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_SUCCESS(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

  /* PSCW misuse. */
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  CHECK_ERR_CLASS(MPI_Win_post(world, MPI_MODE_NOPRECEDE, win), MPI_ERR_ASSERT);
  CHECK_SUCCESS(MPI_Win_post(world, 0, win));
  CHECK_ERR_CLASS(MPI_Win_post(world, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_SUCCESS(MPI_Win_start(world, 0, win));
  CHECK_ERR_CLASS(MPI_Win_start(world, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_ERR_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_SUCCESS(MPI_Put(&v, 1, MPI_INT, peer, 1, 1, MPI_INT, win));
  CHECK_SUCCESS(MPI_Win_complete(win));
  CHECK_SUCCESS(MPI_Win_wait(win));
  MPI_Group_free(&world);

  /* The window still works. */
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
  v = 99;
  CHECK_SUCCESS(MPI_Put(&v, 1, MPI_INT, peer, 2, 1, MPI_INT, win));
  CHECK_SUCCESS(MPI_Win_unlock(peer, win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_INT(base[2], 99);
  CHECK_SUCCESS(MPI_Win_free(&win));

  /* Bad handles: errors go to MPI_COMM_SELF/WORLD's handler (returning here). */
  CHECK_ERR_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
  rc = MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, (MPI_Win)0xa0001234);
  CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
  CHECK_ERR_STRING(rc, "win");
  CHECK_ERR_CLASS(MPI_Win_free(&win), MPI_ERR_WIN); /* already MPI_WIN_NULL */

  /* Creation with bad arguments on one rank: every rank gets an error, none hangs. */
  rc = MPI_Win_allocate(rank == size - 1 ? -8 : 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  CHECK_ERR_CLASS(rc, MPI_ERR_SIZE);
  if (rank == size - 1) CHECK_ERR_STRING(rc, "size=-8");
  rc = MPI_Win_create(base, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  CHECK_ERR_CLASS(rc, MPI_ERR_DISP);
  CHECK_ERR_STRING(rc, "disp_unit=0");
  return mtest_finish();
}
