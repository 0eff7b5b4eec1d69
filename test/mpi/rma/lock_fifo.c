/* FIFO grants under contention. Rank 0 takes a lock on itself and holds it
 * while ranks 1..n-1 request locks one after the other (200 ms apart, so the
 * request order is known even when a loaded 2-core machine holds a rank off
 * its CPU for 100 ms, as CI once did at 6 ranks). Whoever is granted draws
 * a ticket from a counter in rank 0's window with MPI_Fetch_and_op while
 * holding the lock: the
 * tickets give the grant order, which must be the request order, except
 * that shared requests granted together may draw in any order among
 * themselves. Scenarios (holder type: requester types):
 *   E: E E E     exclusive queue
 *   E: E S E     a shared request between two exclusive ones
 *   S: S E S     the shared request behind a waiting exclusive one must not
 *                overtake it (no reader preference)
 *   E: S S E     two shared waiters are granted together, before the
 *                exclusive request that came after them */
#include <mpi.h>
#include <time.h>
#include <unistd.h>

#include "mtest.h"

#define GAP_US 200000

static void pause_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static int lock_of(char c) { return c == 'E' ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED; }

static void scenario(MPI_Win win, long *mem, int rank, int size, const char *types) {
  /* types[0]: holder; types[r]: rank r's request */
  long ticket = -1, one = 1;
  if (rank == 0) mem[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_SUCCESS(MPI_Win_lock(lock_of(types[0]), 0, 0, win));
    pause_us(GAP_US * size);
    CHECK_SUCCESS(MPI_Win_unlock(0, win));
  } else {
    pause_us(GAP_US * rank);
    CHECK_SUCCESS(MPI_Win_lock(lock_of(types[rank]), 0, 0, win));
    CHECK_SUCCESS(MPI_Fetch_and_op(&one, &ticket, MPI_LONG, 0, 0, MPI_SUM, win));
    CHECK_SUCCESS(MPI_Win_flush(0, win));
    pause_us(GAP_US / 4);
    CHECK_SUCCESS(MPI_Win_unlock(0, win));
  }
  long tickets[16];
  MPI_Gather(&ticket, 1, MPI_LONG, tickets, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int r = 1; r < size; ++r) {
    /* The earliest possible ticket is the number of requests before r that
     * cannot share with it; later shared requests never go before it. */
    long lo = r - 1, hi = r - 1;
    for (int q = r - 1; q >= 1 && types[q] == 'S' && types[r] == 'S'; --q) --lo;
    for (int q = r + 1; q < size && types[q] == 'S' && types[r] == 'S'; ++q) ++hi;
    if (types[0] == 'S' && types[r] == 'S') {
      /* granted at once alongside the holder, if nothing exclusive waits before it */
      int blocked = 0;
      for (int q = 1; q < r; ++q) blocked |= types[q] == 'E';
      if (!blocked) lo = 0;
    }
    CHECK(tickets[r] >= lo && tickets[r] <= hi,
          "scenario %s: rank %d (%c) drew ticket %ld, expected %ld..%ld (grant order must follow "
          "request order)",
          types, r, types[r], tickets[r], lo, hi);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 16) size = 16;

  long *mem;
  MPI_Win win;
  CHECK_SUCCESS(
      MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  scenario(win, mem, rank, size, "EEEEEEEE");
  scenario(win, mem, rank, size, "EESESESE");
  scenario(win, mem, rank, size, "SSESESES");
  scenario(win, mem, rank, size, "ESSESSES");
  long long acquisitions = 0, remote = 0, most = 0, waited = 0;
  MPIX_Win_get_lock_stats(win, &acquisitions, &remote);
  MPIX_Win_get_lock_stats_max(win, &most, &waited);
  if (rank != 0) {
    CHECK_INT(acquisitions, 4);
    CHECK(waited >= 3,
          "rank %d waited in %lld of 4 scenarios; requests behind the holder must wait", rank,
          (long long)waited);
  }
  CHECK(most <= 10, "rank %d: one acquisition took %lld remote atomics", rank, (long long)most);
  CHECK_SUCCESS(MPI_Win_free(&win));
  return mtest_finish();
}
