/* Work on a host stream may call MPI (with MPI_THREAD_MULTIPLE): the
 * MPIX_Host_stream calls never hold MPI's lock, so the main thread can
 * receive while a callback sends, and synchronize while a callback runs an
 * MPI call. Each rank sends its rank to the right neighbour from a callback
 * and receives from the left on the main thread. */
#include "mtest.h"

static int rank, size;
static int send_rc = MPI_SUCCESS;

static void send_to_right(void *arg)
{
    (void)arg;
    int value = rank * 10;
    send_rc = MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE)
        return mtest_finish();

    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    for (int round = 0; round < 20; round++) {
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, send_to_right, NULL));
        int value = -1;
        CHECK_SUCCESS(MPI_Recv(&value, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        CHECK_INT(value, ((rank + size - 1) % size) * 10);
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
        CHECK_SUCCESS(send_rc);
    }
    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    return mtest_finish();
}
