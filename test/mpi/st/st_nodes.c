/* Stream-triggered epochs on windows that span nodes (also runs on one
 * node, where every peer is local). Every rank posts to and starts on every
 * other rank (a mixed group with 2 nodes x 2 ranks: one peer on this node,
 * two on the other); per epoch each origin puts a block and accumulates a
 * counter at every target, ITERS epochs without CPU synchronization, and a
 * kernel on the stream checks the received data after each epoch.
 *
 * args (one; a suffix after "run" only names the log):
 *   run          the exchange; checks data, launch counts, and the
 *                triggered-op statistics (posted == fired, nothing held at
 *                the end; with STMPI_ST_COUNTERS or STMPI_ST_TRIGGERED_OPS
 *                small and a static or adaptive STMPI_ST_THROTTLE, that
 *                calls did throttle: under static every wait reclaimed the
 *                window's outstanding epochs and none ended while an earlier
 *                epoch still held a counter; under adaptive some did, on some
 *                rank: counters reused as their own epoch completed); then
 *                ITERS epochs of MPI_Get from every other rank (contiguous
 *                and into a strided buffer), checked on the stream. With STMPI_ST_TRIGGER
 *                native or deferred on a provider without that path, the
 *                first post must say so (MPI_ERR_UNSUPPORTED_OPERATION).
 *   application  STMPI_ST_THROTTLE=application with STMPI_ST_COUNTERS=2
 *                (or a small STMPI_ST_TRIGGERED_OPS): an epoch that does not
 *                fit is MPI_ERR_OTHER naming that parameter, and nothing
 *                hangs (STMPI_ST_WAIT_TIMEOUT).
 *   fault        STMPI_ST_FAULT_INJECT=n and STMPI_ST_WAIT_TIMEOUT: a call
 *                on the window reports MPI_ERR_OTHER (the injected failure,
 *                or the stalled wait naming the epoch and peer), no hang.
 *   stall        STMPI_ST_COUNTERS=2, adaptive, STMPI_ST_WAIT_TIMEOUT=S: the
 *                stream is held by a closed gate while an exposure epoch
 *                holds a counter, so a put to another node can never get the
 *                2 counters of its access epoch; after S seconds MPI_Put
 *                fails with MPI_ERR_OTHER naming STMPI_ST_WAIT_TIMEOUT
 *                instead of waiting forever. Then the gate opens, the epochs
 *                close, and a full exchange epoch on the window is exact. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

#define M 32
#define ITERS 30

struct state {
    int rank, size, iter, bad;
    double *win_mem; /* [size][M] blocks, then [size] counters (long) */
    double src[M];
};

static long *counters(struct state *s) { return (long *)(s->win_mem + (size_t)s->size * M); }

static double value(int origin, int iter, int j) { return origin * 1000.0 + iter + j * 0.5; }

static void produce(void *arg)
{
    struct state *s = arg;
    for (int j = 0; j < M; j++)
        s->src[j] = value(s->rank, s->iter, j);
}

static void consume(void *arg)
{
    struct state *s = arg;
    for (int o = 0; o < s->size; o++) {
        if (o == s->rank)
            continue;
        for (int j = 0; j < M; j++)
            if (s->win_mem[o * M + j] != value(o, s->iter, j))
                s->bad++;
        if (counters(s)[o] != s->iter + 1)
            s->bad++;
    }
    s->iter++;
}

static long long env_int(const char *name)
{
    const char *v = getenv(name);
    return v ? atoll(v) : -1;
}

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

static int gate_open;

/* Holds the stream until the main thread opens the gate. */
static void gate(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE))
        usleep(1000);
}

/* One epoch; returns the first error (the epochs it opened are closed). */
static int epoch(struct state *s, MPI_Group group, MPI_Win win, MPIX_Host_stream stream)
{
    static const long one = 1;
    int first = MPI_SUCCESS, rc;
#define KEEP(call)                                     \
    do {                                               \
        rc = (call);                                   \
        if (rc != MPI_SUCCESS && first == MPI_SUCCESS) \
            first = rc;                                \
    } while (0)
    KEEP(MPIX_Host_stream_launch(stream, produce, s));
    rc = MPIX_Win_post_stream(group, win, stream);
    int posted = rc == MPI_SUCCESS;
    if (rc != MPI_SUCCESS && first == MPI_SUCCESS)
        first = rc;
    rc = MPI_Win_start(group, MPIX_MODE_STREAM, win);
    int started = rc == MPI_SUCCESS;
    if (rc != MPI_SUCCESS && first == MPI_SUCCESS)
        first = rc;
    for (int t = 0; started && t < s->size; t++) {
        if (t == s->rank)
            continue;
        KEEP(MPI_Put(s->src, M, MPI_DOUBLE, t, (MPI_Aint)s->rank * M * sizeof(double), M,
                     MPI_DOUBLE, win));
        KEEP(MPI_Accumulate(
            &one, 1, MPI_LONG, t,
            (MPI_Aint)((size_t)s->size * M * sizeof(double) + s->rank * sizeof(long)), 1, MPI_LONG,
            MPI_SUM, win));
    }
    if (started)
        KEEP(MPIX_Win_complete_stream(win, stream));
    if (posted) {
        rc = MPIX_Win_wait_stream(win, stream);
        if (rc != MPI_SUCCESS) {
            if (first == MPI_SUCCESS)
                first = rc;
            KEEP(MPIX_Win_wait_stream(win, stream)); /* reported once: now it closes */
        }
    }
    KEEP(MPIX_Host_stream_launch(stream, consume, s));
#undef KEEP
    return first;
}

