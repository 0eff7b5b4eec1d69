/* HPE Cray MPICH's queues (MPIX_Create_queue, MPIX_Enqueue_send/recv,
 * MPIX_Enqueue_start, MPIX_Enqueue_wait, MPIX_Free_queue) on a host stream:
 * a ring exchange of ITERS steps, all enqueued, the stream synchronized
 * once. Each step: the receive and the send are enqueued (envelopes matched
 * now), a produce kernel writes this step's data into the send buffer, the
 * start releases both, the wait holds the stream until they completed, a
 * consume kernel checks every received value. A library that read the send
 * buffer before the stream reached the start would send the previous
 * step's data. Then the requests complete on the host (MPI_Waitall: source,
 * tag and count of every receive), and the errors: ranks outside the
 * communicator, a handle that is no queue, a stream that is no stream,
 * freeing a queue with unstarted operations. */
#include <stdlib.h>

#include "mtest.h"

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

    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    MPIX_Queue queue;
    CHECK_SUCCESS(MPIX_Create_queue(MPI_COMM_WORLD, stream, &queue));
    MPI_Request *reqs = malloc(2 * ITERS * sizeof *reqs);
    for (int i = 0; i < ITERS; i++) {
        CHECK_SUCCESS(MPIX_Enqueue_recv(r.recv, N, MPI_DOUBLE, r.left, i % 7, queue, &reqs[2 * i]));
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, produce, &r));
        CHECK_SUCCESS(
            MPIX_Enqueue_send(r.send, N, MPI_DOUBLE, right, i % 7, queue, &reqs[2 * i + 1]));
        CHECK_SUCCESS(MPIX_Enqueue_start(queue));
        CHECK_SUCCESS(MPIX_Enqueue_wait(queue));
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, consume, &r));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(r.step, ITERS);
    CHECK(r.errors == 0, "%ld wrong values", r.errors);
    MPI_Status *statuses = malloc(2 * ITERS * sizeof *statuses);
    CHECK_SUCCESS(MPI_Waitall(2 * ITERS, reqs, statuses));
    for (int i = 0; i < ITERS; i += 97) {
        int count = -1;
        MPI_Get_count(&statuses[2 * i], MPI_DOUBLE, &count);
        CHECK(
            statuses[2 * i].MPI_SOURCE == r.left && statuses[2 * i].MPI_TAG == i % 7 && count == N,
            "step %d: source %d tag %d count %d", i, statuses[2 * i].MPI_SOURCE,
            statuses[2 * i].MPI_TAG, count);
    }

    /* Errors: nothing enqueued, nothing hangs. */
    MPI_Request bad;
    int rc = MPIX_Enqueue_send(r.send, N, MPI_DOUBLE, size, 0, queue, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING(rc, "MPIX_Enqueue_send");
    CHECK_ERR_CLASS(MPIX_Enqueue_recv(r.recv, N, MPI_DOUBLE, -5, 0, queue, &bad), MPI_ERR_RANK);
    CHECK_ERR_CLASS(MPIX_Enqueue_start((MPIX_Queue)&r), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPIX_Enqueue_wait(NULL), MPI_ERR_ARG);
    double not_a_stream[2];
    MPIX_Queue other;
    rc = MPIX_Create_queue(MPI_COMM_WORLD, not_a_stream, &other);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "MPIX_Create_queue");
    /* A self message left unstarted: the queue cannot go yet. */
    MPI_Request self[2];
    CHECK_SUCCESS(MPIX_Enqueue_recv(r.recv, 1, MPI_DOUBLE, rank, 99, queue, &self[0]));
    CHECK_SUCCESS(MPIX_Enqueue_send(r.send, 1, MPI_DOUBLE, rank, 99, queue, &self[1]));
    CHECK_ERR_CLASS(MPIX_Free_queue(queue), MPI_ERR_OTHER);
    CHECK_SUCCESS(MPIX_Enqueue_start(queue));
    CHECK_SUCCESS(MPIX_Enqueue_wait(queue));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_SUCCESS(MPI_Waitall(2, self, MPI_STATUSES_IGNORE));
    CHECK_SUCCESS(MPIX_Free_queue(queue));
    CHECK_ERR_CLASS(MPIX_Free_queue(queue), MPI_ERR_ARG);

    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    free(reqs);
    free(statuses);
    return mtest_finish();
}
