/* Host streams do not depend on MPI_Init: one is created and used before
 * MPI_Init, lives through it, and is freed after MPI_Finalize. Outside
 * MPI_Init..MPI_Finalize errors are returned (no handler exists), not fatal. */
#include "mtest.h"

static void increment(void *arg) { ++*(long *)arg; }

int main(int argc, char **argv)
{
    long counter = 0;
    MPIX_Host_stream stream = NULL;
    if (MPIX_Host_stream_create(&stream) != MPI_SUCCESS) {
        fprintf(stderr, "create before MPI_Init failed\n");
        return 1;
    }
    for (int i = 0; i < 100; i++)
        MPIX_Host_stream_launch(stream, increment, &counter);
    int rc_before = MPIX_Host_stream_launch(NULL, increment, &counter);

    mtest_init(&argc, &argv);
    CHECK(rc_before != MPI_SUCCESS, "a NULL stream was accepted before MPI_Init");
    CHECK_ERR_CLASS(rc_before, MPI_ERR_ARG);
    for (int i = 0; i < 100; i++)
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, increment, &counter));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(counter, 200);

    int rank, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&mtest_errors, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 100; i++)
        MPIX_Host_stream_launch(stream, increment, &counter);
    MPI_Finalize();

    /* After MPI_Finalize. */
    int failed = errors != 0;
    if (MPIX_Host_stream_synchronize(stream) != MPI_SUCCESS || counter != 300)
        failed = 1;
    if (MPIX_Host_stream_free(&stream) != MPI_SUCCESS || stream != NULL)
        failed = 1;
    if (MPIX_Host_stream_free(&stream) == MPI_SUCCESS) /* returned, not fatal */
        failed = 1;
    if (rank == 0)
        printf(failed ? " Found errors\n" : " No Errors\n");
    return failed;
}
