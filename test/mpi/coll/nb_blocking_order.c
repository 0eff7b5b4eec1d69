/* Blocking and nonblocking collectives draw tags from separate sequences (as MPICH's do): a
 * root that starts an MPI_Iallreduce before a barrier that the other ranks enter first still
 * gets the right sum, and neither the barrier nor the reduction takes the other's messages
 * (mpi4py's fallback for MPIX_Comm_iagree relies on this). Checked for every root. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int root = 0; root < size; root++) {
        int in = rank + 1, out = -1;
        MPI_Request req;
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == root) {
            CHECK_SUCCESS(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
            int flag = 1;
            CHECK_SUCCESS(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            if (size > 1)
                CHECK(!flag, "the reduction finished before the others joined");
            CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        } else {
            CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
            CHECK_SUCCESS(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        }
        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_INT(out, size * (size + 1) / 2);
    }
    return mtest_finish();
}
