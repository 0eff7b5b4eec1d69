/* Helper of mpiexec_options.sh: prints one line per rank with its world rank
 * and size, MPI_APPNUM, its first argument, $COLOR and its working directory;
 * every rank also checks that MPI_COMM_WORLD spans all programs (an allreduce
 * of the ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, flag = 0, *appnum = NULL, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char cwd[4096] = "?";
    if (getcwd(cwd, sizeof cwd) == NULL)
        cwd[0] = '?';
    const char *color = getenv("COLOR");
    printf("rank %d size %d appnum %d arg %s color %s sum %s cwd %s\n", rank, size,
           flag ? *appnum : -1, argc > 1 ? argv[1] : "-", color ? color : "-",
           sum == size * (size - 1) / 2 ? "ok" : "bad", cwd);
    MPI_Finalize();
    return 0;
}
