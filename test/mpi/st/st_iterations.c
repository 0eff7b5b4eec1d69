/* Many stream-triggered epochs enqueued without CPU synchronization, with
 * user kernels on the same stream that change the origin data before each
 * epoch and consume the received data after it; checked bit for bit
 * against the same computation done on the CPU with ordinary PSCW on a
 * second window, in the same loop (ST and ordinary epochs mixed, on
 * different windows). Each rank exchanges with its left and right
 * neighbours: two puts and two accumulates (a long, atomically by CPU
 * atomics, and a double, under the accumulate lock) per epoch. The stream
 * is synchronized once, at the end. Checks the launch statistics and, with
 * STMPI_ST_MAX_PENDING_EPOCHS set, that plans in flight stay bounded.
 *
 * args: "oracle" computes the reference without communication instead:
 * each rank runs its neighbours' produce kernels itself and applies their
 * puts and accumulates to a local copy of its window, in the order the
 * epochs deliver them, so the check is still bit for bit. Used across
 * nodes, where ordinary PSCW over the sockets provider costs tens of ms an
 * epoch and dominated the run (the PSCW path has tests of its own). */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define M 64
#define ITERS 200

/* Window layout (bytes): from_left[M] doubles, from_right[M] doubles,
 * then a long counter and a double sum. */
#define FROM_LEFT 0
#define FROM_RIGHT (M * sizeof(double))
#define COUNTER (2 * M * sizeof(double))
#define SUM (COUNTER + sizeof(double))
#define WIN_BYTES (SUM + sizeof(double))

struct state {
    int rank;
    int iter;
    double src[M];
    double result[M];
    char *win_mem;
    long counters_seen[ITERS];
    double sums_seen[ITERS];
};

static void produce(struct state *s)
{
    for (int j = 0; j < M; j++)
        s->src[j] = s->src[j] * 0.5 + s->rank + s->iter + j;
}

static void consume(struct state *s)
{
    const double *left = (const double *)(s->win_mem + FROM_LEFT);
    const double *right = (const double *)(s->win_mem + FROM_RIGHT);
    for (int j = 0; j < M; j++)
        s->result[j] = s->result[j] * 0.25 + left[j] - 2.0 * right[j];
    s->counters_seen[s->iter] = *(const long *)(s->win_mem + COUNTER);
    s->sums_seen[s->iter] = *(const double *)(s->win_mem + SUM);
    s->iter++;
}

static void produce_kernel(void *arg) { produce(arg); }
static void consume_kernel(void *arg) { consume(arg); }

