/* The merged kernels: per epoch, the number of signal, copy and wait
 * launches does not grow with the number of peers or of RMA calls. Three
 * patterns of EPOCHS epochs each on one window: one neighbour with one put;
 * every rank (self included) with PUTS puts and two accumulates each; every
 * rank with no RMA call at all. Each access+exposure epoch pair must take
 * exactly 2 signal, 2 wait and 1 copy launches (0 copies when nothing
 * moves). The data of the all-peers pattern is checked too. */
#include <stdlib.h>

#include "mtest.h"

#define EPOCHS 20
#define PUTS 8

struct counts {
    long long epochs, signals, copies, waits;
};

static struct counts stats(MPI_Win win)
{
    struct counts c;
    CHECK_SUCCESS(MPIX_Win_get_stream_stats(win, &c.epochs, &c.signals, &c.copies, &c.waits));
    return c;
}

static void check_delta(const char *pattern, struct counts before, struct counts after,
                        int copies_per_epoch)
{
    CHECK(after.epochs - before.epochs == 2 * EPOCHS, "%s: %lld epochs", pattern,
          after.epochs - before.epochs);
    CHECK(after.signals - before.signals == 2 * EPOCHS, "%s: %lld signal launches for %d epochs",
          pattern, after.signals - before.signals, EPOCHS);
    CHECK(after.waits - before.waits == 2 * EPOCHS, "%s: %lld wait launches for %d epochs", pattern,
          after.waits - before.waits, EPOCHS);
    CHECK(after.copies - before.copies == copies_per_epoch * EPOCHS,
          "%s: %lld copy launches for %d epochs", pattern, after.copies - before.copies, EPOCHS);
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;

    /* Slot [origin][k] receives the k-th put of `origin`; then a long sum. */
    const MPI_Aint slots = (MPI_Aint)size * PUTS;
    long *mem;
    MPI_Win win;
    CHECK_SUCCESS(MPI_Win_allocate((slots + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                                   MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (MPI_Aint i = 0; i <= slots; i++)
        mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Group world, to_left, to_right;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &to_left);
    MPI_Group_incl(world, 1, &right, &to_right);
    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    static long values[PUTS], one = 1;

    /* One neighbour, one put. */
    struct counts before = stats(win);
    for (int e = 0; e < EPOCHS; e++) {
        CHECK_SUCCESS(MPIX_Win_post_stream(to_left, win, stream));
        CHECK_SUCCESS(MPI_Win_start(to_right, MPIX_MODE_STREAM, win));
        CHECK_SUCCESS(MPI_Put(&one, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
        CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
        CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    check_delta("one peer, one put", before, stats(win), 1);

    /* Every rank, PUTS puts and two accumulates to each. */
    for (int k = 0; k < PUTS; k++)
        values[k] = rank * 100 + k;
    before = stats(win);
    for (int e = 0; e < EPOCHS; e++) {
        CHECK_SUCCESS(MPIX_Win_post_stream(world, win, stream));
        CHECK_SUCCESS(MPI_Win_start(world, MPIX_MODE_STREAM, win));
        for (int t = 0; t < size; t++) {
            for (int k = 0; k < PUTS; k++)
                CHECK_SUCCESS(
                    MPI_Put(&values[k], 1, MPI_LONG, t, rank * PUTS + k, 1, MPI_LONG, win));
            CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, t, slots, 1, MPI_LONG, MPI_SUM, win));
            CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, t, slots, 1, MPI_LONG, MPI_SUM, win));
        }
        CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
        CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    check_delta("all peers, many calls", before, stats(win), 1);
    for (int o = 0; o < size; o++)
        for (int k = 0; k < PUTS; k++)
            CHECK(mem[o * PUTS + k] == o * 100 + k, "slot of origin %d put %d: %ld", o, k,
                  mem[o * PUTS + k]);
    CHECK(mem[slots] == 2L * size * EPOCHS, "sum %ld, expected %ld", mem[slots],
          2L * size * EPOCHS);

    /* Every rank, nothing moved: no copy launch. */
    before = stats(win);
    for (int e = 0; e < EPOCHS; e++) {
        CHECK_SUCCESS(MPIX_Win_post_stream(world, win, stream));
        CHECK_SUCCESS(MPI_Win_start(world, MPIX_MODE_STREAM, win));
        CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
        CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    check_delta("all peers, no calls", before, stats(win), 0);

    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    CHECK_SUCCESS(MPI_Win_free(&win));
    MPI_Group_free(&to_left);
    MPI_Group_free(&to_right);
    MPI_Group_free(&world);
    return mtest_finish();
}
