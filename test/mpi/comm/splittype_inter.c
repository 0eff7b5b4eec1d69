/* MPI_Comm_split_type on an intercommunicator: MPI_COMM_TYPE_SHARED gives an
 * intercommunicator joining each group's processes on this node (all of them here: one node),
 * MPI_UNDEFINED gives MPI_COMM_NULL, HW_UNGUIDED is refused with MPI_ERR_COMM. Data moves
 * across the new intercommunicator and is checked. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int color = rank % 2;
    MPI_Comm local, inter, shared;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 3, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int lsize, rsize;
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);

    CHECK_SUCCESS(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
    CHECK(shared != MPI_COMM_NULL, "SHARED split of an intercommunicator gave MPI_COMM_NULL");
    if (shared != MPI_COMM_NULL) {
        int is_inter = 0, ssize = -1, srsize = -1;
        MPI_Comm_test_inter(shared, &is_inter);
        MPI_Comm_size(shared, &ssize);
        MPI_Comm_remote_size(shared, &srsize);
        CHECK_INT(is_inter, 1);
        CHECK_INT(ssize, lsize);
        CHECK_INT(srsize, rsize);
        /* Each side sums the other side's world ranks. */
        int sum = -1;
        CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shared));
        int expected = 0;
        for (int r = 0; r < size; r++)
            if (r % 2 != color)
                expected += r;
        CHECK_INT(sum, expected);
        MPI_Comm_free(&shared);
    }
    MPI_Comm none = MPI_COMM_WORLD;
    CHECK_SUCCESS(MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none));
    CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED did not give MPI_COMM_NULL");
    int rc = MPI_Comm_split_type(inter, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &none);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mtest_finish();
}
