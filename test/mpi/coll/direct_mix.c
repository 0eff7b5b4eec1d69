/* Small blocking collectives take a direct path (no schedule) where the
 * schedule's algorithm would be recursive doubling / linear, and the
 * schedule otherwise; both must send the same messages on the same tags.
 * Here processes of one collective take different paths on purpose:
 * - MPI_Allreduce: even ranks pass 2 MPI_INTs (direct), odd ranks one
 *   strided vector of 2 ints (not contiguous: the schedule);
 * - MPI_Alltoall: even ranks MPI_IN_PLACE (the schedule), odd ranks a
 *   separate send buffer (direct);
 * mixed with MPI_Bcast, MPI_Allgather, MPI_Barrier and a nonblocking
 * MPI_Ibarrier in a loop, so the blocking tag sequence must stay in step on
 * every process. Results are checked against the serial computation. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int *a2a = malloc(sizeof(int) * size), *a2a_in = malloc(sizeof(int) * size);
    int *gathered = malloc(sizeof(int) * size);
    for (int iter = 0; iter < 20; iter++) {
        /* allreduce, two paths */
        int in[4] = {rank + iter, -1, 10 * rank, -1}, out[4] = {-7, -7, -7, -7};
        int want0 = size * (size - 1) / 2 + size * iter, want1 = 10 * size * (size - 1) / 2;
        if (rank % 2 == 0) {
            int pin[2] = {in[0], in[2]};
            CHECK_SUCCESS(MPI_Allreduce(pin, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            CHECK(out[0] == want0 && out[1] == want1,
                  "iter %d: allreduce (direct) %d %d, want %d %d", iter, out[0], out[1], want0,
                  want1);
        } else {
            CHECK_SUCCESS(MPI_Allreduce(in, out, 1, strided, MPI_SUM, MPI_COMM_WORLD));
            CHECK(out[0] == want0 && out[2] == want1 && out[1] == -7 && out[3] == -7,
                  "iter %d: allreduce (strided) %d %d (gaps %d %d), want %d %d", iter, out[0],
                  out[2], out[1], out[3], want0, want1);
        }

        /* alltoall, two paths: block j of rank r holds 1000 r + 10 j + iter */
        for (int j = 0; j < size; j++)
            a2a[j] = a2a_in[j] = 1000 * rank + 10 * j + iter;
        if (rank % 2 == 0)
            CHECK_SUCCESS(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, a2a, 1, MPI_INT, MPI_COMM_WORLD));
        else
            CHECK_SUCCESS(MPI_Alltoall(a2a_in, 1, MPI_INT, a2a, 1, MPI_INT, MPI_COMM_WORLD));
        for (int j = 0; j < size; j++)
            CHECK(a2a[j] == 1000 * j + 10 * rank + iter,
                  "iter %d: alltoall block %d is %d, want %d", iter, j, a2a[j],
                  1000 * j + 10 * rank + iter);

        /* a nonblocking collective in between (the other tag sequence) */
        MPI_Request req;
        CHECK_SUCCESS(MPI_Ibarrier(MPI_COMM_WORLD, &req));

        int root = iter % size, value = rank == root ? 77 + iter : -1;
        CHECK_SUCCESS(MPI_Bcast(&value, 1, MPI_INT, root, MPI_COMM_WORLD));
        CHECK(value == 77 + iter, "iter %d: bcast from %d gave %d", iter, root, value);

        int mine = rank * rank + iter;
        CHECK_SUCCESS(MPI_Allgather(&mine, 1, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD));
        for (int j = 0; j < size; j++)
            CHECK(gathered[j] == j * j + iter, "iter %d: allgather block %d is %d", iter, j,
                  gathered[j]);

        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(a2a);
    free(a2a_in);
    free(gathered);
    MPI_Type_free(&strided);
    mtest_finish();
    return 0;
}
