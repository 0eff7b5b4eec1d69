/* Intercommunicators: MPI_Intercomm_create between the lower and upper part
 * of MPI_COMM_WORLD (uneven at odd sizes), the remote-group queries,
 * point-to-point across (ranks name remote processes, MPI_ANY_SOURCE and
 * statuses report remote ranks), MPI_Intercomm_merge in both orders,
 * MPI_Comm_dup, MPI_Comm_split and MPI_Comm_compare on intercommunicators,
 * and the error paths. Every value is checked against what the world
 * ranks predict. */
#include "mtest.h"

static int rank, size, nlow;

static int world_of(int low_side, int r) { return low_side ? r : nlow + r; }

/* Every local process sends its world rank to remote rank lrank % rsize;
 * every process receives from each remote process that targets it. */
static void exchange(MPI_Comm inter, int low_side, int tag)
{
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    int dest = lrank % rsize;
    MPI_Request req;
    CHECK_SUCCESS(MPI_Isend(&rank, 1, MPI_INT, dest, tag, inter, &req));
    int expected = 0;
    for (int r = 0; r < rsize; r++)
        if (r % lsize == lrank)
            expected++;
    int seen = 0;
    for (int i = 0; i < expected; i++) {
        int got = -1;
        MPI_Status st;
        CHECK_SUCCESS(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && st.MPI_SOURCE % lsize == lrank,
              "source %d", st.MPI_SOURCE);
        CHECK_INT(got, world_of(!low_side, st.MPI_SOURCE));
        seen |= 1 << st.MPI_SOURCE;
    }
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int want_seen = 0;
    for (int r = 0; r < rsize; r++)
        if (r % lsize == lrank)
            want_seen |= 1 << r;
    CHECK_INT(seen, want_seen);
}