/* The read phase: MPI_Get in stream epochs. */
struct gets {
    struct state *s;
    int iter, bad;
    double *got;     /* [size][M]: contiguous reads */
    double *strided; /* [size][M]: every other element of the first M/2 */
};

static double gvalue(int owner, int iter, int j) { return -(owner * 1000.0 + iter + j * 0.25); }

static void gproduce(void *arg)
{
    struct gets *g = arg;
    for (int j = 0; j < M; j++)
        g->s->win_mem[g->s->rank * M + j] = gvalue(g->s->rank, g->iter, j);
}

static void gconsume(void *arg)
{
    struct gets *g = arg;
    for (int o = 0; o < g->s->size; o++) {
        if (o == g->s->rank)
            continue;
        for (int j = 0; j < M; j++) {
            if (g->got[o * M + j] != gvalue(o, g->iter, j))
                g->bad++;
            const double want = j % 2 == 0 ? gvalue(o, g->iter, j / 2) : 0.0;
            if (g->strided[o * M + j] != want)
                g->bad++;
        }
    }
    g->iter++;
}

static int get_epoch(struct gets *g, MPI_Group group, MPI_Win win, MPIX_Host_stream stream,
                     MPI_Datatype every_other)
{
    struct state *s = g->s;
    CHECK_SUCCESS(MPIX_Host_stream_launch(stream, gproduce, g));
    CHECK_SUCCESS(MPIX_Win_post_stream(group, win, stream));
    CHECK_SUCCESS(MPI_Win_start(group, MPIX_MODE_STREAM, win));
    for (int t = 0; t < s->size; t++) {
        if (t == s->rank)
            continue;
        const MPI_Aint at = (MPI_Aint)t * M * sizeof(double);
        CHECK_SUCCESS(MPI_Get(g->got + t * M, M, MPI_DOUBLE, t, at, M, MPI_DOUBLE, win));
        CHECK_SUCCESS(MPI_Get(g->strided + t * M, 1, every_other, t, at, M / 2, MPI_DOUBLE, win));
    }
    CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
    int rc = MPIX_Win_wait_stream(win, stream);
    CHECK_SUCCESS(MPIX_Host_stream_launch(stream, gconsume, g));
    return rc;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "run";
    struct state s = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);

    /* Which ranks share this node. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_size, remote = -1;
    MPI_Comm_size(node, &node_size);
    MPI_Group world, node_group, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(node, &node_group);
    for (int r = 0; r < s.size && remote < 0; r++) {
        int in_node;
        MPI_Group_translate_ranks(world, 1, &r, node_group, &in_node);
        if (in_node == MPI_UNDEFINED)
            remote = r;
    }
    const int me[1] = {s.rank};
    MPI_Group_excl(world, 1, me, &group);

    const MPI_Aint bytes = (MPI_Aint)s.size * (M * sizeof(double) + sizeof(long));
    MPI_Win win;
    CHECK_SUCCESS(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &s.win_mem, &win));
    memset(s.win_mem, 0, bytes);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));

    if (strncmp(mode, "run", 3) == 0) {
        const int explicit_nic =
            env_is("STMPI_ST_TRIGGER", "native") || env_is("STMPI_ST_TRIGGER", "deferred");
        int rc = epoch(&s, group, win, stream);
        if (rc != MPI_SUCCESS && explicit_nic && remote >= 0) {
            /* The provider lacks that path: said at the first post. */
            CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
            CHECK_ERR_STRING(rc, "STMPI_ST_TRIGGER");
            CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
            goto done;
        }
        CHECK_SUCCESS(rc);
        for (int i = 1; i < ITERS; i++)
            CHECK_SUCCESS(epoch(&s, group, win, stream));
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
        CHECK_INT(s.iter, ITERS);
        CHECK_INT(s.bad, 0);
        long long epochs, signals, copies, waits;
        CHECK_SUCCESS(MPIX_Win_get_stream_stats(win, &epochs, &signals, &copies, &waits));
        CHECK_INT(epochs, 2 * ITERS);
        CHECK_INT(signals, 2 * ITERS);
        CHECK_INT(waits, 2 * ITERS);
        CHECK_INT(copies, ITERS);
        MPIX_Stream_trigger_stats t;
        CHECK_SUCCESS(MPIX_Win_get_stream_trigger_stats(win, &t, (int)sizeof t));
        /* On a NIC path the last epoch's completions (acknowledged after the
         * peers saw the data) may still be on their way: the stats call
         * reclaims what completed, so ask again for a while. */
        for (int tries = 0; tries < 10000 && t.counters_in_use != 0; tries++) {
            usleep(1000);
            CHECK_SUCCESS(MPIX_Win_get_stream_trigger_stats(win, &t, (int)sizeof t));
        }
        if (remote >= 0) {
            const long long remote_peers = s.size - node_size;
            /* Per epoch and remote peer: a put, an accumulate, a completion
             * signal, an exposure signal. */
            CHECK_INT(t.posted, 4 * remote_peers * ITERS);
            CHECK_INT(t.fired, t.posted);
            if (env_is("STMPI_ST_TRIGGER", "software"))
                CHECK_INT(t.software_fired, t.fired);
            else if (explicit_nic)
                CHECK_INT(t.software_fired, 0);
            else /* auto: the NIC where the provider has triggered operations, else software */
                CHECK(t.software_fired == 0 || t.software_fired == t.fired,
                      "%lld of %lld fired by the software engine", t.software_fired, t.fired);
            CHECK_INT(t.counters_in_use, 0);
            CHECK(t.counters_max_in_use >= 2, "at most %lld counters in use",
                  t.counters_max_in_use);
            const long long budget = env_int("STMPI_ST_COUNTERS");
            if (budget > 0)
                CHECK(t.counters_max_in_use <= budget, "%lld counters in use, budget %lld",
                      t.counters_max_in_use, budget);
            const int small =
                (budget > 0 && budget <= 4) ||
                (env_int("STMPI_ST_TRIGGERED_OPS") > 0 && env_int("STMPI_ST_TRIGGERED_OPS") <= 16);
            long long overlapped = 0;
            if (small) {
                CHECK(t.throttle_stalls > 0 && t.throttle_ns > 0,
                      "a budget this small must throttle: %lld stalls, %lld ns", t.throttle_stalls,
                      t.throttle_ns);
                /* Every wait got its resources back from reclaimed epochs
                 * (this is the only window). */
                CHECK(t.throttle_reclaimed >= t.throttle_stalls,
                      "%lld stalls reclaimed only %lld epochs", t.throttle_stalls,
                      t.throttle_reclaimed);
                if (env_is("STMPI_ST_THROTTLE", "static"))
                    CHECK(t.throttle_overlapped == 0,
                          "static: %lld of %lld waits ended before every earlier epoch completed",
                          t.throttle_overlapped, t.throttle_stalls);
                printf(
                    "rank %d %s: %lld stalls, %.3f ms stalled (%.1f us each), %lld epochs "
                    "reclaimed, %lld waits ended with earlier epochs held\n",
                    s.rank, getenv("STMPI_ST_THROTTLE") ? getenv("STMPI_ST_THROTTLE") : "adaptive",
                    t.throttle_stalls, t.throttle_ns / 1e6,
                    t.throttle_ns / 1e3 / (double)t.throttle_stalls, t.throttle_reclaimed,
                    t.throttle_overlapped);
            }
            MPI_Allreduce(&t.throttle_overlapped, &overlapped, 1, MPI_LONG_LONG, MPI_SUM,
                          MPI_COMM_WORLD);
            /* Adaptive with 3 counters: an exposure epoch completes before the
             * access epoch beside it, so some wait takes its counter while the
             * access epoch still holds its two. */
            if (budget == 3 && !env_is("STMPI_ST_THROTTLE", "static"))
                CHECK(overlapped > 0,
                      "adaptive: no wait reused a counter while earlier epochs "
                      "were still held (%lld, all ranks)",
                      overlapped);
            MPIX_Stream_trigger_stats p;
            CHECK_SUCCESS(MPIX_Win_get_stream_trigger_stats(MPI_WIN_NULL, &p, (int)sizeof p));
            CHECK(p.posted >= t.posted, "process posted %lld < window %lld", p.posted, t.posted);
        }
        /* Reads: ITERS epochs of MPI_Get from every other rank (on this node
         * and the other), contiguous and into a strided buffer, without CPU
         * synchronization; each target refreshes its own block on its stream
         * before its post, and a host function checks what arrived after each
         * complete. */
        MPI_Barrier(MPI_COMM_WORLD);
        struct gets g = {&s, 0, 0, NULL, NULL};
        g.got = calloc((size_t)s.size * M, sizeof(double));
        g.strided = calloc((size_t)s.size * M, sizeof(double));
        MPI_Datatype every_other;
        MPI_Type_vector(M / 2, 1, 2, MPI_DOUBLE, &every_other);
        MPI_Type_commit(&every_other);
        for (int i = 0; i < ITERS; i++)
            CHECK_SUCCESS(get_epoch(&g, group, win, stream, every_other));
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
        CHECK_INT(g.iter, ITERS);
        CHECK(g.bad == 0, "%d wrong values read by MPI_Get in stream epochs", g.bad);
        MPI_Type_free(&every_other);
        free(g.got);
        free(g.strided);
    } else if (strcmp(mode, "stall") == 0) {
        const long long limit_s = env_int("STMPI_ST_WAIT_TIMEOUT");
        CHECK(limit_s > 0, "stall wants STMPI_ST_WAIT_TIMEOUT > 0");
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, gate, NULL));
        CHECK_SUCCESS(MPIX_Win_post_stream(group, win, stream));
        CHECK_SUCCESS(MPI_Win_start(group, MPIX_MODE_STREAM, win));
        if (remote >= 0) {
            const double t0 = MPI_Wtime();
            int rc = MPI_Put(s.src, M, MPI_DOUBLE, remote, (MPI_Aint)s.rank * M * sizeof(double), M,
                             MPI_DOUBLE, win);
            const double waited = MPI_Wtime() - t0;
            CHECK_ERR_CLASS(rc, MPI_ERR_OTHER);
            CHECK_ERR_STRING(rc, "STMPI_ST_WAIT_TIMEOUT");
            CHECK_ERR_STRING(rc, "trigger counters");
            CHECK(waited >= limit_s - 0.05 && waited < limit_s + 30.0,
                  "MPI_Put gave up after %.2f s, STMPI_ST_WAIT_TIMEOUT=%lld", waited, limit_s);
        }
        __atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
        CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
        CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
        MPI_Barrier(MPI_COMM_WORLD);
        /* The window still works: one exchange epoch, checked on the stream. */
        memset(s.win_mem, 0, bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_SUCCESS(epoch(&s, group, win, stream));
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
        CHECK_INT(s.iter, 1);
        CHECK_INT(s.bad, 0);
        if (remote >= 0) {
            MPIX_Stream_trigger_stats t;
            CHECK_SUCCESS(MPIX_Win_get_stream_trigger_stats(win, &t, (int)sizeof t));
            CHECK(t.throttle_stalls > 0 && t.throttle_ns >= (long long)((limit_s - 0.05) * 1e9),
                  "the stall is counted: %lld stalls, %lld ns", t.throttle_stalls, t.throttle_ns);
        }
    } else {
        /* application / fault: run until a call fails, then close cleanly. */
        int rc = MPI_SUCCESS, i;
        for (i = 0; i < ITERS && rc == MPI_SUCCESS; i++)
            rc = epoch(&s, group, win, stream);
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
        if (rc == MPI_SUCCESS) {
            /* Reported at the next call on the window. */
            rc = MPIX_Win_post_stream(MPI_GROUP_EMPTY, win, stream);
            if (rc == MPI_SUCCESS)
                CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
        }
        if (remote >= 0) {
            CHECK_ERR_CLASS(rc, MPI_ERR_OTHER);
            if (strcmp(mode, "application") == 0)
                CHECK_ERR_STRING(rc, env_int("STMPI_ST_COUNTERS") > 0 ? "STMPI_ST_COUNTERS"
                                                                      : "STMPI_ST_TRIGGERED_OPS");
            else
                CHECK(strstr(mtest_err_text(rc), "STMPI_ST_FAULT_INJECT") ||
                          strstr(mtest_err_text(rc), "STMPI_ST_WAIT_TIMEOUT") ||
                          strstr(mtest_err_text(rc), "failed"),
                      "error names the failure: %s", mtest_err_text(rc));
        } else {
            CHECK_SUCCESS(rc); /* one node: no triggered operations */
        }
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    }
done:
    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_Win_free(&win));
    MPI_Group_free(&group);
    MPI_Group_free(&node_group);
    MPI_Group_free(&world);
    MPI_Comm_free(&node);
    return mtest_finish();
}
