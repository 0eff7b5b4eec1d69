/* Passive-target mutual exclusion, on every rank as target in turn and on
 * both window kinds (MPI_Win_allocate: shared memory; MPI_Win_create: single
 * copy):
 *  - counter: every rank does ITERS x (lock exclusive, get, +1, put, unlock)
 *    on one counter; the total must be exact;
 *  - readers/writers: writers fill a whole array with one value under an
 *    exclusive lock (element by element, with puts), readers read it under
 *    a shared lock and must never see two different values;
 *  - lock_all: everyone reads everyone under MPI_Win_lock_all while writers
 *    keep writing with exclusive locks. */
#include <mpi.h>
#include <stdlib.h>

#include "mtest.h"

#define ITERS 200
#define WORDS 16

static void counter_test(MPI_Win win, long *mem, int rank, int size, int target) {
  if (rank == target) mem[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < ITERS; ++i) {
    long value = -1;
    CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    CHECK_SUCCESS(MPI_Get(&value, 1, MPI_LONG, target, 0, 1, MPI_LONG, win));
    CHECK_SUCCESS(MPI_Win_flush(target, win));
    value += 1;
    CHECK_SUCCESS(MPI_Put(&value, 1, MPI_LONG, target, 0, 1, MPI_LONG, win));
    CHECK_SUCCESS(MPI_Win_unlock(target, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == target) {
    CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    CHECK_INT(mem[0], (long)ITERS * size);
    CHECK_SUCCESS(MPI_Win_unlock(target, win));
  }
}

static void readers_writers(MPI_Win win, long *mem, int rank, int size, int target) {
  if (rank == target)
    for (int i = 0; i < WORDS; ++i) mem[1 + i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const int writer = rank % 2 == 0;
  for (int it = 0; it < ITERS; ++it) {
    if (writer) {
      long v = (long)rank * 100000 + it;
      CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
      for (int i = 0; i < WORDS; ++i) {
        CHECK_SUCCESS(MPI_Put(&v, 1, MPI_LONG, target, 1 + i, 1, MPI_LONG, win));
        CHECK_SUCCESS(MPI_Win_flush(target, win));
      }
      CHECK_SUCCESS(MPI_Win_unlock(target, win));
    } else {
      long seen[WORDS];
      CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
      CHECK_SUCCESS(MPI_Get(seen, WORDS, MPI_LONG, target, 1, WORDS, MPI_LONG, win));
      CHECK_SUCCESS(MPI_Win_unlock(target, win));
      for (int i = 1; i < WORDS; ++i)
        CHECK(seen[i] == seen[0], "torn read at %d: %ld vs %ld (iteration %d)", i, seen[i], seen[0],
              it);
    }
  }
  (void)size;
  MPI_Barrier(MPI_COMM_WORLD);
}

static void lock_all_mix(MPI_Win win, int rank, int size) {
  for (int it = 0; it < ITERS / 4; ++it) {
    if (rank % 2 == 0) {
      const int target = (rank + it) % size;
      long v = (long)rank * 100000 + it;
      CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
      for (int i = 0; i < WORDS; ++i)
        CHECK_SUCCESS(MPI_Put(&v, 1, MPI_LONG, target, 1 + i, 1, MPI_LONG, win));
      CHECK_SUCCESS(MPI_Win_unlock(target, win));
    } else {
      CHECK_SUCCESS(MPI_Win_lock_all(0, win));
      for (int t = 0; t < size; ++t) {
        long seen[WORDS];
        CHECK_SUCCESS(MPI_Get(seen, WORDS, MPI_LONG, t, 1, WORDS, MPI_LONG, win));
        CHECK_SUCCESS(MPI_Win_flush(t, win));
        for (int i = 1; i < WORDS; ++i)
          CHECK(seen[i] == seen[0], "lock_all: torn read of rank %d at %d: %ld vs %ld", t, i,
                seen[i], seen[0]);
      }
      CHECK_SUCCESS(MPI_Win_unlock_all(win));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void run(MPI_Win win, long *mem, int rank, int size) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int target = 0; target < size; ++target) counter_test(win, mem, rank, size, target);
  for (int target = 0; target < size; ++target) readers_writers(win, mem, rank, size, target);
  lock_all_mix(win, rank, size);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Aint bytes = (1 + WORDS) * sizeof(long);

  long *mem;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));

  mem = calloc(1 + WORDS, sizeof(long));
  CHECK_SUCCESS(MPI_Win_create(mem, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(mem);
  return mtest_finish();
}
