/* MPI_Get_accumulate / MPI_Accumulate / MPI_Rget_accumulate with count 0 are valid for any
 * predefined datatype and any predefined operation, even one not defined for the type
 * (MPI_SUM on MPI_BYTE, MPI_BAND on MPI_DOUBLE); with a non-zero count that pairing is
 * still MPI_ERR_OP, and a real access next to them still gives the right values. */
#include "mtest.h"

int main(int argc, char **argv) {
  mtest_init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long long *base;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &base, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int i = 0; i < 4; i++) base[i] = 100 + i;
  unsigned char obuf[8] = {0}, rbuf[8] = {0};
  double dbuf[2] = {1.0, 2.0}, dres[2] = {0};
  const int target = (rank + 1) % size;

  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_SUCCESS(MPI_Get_accumulate(obuf, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, target, 0, 0, MPI_BYTE,
                                   MPI_SUM, win));
  CHECK_SUCCESS(MPI_Accumulate(dbuf, 0, MPI_DOUBLE, target, 0, 0, MPI_DOUBLE, MPI_BAND, win));
  /* NO_OP and REPLACE with count 0 on a byte type. */
  CHECK_SUCCESS(MPI_Get_accumulate(NULL, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, target, 0, 0, MPI_BYTE,
                                   MPI_NO_OP, win));
  CHECK_SUCCESS(MPI_Get_accumulate(obuf, 0, MPI_CHAR, rbuf, 0, MPI_CHAR, target, 0, 0, MPI_CHAR,
                                   MPI_REPLACE, win));
  /* Non-zero count: the pairing is checked. */
  int rc = MPI_Get_accumulate(obuf, 1, MPI_BYTE, rbuf, 1, MPI_BYTE, target, 0, 1, MPI_BYTE, MPI_SUM,
                              win);
  CHECK_ERR_CLASS(rc, MPI_ERR_OP);
  rc = MPI_Accumulate(dbuf, 1, MPI_DOUBLE, target, 0, 1, MPI_DOUBLE, MPI_BAND, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_OP);
  /* A real fetch-and-add beside them. */
  long long one = 1, old = -1;
  CHECK_SUCCESS(MPI_Get_accumulate(&one, 1, MPI_LONG_LONG, &old, 1, MPI_LONG_LONG, target, 2, 1,
                                   MPI_LONG_LONG, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  CHECK_INT(old, 102);
  CHECK_INT(base[2], 103);
  CHECK_INT(base[0], 100);
  CHECK_INT(base[1], 101);
  CHECK_INT(base[3], 103);
  /* The request-based form, in a passive epoch. */
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK_SUCCESS(MPI_Win_lock_all(0, win));
  CHECK_SUCCESS(MPI_Rget_accumulate(dbuf, 0, MPI_DOUBLE, dres, 0, MPI_DOUBLE, target, 0, 0,
                                    MPI_DOUBLE, MPI_LXOR, win, &req));
  CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPI_Win_free(&win);
  return mtest_finish();
}
