/* Persistent stream transfers between ranks of one node move their rounds
 * through shared-memory channels (src/mpi/enqueue/channel.h); this test
 * covers what the channel must get right, and runs on messages too
 * (testlist: STMPI_ENQUEUE_CHANNEL_BYTES=0, STMPI_DEVICE_NOLOCAL=yes) and
 * with every channel refused (STMPI_ENQUEUE_CHANNEL_REFUSE=yes, the
 * senders' fallback):
 *  - types: a ring where each rank sends a vector (every other double) and
 *    receives contiguously, and sends contiguously into a vector receive
 *    whose gaps must keep their values; every round checked;
 *  - a sender far ahead: rank 0 completes ROUNDS rounds (more than the
 *    channel's slots) and frees its request before rank 1 has even made its
 *    receive, then does the same with a second request of the same size;
 *    rank 1 then receives both in order, every value checked;
 *  - a receiver slower than its sender once both run rounds as stream
 *    programs: the sender must wait for free slots. */
#include <stdlib.h>
#include <unistd.h>

#include "mtest.h"
#include "stream-triggering.h"

#define N 24
#define ITERS 300
#define ROUNDS 24
#define SENTINEL -7.0

struct ring {
    int rank, left, step;
    double vsend[2 * N], crecv[N]; /* vector send, contiguous receive */
    double csend[N], vrecv[2 * N]; /* contiguous send, vector receive */
    long errors;
};

static double value(int rank, int step, int j, int which)
{
    return rank * 1e6 + step * 100.0 + j + which * 0.5;
}

static void produce(void *arg)
{
    struct ring *r = arg;
    for (int j = 0; j < N; j++) {
        r->vsend[2 * j] = value(r->rank, r->step, j, 0);
        r->vsend[2 * j + 1] = SENTINEL; /* not part of the vector: never sent */
        r->csend[j] = value(r->rank, r->step, j, 1);
    }
}

static void consume(void *arg)
{
    struct ring *r = arg;
    for (int j = 0; j < N; j++) {
        if (r->crecv[j] != value(r->left, r->step, j, 0))
            r->errors++;
        if (r->vrecv[2 * j] != value(r->left, r->step, j, 1))
            r->errors++;
        if (r->vrecv[2 * j + 1] != SENTINEL)
            r->errors++;
    }
    r->step++;
}

struct ahead {
    int step, base;
    long data[8], errors;
};

static void ahead_produce(void *arg)
{
    struct ahead *a = arg;
    for (int j = 0; j < 8; j++)
        a->data[j] = a->base + a->step * 8L + j;
    a->step++;
}

static void ahead_clear(void *arg)
{
    struct ahead *a = arg;
    for (int j = 0; j < 8; j++)
        a->data[j] = -1;
}

static void ahead_consume(void *arg)
{
    struct ahead *a = arg;
    for (int j = 0; j < 8; j++)
        if (a->data[j] != a->base + a->step * 8L + j)
            a->errors++;
    a->step++;
}

static void ahead_consume_slowly(void *arg)
{
    usleep(100);
    ahead_consume(arg);
}

/* A receiver slower than its sender, both started once the channel is
 * mapped (rounds as stream programs): the sender's stream must wait for a
 * free slot instead of overwriting a round not yet read. */
