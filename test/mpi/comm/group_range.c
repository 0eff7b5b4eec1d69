/* MPI_Group_range_excl (and range_incl for comparison): ranges with
 * positive and negative strides, the result checked against an explicit
 * computation and used to build a communicator whose ranks agree across
 * processes; errors: rank out of range, stride 0, a rank named twice,
 * negative n. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* exclude every even rank (0, 2, ...) with one ascending range, and
     * the last rank with a descending one when it is odd */
    int ranges[2][3] = {{0, size - 1, 2}, {size - 1, size - 1, -1}};
    const int n = (size - 1) % 2 == 1 ? 2 : 1;
    CHECK_SUCCESS(MPI_Group_range_excl(world, n, ranges, &g));
    int kept[64], nkept = 0;
    for (int r = 0; r < size; ++r)
        if (r % 2 == 1 && !(n == 2 && r == size - 1))
            kept[nkept++] = r;
    int gsize = -1;
    MPI_Group_size(g, &gsize);
    CHECK_INT(gsize, nkept);
    for (int i = 0; i < nkept; ++i) {
        int out = -1;
        MPI_Group_translate_ranks(g, 1, &i, world, &out);
        CHECK_INT(out, kept[i]);
    }
    /* a communicator from the group: members agree on its size and order */
    MPI_Comm sub;
    MPI_Comm_create(MPI_COMM_WORLD, g, &sub);
    if (sub != MPI_COMM_NULL) {
        int sr, ss, sum = 0;
        MPI_Comm_rank(sub, &sr);
        MPI_Comm_size(sub, &ss);
        CHECK_INT(ss, nkept);
        CHECK_INT(rank, kept[sr]);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub);
        int expect = 0;
        for (int i = 0; i < nkept; ++i)
            expect += kept[i];
        CHECK_INT(sum, expect);
        MPI_Comm_free(&sub);
    } else {
        for (int i = 0; i < nkept; ++i)
            CHECK(kept[i] != rank, "rank %d left out", rank);
    }
    MPI_Group_free(&g);

    /* range_excl is the complement of range_incl */
    int all[1][3] = {{size - 1, 0, -1}};
    CHECK_SUCCESS(MPI_Group_range_excl(world, 1, all, &g));
    MPI_Group_size(g, &gsize);
    CHECK_INT(gsize, 0);
    MPI_Group_free(&g);
    CHECK_SUCCESS(MPI_Group_range_excl(world, 0, all, &g));
    int cmp;
    MPI_Group_compare(g, world, &cmp);
    CHECK_INT(cmp, MPI_IDENT);
    MPI_Group_free(&g);

    /* errors */
    int bad[2][3] = {{0, size, 1}, {0, 0, 1}};
    int rc = MPI_Group_range_excl(world, 1, bad, &g);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING(rc, "ranges[0][1]");
    int zero[1][3] = {{0, 0, 0}};
    rc = MPI_Group_range_excl(world, 1, zero, &g);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "stride");
    int twice[2][3] = {{0, 0, 1}, {0, 0, 1}};
    rc = MPI_Group_range_excl(world, 2, twice, &g);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING(rc, "repeats");
    rc = MPI_Group_range_excl(world, -1, twice, &g);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    rc = MPI_Group_range_excl(MPI_GROUP_NULL, 1, twice, &g);
    CHECK_ERR_CLASS(rc, MPI_ERR_GROUP);
    MPI_Group_free(&world);
    return mtest_finish();
}
