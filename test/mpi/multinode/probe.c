/* The gate of test/mpi/multinode/run.sh: each rank passes a 1 MiB block around a ring
 * and the ranks sum their ranks; every rank checks what it got. Prints "No Errors" at
 * rank 0 when every value arrived intact. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    const int n = 1 << 18;
    int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        out[i] = rank * 31 + i;
    int from = (rank + size - 1) % size;
    MPI_Sendrecv(out, n, MPI_INT, (rank + 1) % size, 5, in, n, MPI_INT, from, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) {
        if (in[i] != from * 31 + i) {
            printf("rank %d: element %d from rank %d is %d, expected %d\n", rank, i, from, in[i],
                   from * 31 + i);
            errors++;
            break;
        }
    }
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        printf("rank %d: allreduce gave %d, expected %d\n", rank, sum, size * (size - 1) / 2);
        errors++;
    }
    printf("rank %d of %d on %s\n", rank, size, host);
    int total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? "No Errors\n" : "Found %d errors\n", total);
    free(out);
    free(in);
    MPI_Finalize();
    return total != 0;
}
