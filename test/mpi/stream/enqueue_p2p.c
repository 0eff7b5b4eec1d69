/* MPICH's enqueue API on a host stream: a ring exchange of 1000 steps, each
 * MPIX_Isend_enqueue + MPIX_Irecv_enqueue + MPIX_Waitall_enqueue plus a user
 * kernel that checks the received values and writes the next ones, with a
 * single MPIX_Host_stream_synchronize at the end; then blocking
 * MPIX_Send/Recv_enqueue with statuses (source, tag, count written when the
 * stream ran the receive), wildcards, MPI_PROC_NULL, a derived datatype and
 * the buffer rule: a send buffer changed by a kernel enqueued before the
 * send is what arrives. Last, the communicator and the stream freed while
 * enqueued transfers still wait behind a held stream (MPICH's order). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "stream_comm.h"

#define STEPS 1000
#define N 64

typedef struct {
    int rank, left, step;
    int *sendbuf, *recvbuf;
    int bad;
} Step;

static int value(int rank, int step, int i) { return rank * 1000003 + step * 131 + i; }

/* Runs on the stream before the send of `step`: fill the send buffer. */
static void fill(void *arg)
{
    Step *s = arg;
    for (int i = 0; i < N; i++)
        s->sendbuf[i] = value(s->rank, s->step, i);
}

/* Runs on the stream after the wait of `step`: check what arrived. */
static void check(void *arg)
{
    Step *s = arg;
    for (int i = 0; i < N; i++)
        if (s->recvbuf[i] != value(s->left, s->step, i))
            s->bad++;
    memset(s->recvbuf, 0xff, N * sizeof(int));
    s->step++;
}

static void next_step(void *arg) { ((Step *)arg)->step++; }

static volatile int g_open;

/* Holds the stream until the CPU opens the gate. */
static void hold(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&g_open, __ATOMIC_ACQUIRE))
        sched_yield();
}

/* MPICH's CUDA stream test frees its communicator and then its stream while
 * enqueued transfers are still queued: both frees succeed and the transfers
 * still complete. A duplicate the program still holds keeps the stream. */
