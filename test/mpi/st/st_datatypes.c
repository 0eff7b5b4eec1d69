/* Stream epochs with derived datatypes, MPI_Get, self targets, shared
 * windows and two streams:
 *   - a strided origin put to a contiguous and to a strided target (an
 *     MPI_Win_allocate_shared window);
 *   - MPI_Get from the right neighbour into a strided origin buffer, read
 *     by a kernel after MPIX_Win_complete_stream;
 *   - an accumulate (MPI_INT, MPI_SUM: the accumulate-lock path) with a
 *     strided origin, packed when the stream runs the epoch;
 *   - the origin data is what the buffer holds when the stream reaches the
 *     epoch: a kernel writes it just before, another overwrites it just
 *     after MPIX_Win_complete_stream;
 *   - exposure (post, wait) on one stream, access (complete) on another:
 *     the epochs alone order them;
 *   - self as the only target;
 *   - ordinary PSCW on the same window after the stream ran, then streams.
 * The streams are synchronized once, at the end. */
#include <stdlib.h>

#include "mtest.h"

#define N 16
#define ITERS 50

/* Window of each rank (doubles unless noted): [0,N) contiguous slot,
 * [N, 4N) strided slot (every 3rd), [4N, 5N) get source, then N ints. */
#define CONTIG 0
#define STRIDED N
#define GETSRC (4 * N)
#define WIN_DOUBLES (5 * N)

struct state {
    int rank, left, right;
    /* Each stream has its own iteration count and error count. */
    int access_iter, access_errors;     /* the origin side's stream */
    int exposure_iter, exposure_errors; /* the target side's stream */
    double origin[2 * N];               /* strided origin: every 2nd element */
    double get_buf[2 * N];              /* strided get destination */
    int acc_origin[2 * N];
    double *win; /* this rank's window memory */
};

/* Access stream, before the epoch: the origin data of this iteration. */
static void produce(void *arg)
{
    struct state *s = arg;
    for (int j = 0; j < N; j++) {
        s->origin[2 * j] = s->rank * 1000 + s->access_iter * 10 + j;
        s->origin[2 * j + 1] = -7; /* gap: must never move */
        s->acc_origin[2 * j] = 1;
        s->acc_origin[2 * j + 1] = 1000000;
    }
}

/* Access stream, after MPIX_Win_complete_stream: the epoch's data has
 * moved, so later changes to the origin must not reach the target, and the
 * gets have arrived. */
static void after_complete(void *arg)
{
    struct state *s = arg;
    for (int j = 0; j < N; j++) {
        s->origin[2 * j] = -1;
        s->acc_origin[2 * j] = 1000000;
        double expect = s->right * 100000 + s->access_iter * 100 + j;
        if (s->get_buf[2 * j] != expect || s->get_buf[2 * j + 1] != -3)
            s->access_errors++;
    }
    s->access_iter++;
}

/* Exposure stream, before the post: what the left neighbour will get. */
static void expose(void *arg)
{
    struct state *s = arg;
    for (int j = 0; j < N; j++)
        s->win[GETSRC + j] = s->rank * 100000 + s->exposure_iter * 100 + j;
}

/* Exposure stream, after MPIX_Win_wait_stream: what the left neighbour put
 * and accumulated. */
