/* MPI_Barrier: nobody leaves before everybody has arrived. Rank r arrives
 * r*20 ms late; every exit time must follow every arrival time (one node,
 * one clock). Also: many barriers in a row, on subcommunicators. */
#include <sys/time.h>
#include <unistd.h>
#include "mtest.h"

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 3; round++) {
        usleep(20000 * ((rank + round) % size));
        double t[2];
        t[0] = now();
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        t[1] = now();
        double *all = malloc(2 * size * sizeof(double));
        MPI_Allgather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD);
        double last_in = 0, first_out = 1e300;
        for (int r = 0; r < size; r++) {
            if (all[2 * r] > last_in)
                last_in = all[2 * r];
            if (all[2 * r + 1] < first_out)
                first_out = all[2 * r + 1];
        }
        CHECK(first_out >= last_in, "round %d: a process left %.6f s before the last arrived",
              round, last_in - first_out);
        free(all);
    }
    for (int i = 0; i < 1000; i++)
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &half);
    for (int i = 0; i < 100; i++)
        CHECK_SUCCESS(MPI_Barrier(half));
    MPI_Comm_free(&half);
    CHECK_SUCCESS(MPI_Barrier(MPI_COMM_SELF));
    return mtest_finish();
}
