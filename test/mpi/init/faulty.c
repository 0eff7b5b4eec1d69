/* Helper for abort.sh, segv.sh, fatal.sh and errors_abort.sh (not run on its own).
 * Usage: faulty abort|segv|fatal|errors_abort
 * One rank fails in the given way while every other rank waits in MPI_Recv
 * for a message that never comes. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "abort";
    int victim = size > 1 ? 1 : 0;
    /* everyone is inside MPI before the failure */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
        usleep(200000); /* let the others block in MPI_Recv */
        printf("rank %d: failing with %s\n", rank, mode);
        fflush(stdout);
        if (strcmp(mode, "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strcmp(mode, "segv") == 0) {
            volatile int *p = NULL;
            *p = 1;
        } else if (strcmp(mode, "fatal") == 0) {
            /* MPI_ERRORS_ARE_FATAL is the default handler on MPI_COMM_WORLD */
            MPI_Send(&buf, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        } else if (strcmp(mode, "errors_abort") == 0) {
            /* the MPI 4.0 handler that aborts the processes of the communicator */
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
            MPI_Send(&buf, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        }
        fprintf(stderr, "rank %d: still running after %s\n", rank, mode);
        return 3;
    }
    MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "rank %d: MPI_Recv returned\n", rank);
    MPI_Finalize();
    return 4;
}
