/* Randomized lock stress: every rank repeatedly picks a random target and
 * lock type (sometimes MPI_Win_lock_all) and checks the lock invariant
 * directly. Each target has an occupancy word: an exclusive holder adds
 * 1000 on entry (and must see 0 before), a shared holder adds 1 (and must
 * see less than 1000), both undo it before unlocking. Any overlap of an
 * exclusive holder with another holder shows up as a wrong old value. */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

#define OPS 600

static void check_in(MPI_Win win, int target, long add, int exclusive) {
  long old = -1, undo = -add;
  CHECK_SUCCESS(MPI_Fetch_and_op(&add, &old, MPI_LONG, target, 0, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_flush(target, win));
  if (exclusive) CHECK(old == 0, "exclusive holder of rank %d saw occupancy %ld", target, old);
  else
    CHECK(old < 1000, "shared holder of rank %d saw occupancy %ld (a writer is inside)", target,
          old);
  for (volatile int spin = 0; spin < 200; ++spin) {
  }
  CHECK_SUCCESS(MPI_Fetch_and_op(&undo, &old, MPI_LONG, target, 0, MPI_SUM, win));
  CHECK_SUCCESS(MPI_Win_flush(target, win));
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *mem;
  MPI_Win win;
  CHECK_SUCCESS(
      MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  srand(12345 + rank * 77);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < OPS; ++i) {
    const int choice = rand() % 10;
    if (choice == 0) {
      CHECK_SUCCESS(MPI_Win_lock_all(0, win));
      for (int t = 0; t < size; ++t) check_in(win, t, 1, 0);
      CHECK_SUCCESS(MPI_Win_unlock_all(win));
      continue;
    }
    const int target = rand() % size;
    const int exclusive = choice < 5;
    CHECK_SUCCESS(MPI_Win_lock(exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target, 0, win));
    check_in(win, target, exclusive ? 1000 : 1, exclusive);
    CHECK_SUCCESS(MPI_Win_unlock(target, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_INT(mem[0], 0);
  long long acquisitions = 0, remote = 0;
  MPIX_Win_get_lock_stats(win, &acquisitions, &remote);
  CHECK(acquisitions > OPS, "rank %d: %lld acquisitions", rank, acquisitions);
  CHECK_SUCCESS(MPI_Win_free(&win));
  return mtest_finish();
}
