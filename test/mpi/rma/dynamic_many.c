/* A dynamic window with thousands of attached regions per process (linked-list codes attach
 * one region per element): every rank attaches NREG separately allocated regions, its right
 * neighbour puts a distinct value into each and reads it back, and each rank checks every
 * value. An access spanning two adjacent attached regions reaches both (they act as one,
 * src/mpi/rma/README.md); one that reaches past them is MPI_ERR_RMA_RANGE. */
#include "mtest.h"

#define NREG 3000

int main(int argc, char **argv) {
  mtest_init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

  static long long *regions[NREG];
  static MPI_Aint mine[NREG], theirs[NREG];
  int attached = 0;
  for (int i = 0; i < NREG; i++) {
    regions[i] = malloc(2 * sizeof(long long));
    regions[i][0] = regions[i][1] = -1;
    int rc = MPI_Win_attach(win, regions[i], 2 * sizeof(long long));
    CHECK(rc == MPI_SUCCESS, "attach %d of %d failed: %s", i, NREG, mtest_err_text(rc));
    if (rc != MPI_SUCCESS) break;
    attached++;
    MPI_Get_address(regions[i], &mine[i]);
  }
  /* Two adjacent regions made from one buffer. */
  long long pair[4] = {-1, -1, -1, -1};
  CHECK_SUCCESS(MPI_Win_attach(win, pair, 2 * sizeof(long long)));
  CHECK_SUCCESS(MPI_Win_attach(win, pair + 2, 2 * sizeof(long long)));
  MPI_Aint pair_addr, their_pair;
  MPI_Get_address(pair, &pair_addr);

  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* My regions go to my left neighbour, which writes into them. */
  MPI_Sendrecv(mine, NREG, MPI_AINT, left, 0, theirs, NREG, MPI_AINT, right, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&pair_addr, 1, MPI_AINT, left, 1, &their_pair, 1, MPI_AINT, right, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);

  CHECK_SUCCESS(MPI_Win_lock_all(0, win));
  for (int i = 0; i < attached; i++) {
    long long v = 1000000LL * rank + i;
    int rc =
        MPI_Put(&v, 1, MPI_LONG_LONG, right, theirs[i] + sizeof(long long), 1, MPI_LONG_LONG, win);
    if (rc != MPI_SUCCESS) {
      CHECK(0, "put into region %d: %s", i, mtest_err_text(rc));
      break;
    }
    if (i % 512 == 511) MPI_Win_flush(right, win);
  }
  CHECK_SUCCESS(MPI_Win_flush(right, win));
  /* Read back the last region through a get. */
  long long back = -2;
  CHECK_SUCCESS(MPI_Get(&back, 1, MPI_LONG_LONG, right, theirs[attached - 1] + sizeof(long long), 1,
                        MPI_LONG_LONG, win));
  CHECK_SUCCESS(MPI_Win_flush(right, win));
  CHECK_INT(back, 1000000LL * rank + attached - 1);
  /* Inside one of the adjacent regions, spanning both: fine. Past their end: MPI_ERR_RMA_RANGE. */
  long long two[2] = {7, 8};
  CHECK_SUCCESS(MPI_Put(two, 2, MPI_LONG_LONG, right, their_pair + 2 * sizeof(long long), 2,
                        MPI_LONG_LONG, win));
  CHECK_SUCCESS(MPI_Win_flush(right, win)); /* the next put overwrites pair[2] */
  CHECK_SUCCESS(
      MPI_Put(two, 2, MPI_LONG_LONG, right, their_pair + sizeof(long long), 2, MPI_LONG_LONG, win));
  int rc = MPI_Put(two, 2, MPI_LONG_LONG, right, their_pair + 3 * sizeof(long long), 2,
                   MPI_LONG_LONG, win);
  CHECK_ERR_CLASS(rc, MPI_ERR_RMA_RANGE);
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  for (int i = 0; i < attached; i++) {
    CHECK(regions[i][0] == -1 && regions[i][1] == 1000000LL * left + i,
          "region %d holds %lld %lld, expected -1 %lld", i, regions[i][0], regions[i][1],
          1000000LL * left + i);
  }
  CHECK(pair[0] == -1 && pair[1] == 7 && pair[2] == 8 && pair[3] == 8,
        "adjacent regions hold %lld %lld %lld %lld", pair[0], pair[1], pair[2], pair[3]);
  for (int i = 0; i < attached; i++) {
    CHECK_SUCCESS(MPI_Win_detach(win, regions[i]));
    free(regions[i]);
  }
  CHECK_SUCCESS(MPI_Win_detach(win, pair));
  CHECK_SUCCESS(MPI_Win_detach(win, pair + 2));
  MPI_Win_free(&win);
  return mtest_finish();
}
