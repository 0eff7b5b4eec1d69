/* MPI_Intercomm_create_from_groups between the lower and upper half of
 * MPI_COMM_WORLD's group (no parent communicator involved), then
 * point-to-point across and MPI_Intercomm_merge; and MPI_Comm_disconnect. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nlow = size / 2, low = rank < nlow;
    MPI_Group world, lowg, highg;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int lr[1][3] = {{0, nlow - 1, 1}}, hr[1][3] = {{nlow, size - 1, 1}};
    MPI_Group_range_incl(world, 1, lr, &lowg);
    MPI_Group_range_incl(world, 1, hr, &highg);
    MPI_Comm inter;
    CHECK_SUCCESS(MPI_Intercomm_create_from_groups(low ? lowg : highg, 0, low ? highg : lowg, 0,
                                                   "halves", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                                   &inter));
    int flag = 0, lsize, rsize, lrank;
    MPI_Comm_test_inter(inter, &flag);
    CHECK_INT(flag, 1);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &lrank);
    CHECK_INT(lsize, low ? nlow : size - nlow);
    CHECK_INT(rsize, low ? size - nlow : nlow);
    CHECK_INT(lrank, low ? rank : rank - nlow);
    /* rank 0 of each side swaps world ranks */
    if (lrank == 0) {
        int got = -1;
        CHECK_SUCCESS(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, inter,
                                   MPI_STATUS_IGNORE));
        CHECK_INT(got, low ? nlow : 0);
    }
    MPI_Comm merged;
    CHECK_SUCCESS(MPI_Intercomm_merge(inter, !low, &merged));
    int mrank = -1;
    MPI_Comm_rank(merged, &mrank);
    CHECK_INT(mrank, rank);
    MPI_Comm_free(&merged);
    CHECK_SUCCESS(MPI_Comm_free(&inter));
    /* bad leaders */
    CHECK_ERR_CLASS(
        MPI_Intercomm_create_from_groups(low ? lowg : highg, 99, low ? highg : lowg, 0, "bad",
                                         MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter),
        MPI_ERR_RANK);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK_SUCCESS(MPI_Comm_disconnect(&dup));
    CHECK(dup == MPI_COMM_NULL, "disconnect did not reset the handle");
    MPI_Group_free(&lowg);
    MPI_Group_free(&highg);
    MPI_Group_free(&world);
    return mtest_finish();
}
