/* Persistent stream-triggered epochs refused where they must be, with the
 * right error class and a message naming the call, and never a hang: handles
 * that are not live epochs, a start before the commit, closing the recording
 * with the per-call stream calls or MPI_Win_complete, a start while the
 * window has another epoch open, streams that are not streams (a freed host
 * stream, an address that is no stream of this build's backend), a window
 * of the wrong flavor, and every call on an epoch whose window was freed.
 * Everything runs with MPI_ERRORS_RETURN on the window and MPI_COMM_SELF. */
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, group, from;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &right, &group); /* this rank puts to its right */
    MPI_Group_incl(world, 1, &left, &from);   /* and is exposed to its left */
    double *mem, src = rank;
    MPI_Win win;
    CHECK_SUCCESS(MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));

    /* Not a live epoch. */
    MPIX_Win_epoch none = MPIX_WIN_EPOCH_NULL;
    int rc = MPIX_Win_epoch_start_stream(none, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "MPIX_Win_epoch_start_stream");
    CHECK_ERR_CLASS(MPIX_Win_epoch_commit((MPIX_Win_epoch)&src), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPIX_Win_epoch_free(&none), MPI_ERR_ARG);

    /* Recording: closed only by the commit; a start before it is refused. */
    MPIX_Win_epoch epoch;
    CHECK_SUCCESS(MPIX_Win_epoch_init(from, group, win, &epoch));
    CHECK_SUCCESS(MPI_Put(&src, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win));
    rc = MPIX_Win_epoch_start_stream(epoch, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_Win_epoch_commit");
    rc = MPIX_Win_complete_stream(win, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_Win_epoch_commit");
    CHECK_ERR_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    MPIX_Win_epoch second;
    CHECK_ERR_CLASS(MPIX_Win_epoch_init(from, group, win, &second), MPI_ERR_RMA_SYNC);
    CHECK_SUCCESS(MPIX_Win_epoch_commit(epoch));
    CHECK_ERR_CLASS(MPIX_Win_epoch_commit(epoch), MPI_ERR_RMA_SYNC);

    /* A start needs a window without open epochs. */
    CHECK_SUCCESS(MPI_Win_post(from, 0, win));
    rc = MPIX_Win_epoch_start_stream(epoch, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_Win_epoch_start_stream");
    CHECK_SUCCESS(MPI_Win_start(group, 0, win));
    CHECK_SUCCESS(MPI_Win_complete(win));
    CHECK_SUCCESS(MPI_Win_wait(win));

    /* Streams that are not streams of this build: nothing is enqueued. */
    double not_a_stream[4];
    rc = MPIX_Win_epoch_start_stream(epoch, not_a_stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "MPIX_Win_epoch_start_stream");
    CHECK_ERR_STRING(rc, "stream=");
    MPIX_Host_stream freed;
    CHECK_SUCCESS(MPIX_Host_stream_create(&freed));
    MPIX_Host_stream dangling = freed;
    CHECK_SUCCESS(MPIX_Host_stream_free(&freed));
    CHECK_ERR_CLASS(MPIX_Win_epoch_start_stream(epoch, dangling), MPI_ERR_ARG);

    /* Still usable after the refusals: one real start, checked. */
    *mem = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPIX_Win_epoch_start_stream(epoch, stream));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(*mem == (double)((rank + size - 1) % size), "received %g", *mem);

    /* A window whose memory streams cannot reach. */
    double private_mem;
    MPI_Win created;
    CHECK_SUCCESS(MPI_Win_create(&private_mem, sizeof private_mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &created));
    MPI_Win_set_errhandler(created, MPI_ERRORS_RETURN);
    MPIX_Win_epoch refused;
    CHECK_ERR_CLASS(MPIX_Win_epoch_init(group, group, created, &refused), MPI_ERR_RMA_FLAVOR);
    CHECK_SUCCESS(MPI_Win_free(&created));

    /* The window goes first: the epoch is left without one. */
    CHECK_SUCCESS(MPI_Win_free(&win));
    rc = MPIX_Win_epoch_start_stream(epoch, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
    CHECK_ERR_STRING(rc, "was freed");
    CHECK_SUCCESS(MPIX_Win_epoch_free(&epoch));
    CHECK(epoch == MPIX_WIN_EPOCH_NULL, "the handle was not reset");
    CHECK_ERR_CLASS(MPIX_Win_epoch_free(&epoch), MPI_ERR_ARG);

    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    MPI_Group_free(&group);
    MPI_Group_free(&from);
    MPI_Group_free(&world);
    return mtest_finish();
}
