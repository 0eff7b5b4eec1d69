/* The rest of passive-target RMA: MPI_Rput/Rget/Raccumulate/Rget_accumulate
 * completed with MPI_Wait, MPI_Test and MPI_Waitall; MPI_Win_flush_local(_all)
 * and MPI_Win_flush_all; locks on several targets held at once and on
 * oneself; MPI_MODE_NOCHECK for lock and lock_all (no lock word touched: the
 * statistics count no acquisition); MPI_PROC_NULL as lock target; the large-
 * count (_c) variants; MPI_Win_sync with direct loads of one's own memory. */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

#define N 16

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *mem;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate_c(4 * N * sizeof(long), sizeof(long), MPI_INFO_NULL,
                                   MPI_COMM_WORLD, &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int i = 0; i < 4 * N; ++i) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const int right = (rank + 1) % size;

  /* Request-based calls inside lock_all. */
  long src[N], got[N], old[N], one[N];
  for (int i = 0; i < N; ++i) src[i] = rank * 100 + i, one[i] = 1;
  MPI_Request reqs[4];
  CHECK_SUCCESS(MPI_Win_lock_all(0, win));
  CHECK_SUCCESS(MPI_Rput(src, N, MPI_LONG, right, 0, N, MPI_LONG, win, &reqs[0]));
  CHECK_SUCCESS(MPI_Raccumulate(one, N, MPI_LONG, right, N, N, MPI_LONG, MPI_SUM, win, &reqs[1]));
  CHECK_SUCCESS(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  CHECK_SUCCESS(MPI_Win_flush_all(win));
  CHECK_SUCCESS(MPI_Rget(got, N, MPI_LONG, right, 0, N, MPI_LONG, win, &reqs[2]));
  int done = 0;
  while (!done) CHECK_SUCCESS(MPI_Test(&reqs[2], &done, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; ++i) CHECK_INT(got[i], rank * 100 + i);
  CHECK_SUCCESS(MPI_Rget_accumulate(one, N, MPI_LONG, old, N, MPI_LONG, right, N, N, MPI_LONG,
                                    MPI_SUM, win, &reqs[3]));
  CHECK_SUCCESS(MPI_Wait(&reqs[3], MPI_STATUS_IGNORE));
  CHECK(reqs[3] == MPI_REQUEST_NULL, "completed request is freed");
  for (int i = 0; i < N; ++i) CHECK_INT(old[i], 1);
  CHECK_SUCCESS(MPI_Win_flush_local(right, win));
  CHECK_SUCCESS(MPI_Win_flush_local_all(win));
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_INT(mem[N], 2);

  /* Several targets locked at once, including oneself; the _c variants.
   * Shared locks only: an exclusive lock on oneself plus a lock on the
   * neighbour, which does the same, would be a lock cycle (MPI_Win_lock may
   * block until it is granted). */
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  if (size > 1) CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, win));
  long v = 1000 + rank, r = -1;
  CHECK_SUCCESS(MPI_Put_c(&v, 1, MPI_LONG, rank, 2 * N, 1, MPI_LONG, win));
  CHECK_SUCCESS(MPI_Win_flush(rank, win));
  CHECK_SUCCESS(MPI_Win_sync(win));
  CHECK_INT(mem[2 * N], 1000 + rank); /* my own memory, stored through RMA */
  CHECK_SUCCESS(MPI_Get_c(&r, 1, MPI_LONG, rank, 2 * N, 1, MPI_LONG, win));
  CHECK_INT(r, 1000 + rank);
  if (size > 1) {
    CHECK_SUCCESS(MPI_Get_accumulate_c(NULL, 0, MPI_LONG, &r, 1, MPI_LONG, right, N, 1, MPI_LONG,
                                       MPI_NO_OP, win));
    CHECK_INT(r, 2);
    CHECK_SUCCESS(MPI_Win_unlock(right, win));
  }
  CHECK_SUCCESS(MPI_Accumulate_c(&v, 1, MPI_LONG, rank, 2 * N + 1, 1, MPI_LONG, MPI_REPLACE, win));
  CHECK_SUCCESS(MPI_Win_unlock(MPI_PROC_NULL, win));
  CHECK_SUCCESS(MPI_Win_unlock(rank, win));
  CHECK_INT(mem[2 * N + 1], 1000 + rank);

  /* NOCHECK: the epoch is tracked, no lock is taken. */
  long long acq_before, remote_before, acq_after, remote_after;
  MPIX_Win_get_lock_stats(win, &acq_before, &remote_before);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, MPI_MODE_NOCHECK, win));
    CHECK_SUCCESS(MPI_Put(&v, 1, MPI_LONG, right, 3 * N, 1, MPI_LONG, win));
    CHECK_SUCCESS(MPI_Win_unlock(right, win));
  }
  CHECK_SUCCESS(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  CHECK_SUCCESS(MPI_Get(&r, 1, MPI_LONG, rank, 0, 1, MPI_LONG, win));
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPIX_Win_get_lock_stats(win, &acq_after, &remote_after);
  CHECK(acq_after == acq_before && remote_after == remote_before,
        "MPI_MODE_NOCHECK took locks: %lld -> %lld acquisitions", acq_before, acq_after);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == right % size && size > 1 && rank == 1) CHECK_INT(mem[3 * N], 1000);

  /* lock_all takes one shared lock per target. */
  MPIX_Win_get_lock_stats(win, &acq_before, &remote_before);
  CHECK_SUCCESS(MPI_Win_lock_all(0, win));
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPIX_Win_get_lock_stats(win, &acq_after, &remote_after);
  CHECK_INT(acq_after - acq_before, size);
  CHECK(remote_after - remote_before <= 2 * size + 2,
        "lock_all/unlock_all took %lld remote atomics", remote_after - remote_before);
  CHECK_SUCCESS(MPI_Win_free(&win));
  return mtest_finish();
}