static void after_wait(void *arg)
{
    struct state *s = arg;
    const int *acc = (const int *)(s->win + WIN_DOUBLES);
    for (int j = 0; j < N; j++) {
        double from_left = s->left * 1000 + s->exposure_iter * 10 + j;
        if (s->win[CONTIG + j] != from_left || s->win[STRIDED + 3 * j] != from_left)
            s->exposure_errors++;
        if (s->win[STRIDED + 3 * j + 1] != 0 || acc[j] != s->exposure_iter + 1)
            s->exposure_errors++;
    }
    s->exposure_iter++;
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct state *s = calloc(1, sizeof *s);
    s->rank = rank;
    s->left = (rank + size - 1) % size;
    s->right = (rank + 1) % size;
    for (int j = 0; j < 2 * N; j++)
        s->get_buf[j] = -3;

    MPI_Win win;
    CHECK_SUCCESS(MPI_Win_allocate_shared(WIN_DOUBLES * sizeof(double) + N * sizeof(int), 1,
                                          MPI_INFO_NULL, MPI_COMM_WORLD, &s->win, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int j = 0; j < WIN_DOUBLES; j++)
        s->win[j] = 0;
    for (int j = 0; j < N; j++)
        ((int *)(s->win + WIN_DOUBLES))[j] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Datatype every2nd, every3rd, int_every2nd;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every2nd);
    MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &every3rd);
    MPI_Type_vector(N, 1, 2, MPI_INT, &int_every2nd);
    MPI_Type_commit(&every2nd);
    MPI_Type_commit(&every3rd);
    MPI_Type_commit(&int_every2nd);

    MPI_Group world, self, to_right, to_left;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(MPI_COMM_SELF, &self);
    MPI_Group_incl(world, 1, &s->right, &to_right);
    MPI_Group_incl(world, 1, &s->left, &to_left);

    MPIX_Host_stream exposure, access;
    CHECK_SUCCESS(MPIX_Host_stream_create(&exposure));
    CHECK_SUCCESS(MPIX_Host_stream_create(&access));
    for (int i = 0; i < ITERS; i++) {
        /* Target side on `exposure`, origin side on `access`; the epochs
         * order the two streams of each rank through its neighbours. */
        CHECK_SUCCESS(MPIX_Host_stream_launch(exposure, expose, s));
        CHECK_SUCCESS(MPIX_Win_post_stream(to_left, win, exposure));
        CHECK_SUCCESS(MPIX_Host_stream_launch(access, produce, s));
        CHECK_SUCCESS(MPI_Win_start(to_right, MPIX_MODE_STREAM, win));
        CHECK_SUCCESS(
            MPI_Put(s->origin, 1, every2nd, s->right, CONTIG * sizeof(double), N, MPI_DOUBLE, win));
        CHECK_SUCCESS(
            MPI_Put(s->origin, 1, every2nd, s->right, STRIDED * sizeof(double), 1, every3rd, win));
        CHECK_SUCCESS(MPI_Get(s->get_buf, 1, every2nd, s->right, GETSRC * sizeof(double), N,
                              MPI_DOUBLE, win));
        CHECK_SUCCESS(MPI_Accumulate(s->acc_origin, 1, int_every2nd, s->right,
                                     WIN_DOUBLES * sizeof(double), N, MPI_INT, MPI_SUM, win));
        CHECK_SUCCESS(MPIX_Win_complete_stream(win, access));
        CHECK_SUCCESS(MPIX_Host_stream_launch(access, after_complete, s));
        CHECK_SUCCESS(MPIX_Win_wait_stream(win, exposure));
        CHECK_SUCCESS(MPIX_Host_stream_launch(exposure, after_wait, s));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(exposure));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(access));
    CHECK_INT(s->access_iter, ITERS);
    CHECK_INT(s->exposure_iter, ITERS);
    CHECK_INT(s->access_errors, 0);
    CHECK_INT(s->exposure_errors, 0);

    /* Self as the only target, contiguous on both sides. */
    static double mine[N];
    for (int j = 0; j < N; j++)
        mine[j] = rank + j * 0.5;
    CHECK_SUCCESS(MPIX_Win_post_stream(self, win, exposure));
    CHECK_SUCCESS(MPI_Win_start(self, MPIX_MODE_STREAM, win));
    CHECK_SUCCESS(MPI_Put(mine, N, MPI_DOUBLE, rank, CONTIG * sizeof(double), N, MPI_DOUBLE, win));
    CHECK_SUCCESS(MPIX_Win_complete_stream(win, exposure));
    CHECK_SUCCESS(MPIX_Win_wait_stream(win, exposure));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(exposure));
    for (int j = 0; j < N; j++)
        CHECK(s->win[CONTIG + j] == rank + j * 0.5, "self put [%d] = %g", j, s->win[CONTIG + j]);

    /* The same window with ordinary PSCW, then streams again. */
    static double token;
    token = rank + 0.25;
    CHECK_SUCCESS(MPI_Win_post(to_left, 0, win));
    CHECK_SUCCESS(MPI_Win_start(to_right, 0, win));
    CHECK_SUCCESS(
        MPI_Put(&token, 1, MPI_DOUBLE, s->right, CONTIG * sizeof(double), 1, MPI_DOUBLE, win));
    CHECK_SUCCESS(MPI_Win_complete(win));
    CHECK_SUCCESS(MPI_Win_wait(win));
    CHECK(s->win[CONTIG] == s->left + 0.25, "PSCW put: %g", s->win[CONTIG]);
    token = rank + 0.75;
    CHECK_SUCCESS(MPIX_Win_post_stream(to_left, win, access));
    CHECK_SUCCESS(MPI_Win_start(to_right, MPIX_MODE_STREAM, win));
    CHECK_SUCCESS(
        MPI_Put(&token, 1, MPI_DOUBLE, s->right, CONTIG * sizeof(double), 1, MPI_DOUBLE, win));
    CHECK_SUCCESS(MPIX_Win_complete_stream(win, access));
    CHECK_SUCCESS(MPIX_Win_wait_stream(win, access));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(access));
    CHECK(s->win[CONTIG] == s->left + 0.75, "stream put after PSCW: %g", s->win[CONTIG]);
    CHECK_SUCCESS(MPIX_Host_stream_free(&exposure));
    CHECK_SUCCESS(MPIX_Host_stream_free(&access));
    CHECK_SUCCESS(MPI_Win_free(&win));
    MPI_Type_free(&every2nd);
    MPI_Type_free(&every3rd);
    MPI_Type_free(&int_every2nd);
    MPI_Group_free(&self);
    MPI_Group_free(&to_right);
    MPI_Group_free(&to_left);
    MPI_Group_free(&world);
    free(s);
    return mtest_finish();
}