static void run_slow_receiver(int rank, MPIS_Queue queue, MPIX_Host_stream host)
{
    static struct ahead a;
    a.step = 0;
    a.base = 9000;
    a.errors = 0;
    MPIS_Request req;
    if (rank == 0) {
        CHECK_SUCCESS(
            MPIS_Send_init(a.data, 8, MPI_LONG, 1, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        CHECK_SUCCESS(MPIS_Match(&req, MPI_STATUS_IGNORE));
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD)); /* rank 1 started its first round */
    } else {
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD)); /* the envelope is on its way */
        CHECK_SUCCESS(
            MPIS_Recv_init(a.data, 8, MPI_LONG, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
        CHECK_SUCCESS(MPIS_Match(&req, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0) {
            CHECK_SUCCESS(MPIX_Host_stream_launch(host, ahead_produce, &a));
            CHECK_SUCCESS(MPIS_Enqueue_start(queue, &req));
            CHECK_SUCCESS(MPIS_Enqueue_waitall(queue));
        } else {
            CHECK_SUCCESS(MPIX_Host_stream_launch(host, ahead_clear, &a));
            CHECK_SUCCESS(MPIS_Enqueue_start(queue, &req));
            CHECK_SUCCESS(MPIS_Enqueue_waitall(queue));
            CHECK_SUCCESS(MPIX_Host_stream_launch(host, ahead_consume_slowly, &a));
            if (i == 0)
                CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        }
    }
    CHECK_SUCCESS(MPIS_Queue_wait(queue));
    CHECK_INT(a.step, ROUNDS);
    CHECK(a.errors == 0, "slow receiver: %ld wrong values", a.errors);
    CHECK_SUCCESS(MPIS_Request_free(&req));
}

/* One request's ROUNDS rounds from rank 0 to rank 1 with tag `tag`. */
static void run_ahead(int rank, MPIS_Queue queue, MPIX_Host_stream host, int tag, int base)
{
    static struct ahead a;
    a.step = 0;
    a.base = base;
    a.errors = 0;
    MPIS_Request req;
    if (rank == 0)
        CHECK_SUCCESS(
            MPIS_Send_init(a.data, 8, MPI_LONG, 1, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    else
        CHECK_SUCCESS(
            MPIS_Recv_init(a.data, 8, MPI_LONG, 0, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_SUCCESS(MPIS_Match(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < ROUNDS; i++) {
        if (rank == 0)
            CHECK_SUCCESS(MPIX_Host_stream_launch(host, ahead_produce, &a));
        else /* on the stream: the round's data must land after this */
            CHECK_SUCCESS(MPIX_Host_stream_launch(host, ahead_clear, &a));
        CHECK_SUCCESS(MPIS_Enqueue_start(queue, &req));
        CHECK_SUCCESS(MPIS_Enqueue_waitall(queue));
        if (rank == 1)
            CHECK_SUCCESS(MPIX_Host_stream_launch(host, ahead_consume, &a));
    }
    CHECK_SUCCESS(MPIS_Queue_wait(queue));
    CHECK_INT(a.step, ROUNDS);
    CHECK(a.errors == 0, "tag %d: %ld wrong values", tag, a.errors);
    /* The sender frees its request while the receiver may not have its
     * rounds yet: they must still arrive. */
    CHECK_SUCCESS(MPIS_Request_free(&req));
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static struct ring r;
    r.rank = rank;
    r.left = (rank + size - 1) % size;
    const int right = (rank + 1) % size;

    MPIX_Host_stream host;
    CHECK_SUCCESS(MPIX_Host_stream_create(&host));
    MPIS_Queue queue;
    CHECK_SUCCESS(MPIS_Queue_init(&queue, THREAD, &host));

    MPI_Datatype every_other;
    CHECK_SUCCESS(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every_other));
    CHECK_SUCCESS(MPI_Type_commit(&every_other));
    for (int j = 0; j < 2 * N; j++)
        r.vrecv[j] = SENTINEL;
    MPIS_Request reqs[4];
    CHECK_SUCCESS(
        MPIS_Recv_init(r.crecv, N, MPI_DOUBLE, r.left, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    CHECK_SUCCESS(MPIS_Recv_init(r.vrecv, 1, every_other, r.left, 2, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &reqs[1]));
    CHECK_SUCCESS(
        MPIS_Send_init(r.vsend, 1, every_other, right, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
    CHECK_SUCCESS(
        MPIS_Send_init(r.csend, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[3]));
    CHECK_SUCCESS(MPIS_Matchall(4, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < ITERS; i++) {
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, produce, &r));
        CHECK_SUCCESS(MPIS_Enqueue_startall(queue, 4, reqs));
        CHECK_SUCCESS(MPIS_Enqueue_waitall(queue));
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, consume, &r));
    }
    CHECK_SUCCESS(MPIS_Queue_wait(queue));
    CHECK_INT(r.step, ITERS);
    CHECK(r.errors == 0, "ring: %ld wrong values", r.errors);
    CHECK_SUCCESS(MPIS_Request_freeall(4, reqs));
    CHECK_SUCCESS(MPI_Type_free(&every_other));

    if (size >= 2 && rank < 2) {
        /* Rank 1 makes its receives only after rank 0 finished both
         * senders' rounds (the barrier), so rank 0 runs ROUNDS ahead. */
        if (rank == 1)
            CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        run_ahead(rank, queue, host, 7, 1000);
        run_ahead(rank, queue, host, 8, 5000);
        if (rank == 0)
            CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        run_slow_receiver(rank, queue, host);
    } else if (size >= 2) {
        for (int b = 0; b < 3; b++)
            CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
    }

    CHECK_SUCCESS(MPIS_Queue_free(&queue));
    CHECK_SUCCESS(MPIX_Host_stream_free(&host));
    return mtest_finish();
}