static void check_merged(MPI_Comm merged, int low_first)
{
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK_INT(msize, size);
    int nhigh = size - nlow;
    int want = low_first ? rank : (rank >= nlow ? rank - nlow : rank + nhigh);
    CHECK_INT(mrank, want);
    int sum = -1;
    CHECK_SUCCESS(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK_INT(sum, size * (size - 1) / 2);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int flag = -1;
    CHECK_SUCCESS(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK_INT(flag, 0);
    int rsize = -1;
    CHECK_ERR_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &rsize), MPI_ERR_COMM);
    MPI_Group g;
    CHECK_ERR_CLASS(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM);
    MPI_Comm bad = MPI_COMM_NULL;
    CHECK_ERR_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &bad), MPI_ERR_COMM);
    if (size < 2)
        return mtest_finish();

    nlow = size / 2;
    int low_side = rank < nlow;
    MPI_Comm local;
    CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, low_side, rank, &local));
    int lrank;
    MPI_Comm_rank(local, &lrank);
    CHECK_ERR_CLASS(MPI_Intercomm_create(local, size, MPI_COMM_WORLD, 0, 5, &bad), MPI_ERR_RANK);
    CHECK_ERR_CLASS(MPI_Intercomm_create(local, -1, MPI_COMM_WORLD, 0, 5, &bad), MPI_ERR_RANK);

    /* peer_comm matters only at the leaders: the others pass MPI_COMM_NULL. */
    MPI_Comm inter;
    MPI_Comm peer = lrank == 0 ? MPI_COMM_WORLD : MPI_COMM_NULL;
    CHECK_SUCCESS(MPI_Intercomm_create(local, 0, peer, low_side ? nlow : 0, 42, &inter));
    CHECK_SUCCESS(MPI_Comm_test_inter(inter, &flag));
    CHECK_INT(flag, 1);
    int isize, irank;
    MPI_Comm_size(inter, &isize);
    MPI_Comm_rank(inter, &irank);
    CHECK_INT(isize, low_side ? nlow : size - nlow);
    CHECK_INT(irank, lrank);
    CHECK_SUCCESS(MPI_Comm_remote_size(inter, &rsize));
    CHECK_INT(rsize, low_side ? size - nlow : nlow);

    /* The remote group is the other part, in order. */
    MPI_Group remote, world_group;
    CHECK_SUCCESS(MPI_Comm_remote_group(inter, &remote));
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int r = 0; r < rsize; r++) {
        int w = -5;
        CHECK_SUCCESS(MPI_Group_translate_ranks(remote, 1, &r, world_group, &w));
        CHECK_INT(w, world_of(!low_side, r));
    }
    MPI_Group_free(&remote);
    MPI_Group_free(&world_group);

    exchange(inter, low_side, 3);

    /* A rank of the local size that exceeds the remote size is an error. */
    int big = rsize;
    CHECK_ERR_CLASS(MPI_Send(&rank, 1, MPI_INT, big, 0, inter), MPI_ERR_RANK);
    CHECK_SUCCESS(MPI_Send(&rank, 1, MPI_INT, MPI_PROC_NULL, 0, inter));

    /* Merge: the group with high = 0 comes first. */
    MPI_Comm merged;
    CHECK_SUCCESS(MPI_Intercomm_merge(inter, !low_side, &merged));
    check_merged(merged, 1);
    MPI_Comm_free(&merged);
    CHECK_SUCCESS(MPI_Intercomm_merge(inter, low_side, &merged));
    check_merged(merged, 0);
    CHECK_SUCCESS(MPI_Comm_test_inter(merged, &flag));
    CHECK_INT(flag, 0);
    MPI_Comm_free(&merged);
    /* Equal high values: the group of the lower leader first. */
    CHECK_SUCCESS(MPI_Intercomm_merge(inter, 1, &merged));
    check_merged(merged, 1);
    MPI_Comm_free(&merged);

    /* Dup keeps both groups and gets its own context. */
    MPI_Comm dup;
    CHECK_SUCCESS(MPI_Comm_dup(inter, &dup));
    int result = -1;
    CHECK_SUCCESS(MPI_Comm_compare(inter, dup, &result));
    CHECK_INT(result, MPI_CONGRUENT);
    CHECK_SUCCESS(MPI_Comm_compare(inter, inter, &result));
    CHECK_INT(result, MPI_IDENT);
    CHECK_SUCCESS(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
    CHECK_INT(result, MPI_UNEQUAL);
    CHECK_SUCCESS(MPI_Comm_test_inter(dup, &flag));
    CHECK_INT(flag, 1);
    /* Same tag on both: a message on dup must not match a receive on inter. */
    {
        int dest = lrank % rsize, v = rank + 1000, got = -1;
        MPI_Request reqs[2];
        int expected = 0;
        for (int r = 0; r < rsize; r++)
            if (r % isize == lrank)
                expected++;
        CHECK_SUCCESS(MPI_Isend(&v, 1, MPI_INT, dest, 9, dup, &reqs[0]));
        CHECK_SUCCESS(MPI_Isend(&rank, 1, MPI_INT, dest, 9, inter, &reqs[1]));
        for (int i = 0; i < expected; i++) {
            MPI_Status st;
            CHECK_SUCCESS(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 9, inter, &st));
            CHECK_INT(got, world_of(!low_side, st.MPI_SOURCE));
            CHECK_SUCCESS(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 9, dup, MPI_STATUS_IGNORE));
            CHECK_INT(got, world_of(!low_side, st.MPI_SOURCE) + 1000);
        }
        CHECK_SUCCESS(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    }
    exchange(dup, low_side, 4);

    /* Split by parity of the local rank: the remote part of a color is the
     * remote processes of that parity; no match gives MPI_COMM_NULL. */
    MPI_Comm split;
    int color = lrank % 2;
    CHECK_SUCCESS(MPI_Comm_split(inter, color, -lrank, &split));
    int remote_same = 0, local_same = 0;
    for (int r = 0; r < rsize; r++)
        remote_same += r % 2 == color;
    for (int r = 0; r < isize; r++)
        local_same += r % 2 == color;
    if (remote_same == 0) {
        CHECK(split == MPI_COMM_NULL, "split without remote partners is not MPI_COMM_NULL");
    } else {
        CHECK(split != MPI_COMM_NULL, "split returned MPI_COMM_NULL");
        int s_size, s_rank, s_rsize;
        MPI_Comm_size(split, &s_size);
        MPI_Comm_rank(split, &s_rank);
        MPI_Comm_remote_size(split, &s_rsize);
        CHECK_INT(s_size, local_same);
        CHECK_INT(s_rsize, remote_same);
        /* key = -lrank reverses the order */
        int above = 0;
        for (int r = lrank + 1; r < isize; r++)
            above += r % 2 == color;
        CHECK_INT(s_rank, above);
        /* Remote rank 0 of the split is the highest remote rank of the color. */
        int v = -1;
        if (s_rank == 0)
            CHECK_SUCCESS(MPI_Send(&rank, 1, MPI_INT, 0, 1, split));
        if (s_rank == 0) {
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, 0, 1, split, MPI_STATUS_IGNORE));
            int top = -1;
            for (int r = 0; r < rsize; r++)
                if (r % 2 == color)
                    top = r;
            CHECK_INT(v, world_of(!low_side, top));
        }
        MPI_Comm_free(&split);
    }
    CHECK_SUCCESS(MPI_Comm_split(inter, MPI_UNDEFINED, 0, &split));
    CHECK(split == MPI_COMM_NULL, "MPI_UNDEFINED did not give MPI_COMM_NULL");

    CHECK_SUCCESS(MPI_Comm_free(&dup));
    CHECK_SUCCESS(MPI_Comm_free(&inter));
    CHECK(inter == MPI_COMM_NULL, "free did not reset the handle");
    MPI_Comm_free(&local);
    return mtest_finish();
}
