/* MPI_Comm_create on an intercommunicator (MPI 4.1 section 7.4.2): each
 * side passes a subset of its local group; members get an
 * intercommunicator pairing their group (in its order) with the other
 * side's, the rest MPI_COMM_NULL; an empty group on either side gives
 * MPI_COMM_NULL everywhere. Error path: a group with a process outside the
 * local group. Needs 2+ processes: world splits into low and high halves. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nlow = size / 2, low = rank < nlow;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? nlow : 0, 11, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int lsize = 0, lrank = 0, rsize = 0;
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Group lgroup;
    MPI_Comm_group(inter, &lgroup);

    /* The local group in reverse order, without its last member (when it
     * has more than one). */
    int n = lsize > 1 ? lsize - 1 : 1, ranks[64];
    for (int i = 0; i < n; i++)
        ranks[i] = lsize - 1 - i;
    MPI_Group sub;
    MPI_Group_incl(lgroup, n, ranks, &sub);
    int rn = rsize > 1 ? rsize - 1 : 1; /* what the other side keeps */
    MPI_Comm created = MPI_COMM_NULL;
    CHECK_SUCCESS(MPI_Comm_create(inter, sub, &created));
    int member = lsize == 1 || lrank != 0; /* rank 0 is the one left out */
    if (!member) {
        CHECK(created == MPI_COMM_NULL, "rank %d: not in its group but got a communicator", rank);
    } else if (created == MPI_COMM_NULL) {
        CHECK(0, "rank %d: member of its group but got MPI_COMM_NULL", rank);
    } else {
        int flag = 0, s = -1, r = -1, rs = -1;
        MPI_Comm_test_inter(created, &flag);
        MPI_Comm_size(created, &s);
        MPI_Comm_rank(created, &r);
        MPI_Comm_remote_size(created, &rs);
        CHECK(flag, "rank %d: MPI_Comm_create on an intercommunicator gave an intracommunicator",
              rank);
        CHECK(s == n && rs == rn && r == lsize - 1 - lrank,
              "rank %d: size %d remote %d rank %d, want %d %d %d", rank, s, rs, r, n, rn,
              lsize - 1 - lrank);
        /* Every member sends its world rank to remote rank 0, which checks
         * the remote group's order (the reverse of the other side's). */
        MPI_Request sreq;
        CHECK_SUCCESS(MPI_Isend(&rank, 1, MPI_INT, 0, 3, created, &sreq));
        if (r == 0) {
            int other_base = low ? nlow : 0;
            for (int k = 0; k < rs; k++) {
                int got = -1;
                CHECK_SUCCESS(MPI_Recv(&got, 1, MPI_INT, k, 3, created, MPI_STATUS_IGNORE));
                /* Remote rank k is the other side's local rank rsize-1-k. */
                CHECK(got == other_base + (rsize - 1 - k), "remote rank %d is world %d, want %d", k,
                      got, other_base + (rsize - 1 - k));
            }
        }
        CHECK_SUCCESS(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        MPI_Group rg;
        MPI_Comm_remote_group(created, &rg);
        int gs = -1;
        MPI_Group_size(rg, &gs);
        CHECK_INT(gs, rn);
        MPI_Group_free(&rg);
        MPI_Comm_free(&created);
    }

    /* The low side passes an empty group: MPI_COMM_NULL everywhere. */
    MPI_Group mine = low ? MPI_GROUP_EMPTY : lgroup;
    CHECK_SUCCESS(MPI_Comm_create(inter, mine, &created));
    CHECK(created == MPI_COMM_NULL, "rank %d: one side empty, yet a communicator", rank);

    /* Error: a process of the other side in the group. */
    MPI_Group wg, bad;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int other = low ? nlow : 0;
    MPI_Group_incl(wg, 1, &other, &bad);
    CHECK_ERR_CLASS(MPI_Comm_create(inter, bad, &created), MPI_ERR_GROUP);
    MPI_Group_free(&bad);
    MPI_Group_free(&wg);
    MPI_Group_free(&sub);
    MPI_Group_free(&lgroup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mtest_finish();
}
