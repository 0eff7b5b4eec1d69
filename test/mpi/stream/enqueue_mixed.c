/* Enqueued collectives, enqueued point-to-point and stream-triggered RMA
 * epochs on one host stream: ITERS steps, each a user kernel writing the
 * step's values, MPIX_Allreduce/Bcast/Reduce/Allgather/Alltoall/Barrier
 * _enqueue, a PSCW stream epoch (MPI_Put to the right neighbour) and an
 * MPIX_Send/Recv_enqueue ring, then a kernel checking every value; one
 * MPIX_Host_stream_synchronize at the end. Kernels write the inputs only
 * when the stream reaches them, so an operation that read its buffers at
 * enqueue time would see stale values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "stream_comm.h"

#define ITERS 200

typedef struct {
    int rank, size, it, bad;
    int mine, sum, bval, maxv, put_out;
    int *gathered, *a2a_out, *a2a_in;
    int p2p_out, p2p_in;
    int *win_slot; /* the window word the left neighbour puts into */
} Step;

static int f(int rank, int it) { return (rank + 3) * 7919 + it * 31; }

static void fill(void *arg)
{
    Step *s = arg;
    s->mine = f(s->rank, s->it);
    s->bval = s->rank == s->it % s->size ? f(s->rank, s->it) : -1;
    s->put_out = s->p2p_out = s->mine;
    for (int j = 0; j < s->size; j++)
        s->a2a_out[j] = s->mine * 10 + j;
}

static void check(void *arg)
{
    Step *s = arg;
    int sum = 0, max = 0, left = (s->rank + s->size - 1) % s->size;
    for (int r = 0; r < s->size; r++) {
        sum += f(r, s->it);
        max = f(r, s->it) > max ? f(r, s->it) : max;
        if (s->gathered[r] != f(r, s->it))
            s->bad++;
        if (s->a2a_in[r] != f(r, s->it) * 10 + s->rank)
            s->bad++;
    }
    if (s->sum != sum)
        s->bad++;
    if (s->bval != f(s->it % s->size, s->it))
        s->bad++;
    if (s->rank == s->it % s->size && s->maxv != max)
        s->bad++;
    if (*s->win_slot != f(left, s->it))
        s->bad++;
    if (s->p2p_in != f(left, s->it))
        s->bad++;
    s->it++;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPIX_Host_stream host;
    CHECK_SUCCESS(MPIX_Host_stream_create(&host));
    MPIX_Stream stream;
    MPI_Comm comm = host_stream_comm(host, &stream);

    int *slot;
    MPI_Win win;
    CHECK_SUCCESS(
        MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &slot, &win));
    *slot = -1;
    MPI_Group world, peers;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[2] = {left, right};
    MPI_Group_incl(world, left == right ? 1 : 2, ranks, &peers);
    MPI_Barrier(MPI_COMM_WORLD);

    Step s = {rank,
              size,
              0,
              0,
              0,
              0,
              0,
              0,
              0,
              calloc(size, sizeof(int)),
              calloc(size, sizeof(int)),
              calloc(size, sizeof(int)),
              0,
              0,
              slot};
    for (int it = 0; it < ITERS; it++) {
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, fill, &s));
        CHECK_SUCCESS(MPIX_Allreduce_enqueue(&s.mine, &s.sum, 1, MPI_INT, MPI_SUM, comm));
        CHECK_SUCCESS(MPIX_Bcast_enqueue(&s.bval, 1, MPI_INT, it % size, comm));
        CHECK_SUCCESS(MPIX_Reduce_enqueue(&s.mine, &s.maxv, 1, MPI_INT, MPI_MAX, it % size, comm));
        CHECK_SUCCESS(MPIX_Allgather_enqueue(&s.mine, 1, MPI_INT, s.gathered, 1, MPI_INT, comm));
        CHECK_SUCCESS(MPIX_Alltoall_enqueue(s.a2a_out, 1, MPI_INT, s.a2a_in, 1, MPI_INT, comm));
        CHECK_SUCCESS(MPIX_Barrier_enqueue(comm));
        CHECK_SUCCESS(MPIX_Win_post_stream(peers, win, host));
        CHECK_SUCCESS(MPI_Win_start(peers, MPIX_MODE_STREAM, win));
        CHECK_SUCCESS(MPI_Put(&s.put_out, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        CHECK_SUCCESS(MPIX_Win_complete_stream(win, host));
        CHECK_SUCCESS(MPIX_Win_wait_stream(win, host));
        MPI_Request reqs[2];
        CHECK_SUCCESS(MPIX_Irecv_enqueue(&s.p2p_in, 1, MPI_INT, left, it, comm, &reqs[0]));
        CHECK_SUCCESS(MPIX_Isend_enqueue(&s.p2p_out, 1, MPI_INT, right, it, comm, &reqs[1]));
        CHECK_SUCCESS(MPIX_Waitall_enqueue(2, reqs, MPI_STATUSES_IGNORE));
        CHECK_SUCCESS(MPIX_Host_stream_launch(host, check, &s));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
    CHECK_INT(s.it, ITERS);
    CHECK_INT(s.bad, 0);

    MPI_Group_free(&peers);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    CHECK_SUCCESS(MPIX_Stream_free(&stream));
    CHECK_SUCCESS(MPIX_Host_stream_free(&host));
    free(s.gathered);
    free(s.a2a_out);
    free(s.a2a_in);
    return mtest_finish();
}
