/* Element-wise atomicity of accumulates under concurrency (all ranks in one
 * MPI_Win_lock_all epoch, hammering the same elements of every target):
 *  - MPI_Accumulate(MPI_SUM) of 1 on arrays of long (CPU atomics on shared
 *    memory), int and double (accumulate lock): exact totals;
 *  - MPI_Fetch_and_op(MPI_SUM): the values fetched by all ranks are exactly
 *    0 .. n*ITERS-1, each once;
 *  - MPI_Compare_and_swap election: exactly one rank wins each round;
 *  - MPI_Get_accumulate(MPI_REPLACE) as an atomic swap: the values swapped
 *    out form a chain (every value is seen once);
 *  - accumulates with shared locks and MPI_Raccumulate/MPI_Rget_accumulate.
 * On MPI_Win_allocate and MPI_Win_create windows. */
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define ITERS 300
#define LEN 8

struct layout {
  long longs[LEN];
  int ints[LEN];
  double doubles[LEN];
  long counter;
  long election;
  long swap;
};

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

static void run(MPI_Win win, struct layout *mem, int rank, int size, const char *kind) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  memset(mem, 0, sizeof *mem);
  MPI_Barrier(MPI_COMM_WORLD);
  const MPI_Aint longs = offsetof(struct layout, longs), ints = offsetof(struct layout, ints),
                 doubles = offsetof(struct layout, doubles),
                 counter = offsetof(struct layout, counter),
                 election = offsetof(struct layout, election), swap = offsetof(struct layout, swap);
  long lone[LEN];
  int ione[LEN];
  double done[LEN];
  for (int i = 0; i < LEN; ++i) lone[i] = 1, ione[i] = 1, done[i] = 1.0;
  long *fetched = malloc(sizeof(long) * ITERS), *swapped = malloc(sizeof(long) * ITERS);

  CHECK_SUCCESS(MPI_Win_lock_all(0, win));
  for (int it = 0; it < ITERS; ++it) {
    for (int t = 0; t < size; ++t) {
      CHECK_SUCCESS(MPI_Accumulate(lone, LEN, MPI_LONG, t, longs, LEN, MPI_LONG, MPI_SUM, win));
      CHECK_SUCCESS(MPI_Accumulate(ione, LEN, MPI_INT, t, ints, LEN, MPI_INT, MPI_SUM, win));
      CHECK_SUCCESS(
          MPI_Accumulate(done, LEN, MPI_DOUBLE, t, doubles, LEN, MPI_DOUBLE, MPI_SUM, win));
    }
    long one = 1;
    CHECK_SUCCESS(MPI_Fetch_and_op(&one, &fetched[it], MPI_LONG, 0, counter, MPI_SUM, win));
    long mine = rank * ITERS + it + 1, old = -1;
    CHECK_SUCCESS(MPI_Get_accumulate(&mine, 1, MPI_LONG, &old, 1, MPI_LONG, 0, swap, 1, MPI_LONG,
                                     MPI_REPLACE, win));
    CHECK_SUCCESS(MPI_Win_flush(0, win));
    swapped[it] = old;
    MPI_Request req;
    CHECK_SUCCESS(MPI_Raccumulate(ione, 1, MPI_INT, (rank + it) % size, ints, 1, MPI_INT, MPI_SUM,
                                  win, &req));
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
  }
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  const long total = (long)size * ITERS;
  for (int i = 0; i < LEN; ++i) {
    CHECK(mem->longs[i] == total, "%s: long[%d] = %ld, expected %ld", kind, i, mem->longs[i],
          total);
    CHECK(mem->doubles[i] == (double)total, "%s: double[%d] = %g, expected %ld", kind, i,
          mem->doubles[i], total);
  }
  /* ints[0] also got one Raccumulate per iteration from each rank whose (rank+it)%size hit us */
  long expect0 = total;
  for (int r = 0; r < size; ++r)
    for (int it = 0; it < ITERS; ++it) expect0 += (r + it) % size == rank;
  CHECK(mem->ints[0] == expect0, "%s: int[0] = %d, expected %ld", kind, mem->ints[0], expect0);
  for (int i = 1; i < LEN; ++i)
    CHECK(mem->ints[i] == total, "%s: int[%d] = %d, expected %ld", kind, i, mem->ints[i], total);

  /* Fetch_and_op tickets: a permutation of 0..total-1. */
  long *all = rank == 0 ? malloc(sizeof(long) * total) : NULL;
  MPI_Gather(fetched, ITERS, MPI_LONG, all, ITERS, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(all, total, sizeof(long), cmp_long);
    for (long i = 0; i < total; ++i)
      if (all[i] != i) {
        CHECK(0, "%s: fetch-and-add tickets are not 0..%ld: position %ld holds %ld", kind,
              total - 1, i, all[i]);
        break;
      }
    CHECK(mem->counter == total, "%s: counter %ld", kind, mem->counter);
    free(all);
  }

  /* Swap chain: the values swapped out are the initial 0 and every value
   * swapped in except the last one still in the window, each exactly once. */
  long *chain = rank == 0 ? malloc(sizeof(long) * (total + 1)) : NULL;
  MPI_Gather(swapped, ITERS, MPI_LONG, chain, ITERS, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    chain[total] = mem->swap;
    qsort(chain, total + 1, sizeof(long), cmp_long);
    CHECK(chain[0] == 0, "%s: the initial value was never swapped out", kind);
    for (int r = 0, k = 1; r < size; ++r)
      for (int it = 0; it < ITERS; ++it, ++k)
        if (chain[k] != (long)r * ITERS + it + 1) {
          CHECK(0, "%s: swap chain broken at %d: %ld", kind, k, chain[k]);
          r = size;
          break;
        }
    free(chain);
  }

  /* Compare-and-swap election, several rounds. */
  for (int round = 0; round < 20; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    long me = rank + 1 + round * 100, zero = round == 0 ? 0 : (round - 1) * 100 + 1000, got = -1;
    CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_SUCCESS(MPI_Compare_and_swap(&me, &zero, &got, MPI_LONG, 0, election, win));
    CHECK_SUCCESS(MPI_Win_unlock(0, win));
    int won = got == zero, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "%s: compare-and-swap round %d had %d winners", kind, round, winners);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      long next = round * 100 + 1000;
      CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_SUCCESS(MPI_Put(&next, 1, MPI_LONG, 0, election, 1, MPI_LONG, win));
      CHECK_SUCCESS(MPI_Win_unlock(0, win));
    }
  }
  free(fetched);
  free(swapped);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct layout *mem;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(sizeof *mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  run(win, mem, rank, size, "MPI_Win_allocate");
  CHECK_SUCCESS(MPI_Win_free(&win));
  mem = calloc(1, sizeof *mem);
  CHECK_SUCCESS(MPI_Win_create(mem, sizeof *mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, mem, rank, size, "MPI_Win_create");
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(mem);
  return mtest_finish();
}
