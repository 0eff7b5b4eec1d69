/* The large-count (_c) collectives with MPI_Count arguments. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Count n = 1000;
    long *a = malloc(n * sizeof(long) * size), *b = malloc(n * sizeof(long) * size);

    for (MPI_Count i = 0; i < n; i++)
        a[i] = rank == 1 % size ? i * 3 : -1;
    CHECK_SUCCESS(MPI_Bcast_c(a, n, MPI_LONG, 1 % size, MPI_COMM_WORLD));
    for (MPI_Count i = 0; i < n; i++)
        CHECK(a[i] == i * 3, "bcast_c[%ld] = %ld", (long)i, a[i]);

    for (MPI_Count i = 0; i < n; i++)
        a[i] = rank + i;
    CHECK_SUCCESS(MPI_Reduce_c(a, b, n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (MPI_Count i = 0; i < n; i++)
            CHECK(b[i] == (long)size * (size - 1) / 2 + size * i, "reduce_c[%ld]", (long)i);
    CHECK_SUCCESS(MPI_Allreduce_c(a, b, n, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
    for (MPI_Count i = 0; i < n; i++)
        CHECK(b[i] == size - 1 + i, "allreduce_c[%ld]", (long)i);

    for (MPI_Count i = 0; i < n; i++)
        a[i] = rank * n + i;
    CHECK_SUCCESS(MPI_Allgather_c(a, n, MPI_LONG, b, n, MPI_LONG, MPI_COMM_WORLD));
    for (MPI_Count i = 0; i < n * size; i++)
        CHECK(b[i] == i, "allgather_c[%ld] = %ld", (long)i, b[i]);
    CHECK_SUCCESS(MPI_Gather_c(a, n, MPI_LONG, b, n, MPI_LONG, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (MPI_Count i = 0; i < n * size; i++)
            CHECK(b[i] == i, "gather_c[%ld]", (long)i);
    for (MPI_Count i = 0; i < n * size; i++)
        a[i] = i;
    CHECK_SUCCESS(MPI_Scatter_c(a, n, MPI_LONG, b, n, MPI_LONG, 0, MPI_COMM_WORLD));
    for (MPI_Count i = 0; i < n; i++)
        CHECK(b[i] == rank * n + i, "scatter_c[%ld]", (long)i);
    for (MPI_Count i = 0; i < n * size; i++)
        a[i] = rank * 1000000 + i;
    CHECK_SUCCESS(MPI_Alltoall_c(a, n, MPI_LONG, b, n, MPI_LONG, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (MPI_Count i = 0; i < n; i++)
            CHECK(b[r * n + i] == r * 1000000 + rank * n + i, "alltoall_c");
    free(a);
    free(b);
    return mtest_finish();
}
