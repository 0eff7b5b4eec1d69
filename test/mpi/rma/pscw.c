/* Post/start/complete/wait/test. Ring pattern: every rank exposes its window
 * to its left neighbour (post) and accesses its right neighbour (start),
 * puts and accumulates, many epochs in a row; values are checked after
 * wait. Also: a star pattern where rank 0 exposes to everyone and waits
 * with MPI_Win_test; an origin that issues no RMA in an epoch; a target
 * posted before the origin starts and the reverse (start may not block);
 * MPI_Win_start does not block until the target posts. */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include "mtest.h"

#define EPOCHS 50

static MPI_Group group_of(int n, const int *ranks) {
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, n, ranks, &g);
  MPI_Group_free(&world);
  return g;
}

static void run(MPI_Win win, long *mem, int rank, int size) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Group to_left = group_of(1, &left), to_right = group_of(1, &right);
  for (int e = 0; e < EPOCHS; ++e) {
    CHECK_SUCCESS(MPI_Win_post(to_left, 0, win));
    CHECK_SUCCESS(MPI_Win_start(to_right, 0, win));
    long v = rank * 1000 + e, one = 1;
    if (e % 7 != 3) { /* some epochs move nothing */
      CHECK_SUCCESS(MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
      CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, right, 1, 1, MPI_LONG, MPI_SUM, win));
    }
    CHECK_SUCCESS(MPI_Win_complete(win));
    CHECK_SUCCESS(MPI_Win_wait(win));
    if (e % 7 != 3) CHECK_INT(mem[0], left * 1000 + e);
  }
  CHECK_INT(mem[1], EPOCHS - (EPOCHS + 3) / 7);

  /* Star: rank 0 exposes to all others, waits with MPI_Win_test. */
  int *others = malloc(sizeof(int) * size), zero = 0;
  for (int i = 1; i < size; ++i) others[i - 1] = i;
  MPI_Group all_others = group_of(size - 1, others), just_zero = group_of(1, &zero);
  for (int e = 0; e < 10; ++e) {
    if (rank == 0) {
      for (int i = 0; i < size; ++i) mem[2 + i] = -1;
      CHECK_SUCCESS(MPI_Win_post(all_others, MPI_MODE_NOSTORE, win));
      int flag = 0, polls = 0;
      while (!flag) {
        CHECK_SUCCESS(MPI_Win_test(win, &flag));
        ++polls;
      }
      for (int i = 1; i < size; ++i) CHECK_INT(mem[2 + i], i * 10 + e);
    } else {
      if (e % 2) usleep(2000); /* sometimes start late, sometimes early */
      CHECK_SUCCESS(MPI_Win_start(just_zero, 0, win));
      long v = rank * 10 + e;
      CHECK_SUCCESS(MPI_Put(&v, 1, MPI_LONG, 0, 2 + rank, 1, MPI_LONG, win));
      CHECK_SUCCESS(MPI_Win_complete(win));
    }
  }
  /* MPI_Win_start returns before the post: the origin can do other work. */
  if (rank == 1) {
    double t0 = MPI_Wtime();
    CHECK_SUCCESS(MPI_Win_start(just_zero, 0, win));
    double started = MPI_Wtime() - t0;
    CHECK(started < 0.1, "MPI_Win_start blocked %.3f s waiting for the post", started);
    long v = 77;
    CHECK_SUCCESS(MPI_Put(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win));
    CHECK_SUCCESS(MPI_Win_complete(win));
  } else if (rank == 0) {
    usleep(200000);
    int one = 1;
    MPI_Group g1 = group_of(1, &one);
    CHECK_SUCCESS(MPI_Win_post(g1, 0, win));
    CHECK_SUCCESS(MPI_Win_wait(win));
    CHECK_INT(mem[2], 77);
    MPI_Group_free(&g1);
  }
  MPI_Group_free(&all_others);
  MPI_Group_free(&just_zero);
  MPI_Group_free(&to_left);
  MPI_Group_free(&to_right);
  free(others);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Aint bytes = (2 + size) * sizeof(long);
  long *mem;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  mem[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  mem = calloc(2 + size, sizeof(long));
  CHECK_SUCCESS(MPI_Win_create(mem, bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(mem);
  return mtest_finish();
}
