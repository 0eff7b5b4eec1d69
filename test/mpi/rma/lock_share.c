/* Every rank gets a share of a contended exclusive lock. All ranks hammer
 * rank 0's lock; under the lock a rank reads the table in rank 0's window
 * (slot 0: total grants, slot 1 + r: grants of rank r), adds one to the
 * total and to its own slot, and writes it back. Every rank keeps going
 * until the table says that each rank has at least ROUNDS grants, so ranks
 * on the target's node (CPU atomics) compete with ranks on other nodes
 * (network atomics) the whole time: a rank that never gets into the queue
 * keeps the others going until the test's time limit (a FAIL). At the end:
 * the total equals the sum of the slots and of the grants each rank counted
 * itself (a lost update would mean two holders at once), and each rank has
 * at least ROUNDS. Loose on purpose: it checks a share, not equal shares
 * (a rank next to the lock re-acquires while remote requests are still on
 * their way, which is allowed: no one is queued then).
 * Usage: lock_share [ROUNDS] (default 20). */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long rounds = argc > 1 ? atol(argv[1]) : 20;

  long *mem;
  MPI_Win win;
  const MPI_Aint bytes = (MPI_Aint)(size + 1) * (MPI_Aint)sizeof(long);
  CHECK_SUCCESS(MPI_Win_allocate(rank == 0 ? bytes : 0, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    for (int i = 0; i <= size; ++i) mem[i] = 0;
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  long *table = calloc((size_t)size + 1, sizeof(long));
  long mine = 0;
  int done = 0;
  while (!done) {
    CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_SUCCESS(MPI_Get(table, size + 1, MPI_LONG, 0, 0, size + 1, MPI_LONG, win));
    CHECK_SUCCESS(MPI_Win_flush(0, win));
    ++mine;
    ++table[0];
    ++table[1 + rank];
    CHECK_SUCCESS(MPI_Put(table, size + 1, MPI_LONG, 0, 0, size + 1, MPI_LONG, win));
    CHECK_SUCCESS(MPI_Win_unlock(0, win));
    done = 1;
    for (int r = 0; r < size; ++r)
      if (table[1 + r] < rounds) done = 0;
  }
  CHECK(table[1 + rank] == mine, "rank %d counted %ld grants, the table says %ld (lost update)",
        rank, mine, table[1 + rank]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    long sum = 0;
    for (int r = 0; r < size; ++r) {
      CHECK(mem[1 + r] >= rounds, "rank %d got %ld grants, fewer than %ld", r, mem[1 + r], rounds);
      sum += mem[1 + r];
    }
    CHECK(sum == mem[0], "the slots add up to %ld grants, the total says %ld (lost update)", sum,
          mem[0]);
    MPI_Win_unlock(0, win);
  }
  long total_mine = 0;
  MPI_Reduce(&mine, &total_mine, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    CHECK(total_mine == mem[0], "ranks counted %ld grants together, the table says %ld", total_mine,
          mem[0]);
  free(table);
  CHECK_SUCCESS(MPI_Win_free(&win));
  return mtest_finish();
}