static void exchange(struct state *s, MPI_Win win, int left, int right)
{
    /* Origin buffers are read when the stream runs the epoch: no locals. */
    static const long one = 1;
    CHECK_SUCCESS(MPI_Put(s->src, M, MPI_DOUBLE, right, FROM_LEFT, M, MPI_DOUBLE, win));
    CHECK_SUCCESS(MPI_Put(s->src, M, MPI_DOUBLE, left, FROM_RIGHT, M, MPI_DOUBLE, win));
    CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, right, COUNTER, 1, MPI_LONG, MPI_SUM, win));
    CHECK_SUCCESS(
        MPI_Accumulate(&s->src[1], 1, MPI_DOUBLE, left, SUM, 1, MPI_DOUBLE, MPI_SUM, win));
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    const char *limit_env = getenv("STMPI_ST_MAX_PENDING_EPOCHS");
    const long long limit = limit_env ? atoll(limit_env) : 0;

    int nbrs[2] = {left, right};
    MPI_Group world, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, left == right ? 1 : 2, nbrs, &group);

    const int oracle = argc > 1 && strcmp(argv[1], "oracle") == 0;
    /* st, the PSCW reference (or the oracle's own rank), the oracle's left
     * and right neighbours. */
    struct state *st = calloc(4, sizeof *st), *ref = st + 1, *from_left = st + 2,
                 *from_right = st + 3;
    MPI_Win st_win, ref_win = MPI_WIN_NULL;
    CHECK_SUCCESS(
        MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &st->win_mem, &st_win));
    MPI_Win_set_errhandler(st_win, MPI_ERRORS_RETURN);
    if (oracle) {
        ref->win_mem = calloc(1, WIN_BYTES);
    } else {
        CHECK_SUCCESS(
            MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &ref->win_mem, &ref_win));
        MPI_Win_set_errhandler(ref_win, MPI_ERRORS_RETURN);
    }
    st->rank = ref->rank = rank;
    from_left->rank = left;
    from_right->rank = right;
    MPI_Barrier(MPI_COMM_WORLD);

    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    long long max_pending = 0;
    for (int i = 0; i < ITERS; i++) {
        /* Stream-triggered: enqueued, returns at once. */
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, produce_kernel, st));
        CHECK_SUCCESS(MPIX_Win_post_stream(group, st_win, stream));
        CHECK_SUCCESS(MPI_Win_start(group, MPIX_MODE_STREAM, st_win));
        exchange(st, st_win, left, right);
        CHECK_SUCCESS(MPIX_Win_complete_stream(st_win, stream));
        CHECK_SUCCESS(MPIX_Win_wait_stream(st_win, stream));
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, consume_kernel, st));

        if (oracle) {
            /* What the neighbours send this iteration, applied here: the left
             * one puts FROM_LEFT and adds 1 to COUNTER, the right one puts
             * FROM_RIGHT and adds its src[1] to SUM. */
            from_left->iter = from_right->iter = ref->iter;
            produce(from_left);
            produce(from_right);
            memcpy(ref->win_mem + FROM_LEFT, from_left->src, sizeof from_left->src);
            memcpy(ref->win_mem + FROM_RIGHT, from_right->src, sizeof from_right->src);
            *(long *)(ref->win_mem + COUNTER) += 1;
            *(double *)(ref->win_mem + SUM) += from_right->src[1];
            consume(ref);
        } else {
            /* The same iteration on the CPU with ordinary PSCW. */
            produce(ref);
            CHECK_SUCCESS(MPI_Win_post(group, 0, ref_win));
            CHECK_SUCCESS(MPI_Win_start(group, 0, ref_win));
            exchange(ref, ref_win, left, right);
            CHECK_SUCCESS(MPI_Win_complete(ref_win));
            CHECK_SUCCESS(MPI_Win_wait(ref_win));
            consume(ref);
        }

        long long pending = -1;
        CHECK_SUCCESS(MPIX_Win_get_stream_pending(st_win, &pending));
        if (pending > max_pending)
            max_pending = pending;
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));

    CHECK_INT(st->iter, ITERS);
    int mismatches = 0;
    for (int j = 0; j < M; j++)
        if (st->result[j] != ref->result[j] && mismatches++ < 5)
            CHECK(0, "result[%d] = %.17g with streams, %.17g with PSCW", j, st->result[j],
                  ref->result[j]);
    for (int i = 0; i < ITERS; i++) {
        CHECK(st->counters_seen[i] == i + 1, "iteration %d: counter %ld, expected %d", i,
              st->counters_seen[i], i + 1);
        CHECK(st->counters_seen[i] == ref->counters_seen[i], "iteration %d: counter %ld vs %ld", i,
              st->counters_seen[i], ref->counters_seen[i]);
        CHECK(st->sums_seen[i] == ref->sums_seen[i], "iteration %d: sum %.17g vs %.17g", i,
              st->sums_seen[i], ref->sums_seen[i]);
    }

    long long epochs, signals, copies, waits, pending = -1;
    CHECK_SUCCESS(MPIX_Win_get_stream_stats(st_win, &epochs, &signals, &copies, &waits));
    CHECK_INT(epochs, 2 * ITERS);  /* one access and one exposure epoch per iteration */
    CHECK_INT(signals, 2 * ITERS); /* post; completion */
    CHECK_INT(waits, 2 * ITERS);   /* exposure of the targets; completions of the origins */
    CHECK_INT(copies, ITERS);      /* puts and accumulates of the epoch together */
    CHECK_SUCCESS(MPIX_Win_get_stream_pending(st_win, &pending));
    CHECK_INT(pending, 0);
    if (limit > 0)
        CHECK(max_pending <= limit, "%lld plans pending, limit %lld", max_pending, limit);
    if (!oracle) {
        CHECK_SUCCESS(MPIX_Win_get_stream_stats(ref_win, &epochs, &signals, &copies, &waits));
        CHECK_INT(epochs + signals + copies + waits, 0);
    }

    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    CHECK_SUCCESS(MPI_Win_free(&st_win));
    if (oracle)
        free(ref->win_mem);
    else
        CHECK_SUCCESS(MPI_Win_free(&ref_win));
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    free(st);
    return mtest_finish();
}
