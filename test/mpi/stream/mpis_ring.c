/* MPI Advance's persistent stream-triggering calls (mpis.h) on a host
 * stream: one send and one receive per rank of a ring, made and matched
 * once (MPIS_Send_init, MPIS_Recv_init, MPIS_Matchall), started ITERS times
 * from the queue (MPIS_Enqueue_startall, MPIS_Enqueue_waitall) between a
 * produce kernel and a consume kernel that checks every value; the stream
 * is synchronized once (MPIS_Queue_wait). Then a persistent allreduce and
 * barrier started from the queue, MPIS_Imatch with MPIS_Wait, and the
 * errors: a start before the match, a wildcard receive, a queue type that
 * does not exist, a GPU queue in a run without that GPU backend. */
#include <stdlib.h>

#include "mtest.h"
#include "stream-triggering.h"

#define N 16
#define ITERS 1000

struct ring {
    int rank, left, step;
    double send[N], recv[N];
    long errors;
};

static void produce(void *arg)
{
    struct ring *r = arg;
    for (int j = 0; j < N; j++)
        r->send[j] = r->rank * 1e6 + r->step * 10.0 + j;
}

static void consume(void *arg)
{
    struct ring *r = arg;
    for (int j = 0; j < N; j++)
        if (r->recv[j] != r->left * 1e6 + r->step * 10.0 + j)
            r->errors++;
    r->step++;
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static struct ring r;
    r.rank = rank;
    r.left = (rank + size - 1) % size;
    const int right = (rank + 1) % size;

    MPIX_Host_stream host;
    CHECK_SUCCESS(MPIX_Host_stream_create(&host));
    MPIS_Queue queue;
    CHECK_SUCCESS(MPIS_Queue_init(&queue, THREAD, &host));
    MPIS_Request reqs[2];
    CHECK_SUCCESS(
        MPIS_Recv_init(r.recv, N, MPI_DOUBLE, r.left, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
    CHECK_SUCCESS(
        MPIS_Send_init(r.send, N, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
    /* Not matched yet: refused, nothing enqueued. */
    CHECK_ERR_CLASS(MPIS_Enqueue_start(queue, &reqs[0]), MPI_ERR_REQUEST);
    CHECK_SUCCESS(MPIS_Matchall(2, reqs, MPI_STATUSES_IGNORE));
    int matched = 0;
    CHECK_SUCCESS(MPIS_Is_matched(&reqs[1], &matched));
    CHECK_INT(matched, 1);
    for (int i = 0; i < ITERS; i++) {
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, produce, &r));
        CHECK_SUCCESS(MPIS_Enqueue_startall(queue, 2, reqs));
        CHECK_SUCCESS(MPIS_Enqueue_waitall(queue));
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, consume, &r));
    }
    CHECK_SUCCESS(MPIS_Queue_wait(queue));
    CHECK_INT(r.step, ITERS);
    CHECK(r.errors == 0, "%ld wrong values", r.errors);

    /* Collectives started from the queue. */
    static long mine, total;
    mine = rank + 1;
    MPIS_Request coll[2];
    CHECK_SUCCESS(MPIS_Allreduce_init(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &coll[0]));
    CHECK_SUCCESS(MPIS_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &coll[1]));
    MPIS_Request m0, m1;
    CHECK_SUCCESS(MPIS_Imatch(&coll[0], &m0));
    CHECK_SUCCESS(MPIS_Imatch(&coll[1], &m1));
    CHECK_SUCCESS(MPIS_Wait(&m0, MPI_STATUS_IGNORE));
    CHECK_SUCCESS(MPIS_Wait(&m1, MPI_STATUS_IGNORE));
    CHECK(m0 == MPIS_REQUEST_NULL, "MPIS_Wait left the handle");
    for (int k = 0; k < 3; k++)
        CHECK_SUCCESS(MPIS_Enqueue_startall(queue, 2, coll));
    CHECK_SUCCESS(MPIS_Enqueue_waitall(queue));
    CHECK_SUCCESS(MPIS_Queue_wait(queue));
    CHECK(total == (long)size * (size + 1) / 2, "allreduce gave %ld", total);

    /* Errors. */
    MPIS_Request bad;
    CHECK_ERR_CLASS(MPIS_Recv_init(r.recv, N, MPI_DOUBLE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &bad),
                    MPI_ERR_RANK);
    int rc = MPIS_Recv_init(r.recv, N, MPI_DOUBLE, r.left, MPI_ANY_TAG, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
    CHECK_ERR_STRING(rc, "MPIS_Recv_init");
    MPIS_Queue other;
    CHECK_ERR_CLASS(MPIS_Queue_init(&other, (MPIS_Queue_type)7, &host), MPI_ERR_ARG);
    void *fake_gpu_stream = &r;
    rc = MPIS_Queue_init(&other, GPU_MEM_OPS, &fake_gpu_stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "MPIS_Queue_init");
    CHECK_ERR_CLASS(MPIS_Enqueue_waitall(MPIS_QUEUE_NULL), MPI_ERR_ARG);

    CHECK_SUCCESS(MPIS_Request_freeall(2, reqs));
    CHECK_SUCCESS(MPIS_Request_freeall(2, coll));
    CHECK(reqs[0] == MPIS_REQUEST_NULL, "MPIS_Request_freeall left a handle");
    CHECK_SUCCESS(MPIS_Queue_free(&queue));
    CHECK_SUCCESS(MPIX_Host_stream_free(&host));
    return mtest_finish();
}
