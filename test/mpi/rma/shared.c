/* MPI_Win_allocate_shared and MPI_Win_shared_query: contiguous memory by
 * default (rank r+1's memory starts right after rank r's, sizes differ per
 * rank), noncontiguous with the alloc_shared_noncontig hint, MPI_PROC_NULL
 * in the query, direct loads and stores by other ranks with MPI_Win_sync,
 * and RMA on the same window. Also shared_query on an MPI_Win_allocate
 * window (its memory is shared here too) and on MPI_Win_create (none).
 * Everything runs on the node's communicator (MPI_COMM_TYPE_SHARED), as
 * programs do; when the job spans nodes, MPI_Win_allocate_shared on
 * MPI_COMM_WORLD must fail with MPI_ERR_RMA_SHARED on every rank. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "mtest.h"

static void check_window(MPI_Win win, int *base, int rank, int size, int contiguous) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int **bases = malloc(sizeof(int *) * size);
  for (int r = 0; r < size; ++r) {
    MPI_Aint sz;
    int du;
    CHECK_SUCCESS(MPI_Win_shared_query(win, r, &sz, &du, &bases[r]));
    CHECK_INT(sz, (r + 1) * 10 * (MPI_Aint)sizeof(int));
    CHECK_INT(du, sizeof(int));
    if (contiguous && r > 0)
      CHECK(bases[r] == bases[r - 1] + r * 10, "rank %d's memory does not follow rank %d's", r,
            r - 1);
  }
  CHECK(bases[rank] == base, "shared_query of myself gives my base");
  MPI_Aint sz;
  int du, *first;
  CHECK_SUCCESS(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &first));
  CHECK(first == bases[0], "MPI_PROC_NULL gives the first rank with memory");
  CHECK_ERR_CLASS(MPI_Win_shared_query(win, size, &sz, &du, &first), MPI_ERR_RANK);

  /* Direct stores into the right neighbour's memory, loads of the left's. */
  CHECK_SUCCESS(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < (right + 1) * 10; ++i) bases[right][i] = rank * 1000 + i;
  CHECK_SUCCESS(MPI_Win_sync(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_SUCCESS(MPI_Win_sync(win));
  for (int i = 0; i < (rank + 1) * 10; ++i) CHECK_INT(base[i], left * 1000 + i);
  MPI_Barrier(MPI_COMM_WORLD);
  /* RMA on the same window: put into the left neighbour's last element. */
  int v = -rank;
  CHECK_SUCCESS(MPI_Put(&v, 1, MPI_INT, left, (left + 1) * 10 - 1, 1, MPI_INT, win));
  CHECK_SUCCESS(MPI_Win_flush(left, win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_SUCCESS(MPI_Win_sync(win));
  CHECK_INT(base[(rank + 1) * 10 - 1], -right);
  CHECK_SUCCESS(MPI_Win_unlock_all(win));
  free(bases);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm node;
  int world_size;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  CHECK_SUCCESS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  if (size < world_size) {
    int *none;
    MPI_Win bad;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_ERR_CLASS(MPI_Win_allocate_shared(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &none, &bad),
                    MPI_ERR_RMA_SHARED);
  }
  int *base;
  MPI_Win win;
  const MPI_Aint bytes = (rank + 1) * 10 * sizeof(int);
  CHECK_SUCCESS(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, node, &base, &win));
  int *flavor, flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor MPI_WIN_FLAVOR_SHARED");
  check_window(win, base, rank, size, 1);
  CHECK_SUCCESS(MPI_Win_free(&win));

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  CHECK_SUCCESS(MPI_Win_allocate_shared(bytes, sizeof(int), info, node, &base, &win));
  MPI_Info_free(&info);
  check_window(win, base, rank, size, 0);
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1];
  CHECK_SUCCESS(MPI_Win_get_info(win, &used));
  CHECK_SUCCESS(MPI_Info_get(used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && value[0] == 't', "alloc_shared_noncontig is reported as set");
  MPI_Info_free(&used);
  CHECK_SUCCESS(MPI_Win_free(&win));

  CHECK_SUCCESS(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, node, &base, &win));
  check_window(win, base, rank, size, 0);
  CHECK_SUCCESS(MPI_Win_free(&win));

  int *user = calloc(10, sizeof(int));
  CHECK_SUCCESS(MPI_Win_create(user, 10 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &win));
  MPI_Aint sz = -1;
  int du;
  int *p = user;
  CHECK_SUCCESS(MPI_Win_shared_query(win, rank, &sz, &du, &p));
  CHECK(sz == 0 && p == NULL, "MPI_Win_create memory is not shared: size 0, NULL");
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(user);
  MPI_Comm_free(&node);
  return mtest_finish();
}
