/* Bad arguments to one-sided calls: window creation (sizes, displacement
 * units, NULL outputs), handles (MPI_WIN_NULL, freed windows), target ranks,
 * displacements, counts, datatypes, operations, NULL origin buffers,
 * synchronization outside an epoch, lock types. Window creation is
 * collective: those cases fail on every process. */
#include "badargs.h"

int main(int argc, char **argv)
{
    int rank, size, flag;
    ba_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Comm W = MPI_COMM_WORLD;
    int mem[16] = {0}, a[4] = {1, 2, 3, 4}, r[4];
    MPI_Win win, freed_win, w2;
    void *base;
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, W, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, W, &freed_win);
    MPI_Win freed_copy = freed_win;
    MPI_Win_free(&freed_win);
    const int peer = (rank + 1) % size;

    EXPECT(MPI_ERR_SIZE, "size", MPI_Win_create(mem, -1, 4, MPI_INFO_NULL, W, &w2));
    EXPECT(MPI_ERR_DISP, "disp_unit", MPI_Win_create(mem, 64, 0, MPI_INFO_NULL, W, &w2));
    EXPECT(MPI_ERR_ARG, "win", MPI_Win_create(mem, 64, 4, MPI_INFO_NULL, W, NULL));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Win_create(mem, 64, 4, MPI_INFO_NULL, MPI_COMM_NULL, &w2));
    EXPECT(MPI_ERR_SIZE, "size", MPI_Win_allocate(-8, 4, MPI_INFO_NULL, W, &base, &w2));
    EXPECT(MPI_ERR_ARG, "baseptr", MPI_Win_allocate(64, 4, MPI_INFO_NULL, W, NULL, &w2));
    EXPECT(MPI_ERR_DISP, "disp_unit",
           MPI_Win_allocate_shared(64, -4, MPI_INFO_NULL, W, &base, &w2));

    EXPECT(MPI_ERR_WIN, "win", MPI_Win_fence(0, MPI_WIN_NULL));
    EXPECT(MPI_ERR_WIN, "win", MPI_Win_fence(0, freed_copy));
    w2 = MPI_WIN_NULL;
    EXPECT(MPI_ERR_WIN, "win", MPI_Win_free(&w2));
    EXPECT(MPI_ERR_ARG, "win", MPI_Win_free(NULL));

    /* Communication outside an epoch, then inside one with bad arguments. */
    EXPECT(MPI_ERR_RMA_SYNC, "epoch", MPI_Put(a, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_RMA_SYNC, "lock", MPI_Win_unlock(peer, win));
    EXPECT(MPI_ERR_RMA_SYNC, "epoch", MPI_Win_complete(win));
    EXPECT(MPI_ERR_LOCKTYPE, "lock_type", MPI_Win_lock(12345, peer, 0, win));
    EXPECT(MPI_ERR_RANK, "rank", MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win));
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
    EXPECT(MPI_ERR_RANK, "target_rank", MPI_Put(a, 1, MPI_INT, size, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_RANK, "target_rank", MPI_Get(r, 1, MPI_INT, -3, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_DISP, "target_disp", MPI_Put(a, 1, MPI_INT, peer, -1, 1, MPI_INT, win));
    EXPECT(MPI_ERR_COUNT, "origin_count", MPI_Put(a, -1, MPI_INT, peer, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_COUNT, "target_count", MPI_Get(r, 1, MPI_INT, peer, 0, -1, MPI_INT, win));
    EXPECT(MPI_ERR_BUFFER, "origin_addr", MPI_Put(NULL, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_TYPE, "origin_datatype",
           MPI_Put(a, 1, MPI_DATATYPE_NULL, peer, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_TYPE, "target_datatype",
           MPI_Get(r, 1, MPI_INT, peer, 0, 1, (MPI_Datatype)0x4cabcdef, win));
    EXPECT(MPI_ERR_BUFFER, "origin_addr",
           MPI_Put(MPI_IN_PLACE, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_BUFFER, "result_addr",
           MPI_Fetch_and_op(a, MPI_IN_PLACE, MPI_INT, peer, 0, MPI_SUM, win));
    EXPECT(MPI_ERR_RMA_RANGE, "target", MPI_Put(a, 4, MPI_INT, peer, 14, 4, MPI_INT, win));
    EXPECT(MPI_ERR_OP, "op", MPI_Accumulate(a, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_OP_NULL, win));
    EXPECT(MPI_ERR_OP, "op",
           MPI_Accumulate(a, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, MPI_BAND, win));
    EXPECT(MPI_ERR_BUFFER, "result_addr",
           MPI_Fetch_and_op(a, NULL, MPI_INT, peer, 0, MPI_SUM, win));
    EXPECT(MPI_ERR_ARG, "request", MPI_Rput(a, 1, MPI_INT, peer, 0, 1, MPI_INT, win, NULL));
    EXPECT(MPI_ERR_COUNT, "origin_addr",
           MPI_Put_c(a, (MPI_Count)1 << 62, MPI_DOUBLE, peer, 0, 1, MPI_INT, win));
    EXPECT(MPI_ERR_RANK, "rank", MPI_Win_flush(size, win));
    MPI_Win_unlock(peer, win);

    EXPECT(MPI_ERR_GROUP, "group", MPI_Win_start(MPI_GROUP_NULL, 0, win));
    EXPECT(MPI_ERR_GROUP, "group", MPI_Win_post(MPI_GROUP_NULL, 0, win));
    EXPECT(MPI_ERR_ASSERT, "assert", MPI_Win_fence(0x7fff0000, win));
    EXPECT(MPI_ERR_ASSERT, "assert", MPI_Win_lock(MPI_LOCK_SHARED, peer, 0x7fff0000, win));
    {
        MPI_Aint sz;
        int du;
        void *ptr;
        /* MPI 4.0 allows every flavor (size 0 where not shared); a rank
         * outside the window is an error. */
        EXPECT_OK(MPI_Win_shared_query(win, 0, &sz, &du, &ptr));
        EXPECT(MPI_ERR_RANK, "rank", MPI_Win_shared_query(win, size, &sz, &du, &ptr));
    }
    EXPECT(MPI_ERR_RMA_SYNC, "epoch", MPI_Win_wait(win));
    EXPECT(MPI_ERR_RMA_SYNC, "lock", MPI_Win_flush(peer, win));

    EXPECT(MPI_ERR_ARG, "flag", MPI_Win_get_attr(win, MPI_WIN_BASE, &base, NULL));
    EXPECT(MPI_ERR_KEYVAL, "keyval", MPI_Win_get_attr(win, 424242, &base, &flag));
    EXPECT(MPI_ERR_ARG, "win_name", MPI_Win_set_name(win, NULL));

    MPI_Win_free(&win);
    return ba_finish();
}
