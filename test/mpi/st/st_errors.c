/* Misuse of stream-triggered epochs, with MPI_ERRORS_RETURN on the windows:
 * each call returns the right class with a message naming what was wrong,
 * nothing hangs, and the window works normally afterwards.
 * With STMPI_STREAM_BACKEND=cuda (or hip) and no device, a pointer that is
 * not a host stream gets the backend's MPI_ERR_OTHER ("... requested but
 * ...") instead of MPI_ERR_ARG, and host streams keep working. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static long self_value = 42, dummy_result;

int main(int argc, char **argv)
{
    int rank, size, rc, flag;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    const char *backend = getenv("STMPI_STREAM_BACKEND");
    const int gpu_requested = backend && (!strcmp(backend, "cuda") || !strcmp(backend, "hip"));

    long *mem, *cmem = calloc(4, sizeof(long));
    MPI_Win win, cwin, dwin;
    CHECK_SUCCESS(MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &mem, &win));
    CHECK_SUCCESS(
        MPI_Win_create(cmem, 4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &cwin));
    CHECK_SUCCESS(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(cwin, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(dwin, MPI_ERRORS_RETURN);
    for (int i = 0; i < 4; i++)
        mem[i] = -1;

    MPI_Group world, self, to_left, to_right;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(MPI_COMM_SELF, &self);
    MPI_Group_incl(world, 1, &left, &to_left);
    MPI_Group_incl(world, 1, &right, &to_right);
    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));

    /* A pointer that is not a stream. */
    int not_a_stream = 0;
    rc = MPIX_Win_post_stream(world, win, &not_a_stream);
    if (gpu_requested && mtest_err_class(rc) != MPI_ERR_ARG) { /* no device (else as host) */
        CHECK_ERR_CLASS(rc, MPI_ERR_OTHER);
        CHECK_ERR_STRING(rc, "requested");
    } else {
        CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
        CHECK_ERR_STRING(rc, "is not a stream this library can use");
        CHECK_ERR_STRING(rc, "stream=0x");
    }
    rc = MPIX_Win_post_stream(world, win, NULL);
    CHECK(mtest_err_class(rc) == MPI_ERR_ARG ||
              (gpu_requested && mtest_err_class(rc) == MPI_ERR_OTHER),
          "stream=NULL: %s", mtest_err_text(rc));
    MPIX_Host_stream freed;
    CHECK_SUCCESS(MPIX_Host_stream_create(&freed));
    void *freed_pointer = freed;
    CHECK_SUCCESS(MPIX_Host_stream_free(&freed));
    rc = MPIX_Win_wait_stream(win, freed_pointer);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC); /* checked before the stream: no epoch is open */

    /* Closing what is not open. */
    rc = MPIX_Win_complete_stream(win, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_MODE_STREAM");
    rc = MPIX_Win_wait_stream(win, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_Win_post_stream");

    /* Bad handles. */
    rc = MPIX_Win_post_stream(world, MPI_WIN_NULL, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
    rc = MPIX_Win_post_stream(MPI_GROUP_NULL, win, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_GROUP);
    CHECK_ERR_CLASS(MPIX_Win_complete_stream(MPI_WIN_NULL, stream), MPI_ERR_WIN);
    CHECK_ERR_CLASS(MPIX_Win_wait_stream(MPI_WIN_NULL, stream), MPI_ERR_WIN);
    long long a, b, c, d;
    rc = MPIX_Win_get_stream_stats(win, &a, NULL, &c, &d);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "signal_launches");
    CHECK_ERR_CLASS(MPIX_Win_get_stream_pending(win, NULL), MPI_ERR_ARG);
    (void)b;

    /* Windows whose memory streams cannot reach. */
    rc = MPI_Win_start(world, MPIX_MODE_STREAM, cwin);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_FLAVOR);
    CHECK_ERR_STRING(rc, "MPI_Win_create");
    CHECK_ERR_STRING(rc, "MPI_Win_allocate");
    rc = MPIX_Win_post_stream(world, cwin, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_FLAVOR);
    rc = MPIX_Win_post_stream(world, dwin, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_FLAVOR);
    CHECK_ERR_STRING(rc, "MPI_Win_create_dynamic");
    CHECK_ERR_CLASS(MPI_Win_start(world, MPIX_MODE_STREAM, dwin), MPI_ERR_RMA_FLAVOR);

    /* Ordinary epochs closed by the stream calls. */
    CHECK_SUCCESS(MPI_Win_start(MPI_GROUP_EMPTY, 0, win));
    rc = MPIX_Win_complete_stream(win, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "without MPIX_MODE_STREAM");
    CHECK_SUCCESS(MPI_Win_complete(win));
    CHECK_SUCCESS(MPI_Win_post(MPI_GROUP_EMPTY, 0, win));
    rc = MPIX_Win_wait_stream(win, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPI_Win_post");
    CHECK_SUCCESS(MPI_Win_wait(win));

    /* Stream epochs closed by the ordinary calls. */
    CHECK_SUCCESS(MPIX_Win_post_stream(MPI_GROUP_EMPTY, win, stream));
    rc = MPI_Win_wait(win);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_Win_wait_stream");
    rc = MPI_Win_test(win, &flag);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_Win_post_stream");
    rc = MPIX_Win_post_stream(MPI_GROUP_EMPTY, win, stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "already open");
    CHECK_ERR_CLASS(MPI_Win_post(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_ERR_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));

    CHECK_SUCCESS(MPI_Win_start(MPI_GROUP_EMPTY, MPIX_MODE_STREAM, win));
    rc = MPI_Win_complete(win);
    CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
    CHECK_ERR_STRING(rc, "MPIX_Win_complete_stream");
    CHECK_ERR_CLASS(MPI_Win_start(MPI_GROUP_EMPTY, MPIX_MODE_STREAM, win), MPI_ERR_RMA_SYNC);
    CHECK_ERR_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    CHECK_ERR_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win), MPI_ERR_RMA_SYNC);
    rc = MPIX_Win_complete_stream(win, &not_a_stream); /* the epoch stays open */
    CHECK(mtest_err_class(rc) == MPI_ERR_ARG ||
              (gpu_requested && mtest_err_class(rc) == MPI_ERR_OTHER),
          "not a stream: %s", mtest_err_text(rc));
    CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));

    /* RMA calls in a stream epoch on self: a target outside the group, and
     * calls that are not deferred. */
    CHECK_SUCCESS(MPIX_Win_post_stream(self, win, stream));
    CHECK_SUCCESS(MPI_Win_start(self, MPIX_MODE_STREAM, win));
    CHECK_SUCCESS(MPI_Put(&self_value, 1, MPI_LONG, rank, 0, 1, MPI_LONG, win));
    if (size > 1) {
        rc = MPI_Put(&self_value, 1, MPI_LONG, right, 0, 1, MPI_LONG, win);
        CHECK_ERR_CLASS(rc, MPI_ERR_RMA_SYNC);
        CHECK_ERR_STRING(rc, "target_rank");
        CHECK_ERR_STRING_INT(rc, right);
        CHECK_ERR_CLASS(
            MPI_Accumulate(&self_value, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_SUM, win),
            MPI_ERR_RMA_SYNC);
    }
    rc = MPI_Put(&self_value, 1, MPI_LONG, size + 2, 0, 1, MPI_LONG, win);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, size + 2);
    rc = MPI_Fetch_and_op(&self_value, &dummy_result, MPI_LONG, rank, 1, MPI_SUM, win);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_STRING(rc, "MPI_Fetch_and_op");
    CHECK_ERR_CLASS(MPI_Get_accumulate(&self_value, 1, MPI_LONG, &dummy_result, 1, MPI_LONG, rank,
                                       1, 1, MPI_LONG, MPI_SUM, win),
                    MPI_ERR_UNSUPPORTED_OPERATION);
    rc = MPI_Compare_and_swap(&self_value, &self_value, &dummy_result, MPI_LONG, rank, 1, win);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_STRING(rc, "MPI_Compare_and_swap");
    CHECK_ERR_CLASS(MPI_Put(&self_value, 1, MPI_LONG, rank, 4, 1, MPI_LONG, win),
                    MPI_ERR_RMA_RANGE);
    CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
    CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(mem[0], 42);
    CHECK_INT(mem[1], -1);

    /* After all that, a ring epoch works. */
    static long token;
    token = 1000 + rank;
    CHECK_SUCCESS(MPIX_Win_post_stream(to_left, win, stream));
    CHECK_SUCCESS(MPI_Win_start(to_right, MPIX_MODE_STREAM, win));
    CHECK_SUCCESS(MPI_Put(&token, 1, MPI_LONG, right, 2, 1, MPI_LONG, win));
    CHECK_SUCCESS(MPIX_Win_complete_stream(win, stream));
    CHECK_SUCCESS(MPIX_Win_wait_stream(win, stream));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(mem[2], 1000 + left);

    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    CHECK_SUCCESS(MPI_Win_free(&win));
    CHECK_SUCCESS(MPI_Win_free(&cwin));
    CHECK_SUCCESS(MPI_Win_free(&dwin));
    MPI_Group_free(&to_left);
    MPI_Group_free(&to_right);
    MPI_Group_free(&self);
    MPI_Group_free(&world);
    free(cmem);
    return mtest_finish();
}
