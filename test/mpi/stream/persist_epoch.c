/* Persistent stream-triggered epochs (MPIX_Win_epoch_init/_commit/
 * _start_stream/_free): each rank records one epoch of a ring exchange
 * (puts to both neighbours, a get from the right one) and starts it ITERS
 * times on a host stream, between a produce kernel that changes the origin
 * data and a consume kernel that checks every received value against what
 * the neighbours produced in that iteration. The stream is synchronized
 * once, at the end. Every tenth iteration the same exchange is done with
 * the per-call stream epochs instead (MPIX_Win_post_stream ...
 * MPIX_Win_wait_stream), which the persistent epoch's later starts must
 * stay paired with; the launch statistics count both kinds.
 *
 * Since the produce kernel writes the origin buffer just before each start,
 * a library that read it at enqueue time, or before the stream reached the
 * start, would send stale data and fail the checks. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define M 32
#define ITERS 1000
#define MIX_EVERY 10

/* Window layout (doubles): from_left[M], from_right[M], pub[M]. */
#define FROM_LEFT 0
#define FROM_RIGHT M
#define PUB (2 * M)

struct state {
    int rank, left, right;
    int iter;
    double src[M]; /* this iteration's data, put to both neighbours */
    double got[M]; /* the right neighbour's pub, fetched by the get */
    double *win_mem;
    long errors;
    double first_bad;
    int first_bad_iter;
};

static double value(int rank, int iter, int j) { return rank * 1e6 + iter * 100.0 + j; }

static void produce(void *arg)
{
    struct state *s = arg;
    for (int j = 0; j < M; j++) {
        s->src[j] = value(s->rank, s->iter, j);
        s->win_mem[PUB + j] = -value(s->rank, s->iter, j);
    }
}

static void bad(struct state *s, double v)
{
    if (s->errors++ == 0)
        s->first_bad = v, s->first_bad_iter = s->iter;
}

static void consume(void *arg)
{
    struct state *s = arg;
    for (int j = 0; j < M; j++) {
        if (s->win_mem[FROM_LEFT + j] != value(s->left, s->iter, j))
            bad(s, s->win_mem[FROM_LEFT + j]);
        if (s->win_mem[FROM_RIGHT + j] != value(s->right, s->iter, j))
            bad(s, s->win_mem[FROM_RIGHT + j]);
        if (s->got[j] != -value(s->right, s->iter, j))
            bad(s, s->got[j]);
    }
    s->iter++;
}

static void record(struct state *s, MPI_Win win)
{
    CHECK_SUCCESS(MPI_Put(s->src, M, MPI_DOUBLE, s->right, FROM_LEFT, M, MPI_DOUBLE, win));
    CHECK_SUCCESS(MPI_Put(s->src, M, MPI_DOUBLE, s->left, FROM_RIGHT, M, MPI_DOUBLE, win));
    CHECK_SUCCESS(MPI_Get(s->got, M, MPI_DOUBLE, s->right, PUB, M, MPI_DOUBLE, win));
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
    int nbrs[2] = {s->left, s->right};
    MPI_Group world, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, s->left == s->right ? 1 : 2, nbrs, &group);

    MPI_Win win;
    CHECK_SUCCESS(MPI_Win_allocate(3 * M * sizeof(double), sizeof(double), MPI_INFO_NULL,
                                   MPI_COMM_WORLD, &s->win_mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    memset(s->win_mem, 0, 3 * M * sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);

    MPIX_Win_epoch epoch = MPIX_WIN_EPOCH_NULL;
    CHECK_SUCCESS(MPIX_Win_epoch_init(group, group, win, &epoch));
    CHECK(epoch != MPIX_WIN_EPOCH_NULL, "MPIX_Win_epoch_init gave MPIX_WIN_EPOCH_NULL");
    record(s, win);
    CHECK_SUCCESS(MPIX_Win_epoch_commit(epoch));

    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    int per_call = 0;
    for (int i = 0; i < ITERS; i++) {
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, produce, s));
        if (i % MIX_EVERY == MIX_EVERY - 1) {
            CHECK_SUCCESS(MPIX_Win_post_stream(group, win, stream));
            CHECK_SUCCESS(MPI_Win_start(group, MPIX_MODE_STREAM, win));
            record(s, win);
            CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
            CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
            per_call++;
        } else {
            CHECK_SUCCESS(MPIX_Win_epoch_start_stream(epoch, stream));
        }
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, consume, s));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));

    CHECK_INT(s->iter, ITERS);
    CHECK(s->errors == 0, "%ld wrong values; the first %.17g in iteration %d", s->errors,
          s->first_bad, s->first_bad_iter);
    long long epochs, signals, copies, waits, pending = -1;
    CHECK_SUCCESS(MPIX_Win_get_stream_stats(win, &epochs, &signals, &copies, &waits));
    CHECK_INT(epochs, 2 * ITERS);  /* one access and one exposure epoch per iteration */
    CHECK_INT(signals, 2 * ITERS); /* posts; completions */
    CHECK_INT(waits, 2 * ITERS);   /* the targets' posts; the origins' completions */
    CHECK_INT(copies, ITERS);      /* the puts and the get of an iteration together */
    CHECK_SUCCESS(MPIX_Win_get_stream_pending(win, &pending));
    CHECK_INT(pending, 0);
    CHECK_INT(per_call, ITERS / MIX_EVERY);

    /* A second start after the synchronize: still paired. */
    CHECK_SUCCESS(MPIX_Host_stream_launch(stream, produce, s));
    CHECK_SUCCESS(MPIX_Win_epoch_start_stream(epoch, stream));
    CHECK_SUCCESS(MPIX_Host_stream_launch(stream, consume, s));
    CHECK_SUCCESS(MPIX_Win_epoch_free(&epoch));
    CHECK(epoch == MPIX_WIN_EPOCH_NULL, "MPIX_Win_epoch_free left the handle set");
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(s->iter, ITERS + 1);
    CHECK(s->errors == 0, "%ld wrong values after the last start", s->errors);

    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    CHECK_SUCCESS(MPI_Win_free(&win));
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    free(s);
    return mtest_finish();
}