static void free_while_running(MPIX_Host_stream host, int rank, int size)
{
    const int peer = rank ^ 1, paired = peer < size;
    MPIX_Stream stream;
    MPI_Comm comm = host_stream_comm(host, &stream), dup;
    int out[4] = {rank, rank + 1, rank + 2, rank + 3}, in[4] = {-1, -1, -1, -1};
    g_open = 0;
    CHECK_SUCCESS(MPIX_Host_stream_launch(host, hold, NULL));
    if (paired) {
        MPI_Request req[2];
        CHECK_SUCCESS(MPIX_Irecv_enqueue(in, 4, MPI_INT, peer, 9, comm, &req[0]));
        CHECK_SUCCESS(MPIX_Isend_enqueue(out, 4, MPI_INT, peer, 9, comm, &req[1]));
        CHECK_SUCCESS(MPIX_Waitall_enqueue(2, req, MPI_STATUSES_IGNORE));
    }
    MPI_Comm_dup(comm, &dup);
    CHECK_SUCCESS(MPI_Comm_free(&comm));
    int rc = MPIX_Stream_free(&stream);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "still used by 1 communicator");
    CHECK_SUCCESS(MPI_Comm_free(&dup));
    CHECK_SUCCESS(MPIX_Stream_free(&stream));
    CHECK(stream == MPIX_STREAM_NULL, "stream not reset");
    __atomic_store_n(&g_open, 1, __ATOMIC_RELEASE);
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
    if (paired)
        for (int i = 0; i < 4; i++)
            CHECK_INT(in[i], peer + i);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPIX_Host_stream host;
    CHECK_SUCCESS(MPIX_Host_stream_create(&host));
    MPIX_Stream stream;
    MPI_Comm comm = host_stream_comm(host, &stream);
    MPIX_Stream got;
    CHECK_SUCCESS(MPIX_Comm_get_stream(comm, 0, &got));
    CHECK(got == stream, "MPIX_Comm_get_stream gave 0x%x", (unsigned)got);

    /* 1000 steps, one synchronize. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    Step s = {rank, left, 0, malloc(N * sizeof(int)), malloc(N * sizeof(int)), 0};
    memset(s.recvbuf, 0xff, N * sizeof(int));
    Step sender = s; /* the fill kernel's own step counter */
    for (int step = 0; step < STEPS; step++) {
        MPI_Request reqs[2];
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, fill, &sender));
        CHECK_SUCCESS(MPIX_Irecv_enqueue(s.recvbuf, N, MPI_INT, left, step % 7, comm, &reqs[0]));
        CHECK_SUCCESS(MPIX_Isend_enqueue(s.sendbuf, N, MPI_INT, right, step % 7, comm, &reqs[1]));
        CHECK_SUCCESS(MPIX_Waitall_enqueue(2, reqs, MPI_STATUSES_IGNORE));
        CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "requests not freed");
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, check, &s));
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, next_step, &sender));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
    CHECK_INT(s.step, STEPS);
    CHECK_INT(s.bad, 0);

    /* Blocking forms with statuses; wildcards; a vector type. */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        double out[8], in[8];
        for (int i = 0; i < 8; i++)
            out[i] = rank * 10 + i, in[i] = -1;
        MPI_Status st;
        st.MPI_SOURCE = -7;
        if (rank == 0) {
            CHECK_SUCCESS(MPIX_Send_enqueue(out, 8, MPI_DOUBLE, peer, 42, comm));
            CHECK_SUCCESS(
                MPIX_Recv_enqueue(in, 8, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        } else {
            CHECK_SUCCESS(MPIX_Recv_enqueue(in, 8, MPI_DOUBLE, peer, 42, comm, &st));
            CHECK_SUCCESS(MPIX_Send_enqueue(out, 8, MPI_DOUBLE, peer, 43, comm));
        }
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
        for (int i = 0; i < 8; i++)
            CHECK(in[i] == peer * 10 + i, "in[%d]=%g", i, in[i]);
        CHECK_INT(st.MPI_SOURCE, peer);
        CHECK_INT(st.MPI_TAG, rank == 0 ? 43 : 42);
        int count = -1;
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK_INT(count, 8);

        /* every other int of 2*8 */
        MPI_Datatype vec;
        MPI_Type_vector(8, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int sparse[16], dense[8];
        for (int i = 0; i < 16; i++)
            sparse[i] = rank == 0 ? i : -1;
        for (int i = 0; i < 8; i++)
            dense[i] = rank == 1 ? -1 : i;
        if (rank == 0)
            CHECK_SUCCESS(MPIX_Send_enqueue(sparse, 1, vec, 1, 5, comm));
        else
            CHECK_SUCCESS(MPIX_Recv_enqueue(dense, 8, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE));
        MPI_Type_free(&vec);
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
        if (rank == 1)
            for (int i = 0; i < 8; i++)
                CHECK_INT(dense[i], 2 * i);
    }
    /* MPI_PROC_NULL completes on the stream with an empty status. */
    MPI_Status st;
    int x = 5;
    CHECK_SUCCESS(MPIX_Recv_enqueue(&x, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &st));
    CHECK_SUCCESS(MPIX_Send_enqueue(&x, 1, MPI_INT, MPI_PROC_NULL, 0, comm));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
    CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_INT(x, 5);

    MPI_Comm_free(&comm);
    CHECK_SUCCESS(MPIX_Stream_free(&stream));
    CHECK(stream == MPIX_STREAM_NULL, "stream not reset");
    free_while_running(host, rank, size);
    CHECK_SUCCESS(MPIX_Host_stream_free(&host));
    free(s.sendbuf);
    free(s.recvbuf);
    return mtest_finish();
}
