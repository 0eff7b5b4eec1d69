/* Group constructors, queries and set operations, checked against explicit
 * lists of world ranks; bad and repeated ranks are MPI_ERR_RANK with the
 * index and value in the message; empty results are MPI_GROUP_EMPTY, which
 * may be freed (the handle becomes MPI_GROUP_NULL). */
#include "mtest.h"

static MPI_Group world_group;

/* The group must hold exactly these world ranks, in this order. */
static void check_members(MPI_Group g, int n, const int *world, const char *what)
{
    int size = -1;
    MPI_Group_size(g, &size);
    CHECK(size == n, "%s: size %d, expected %d", what, size, n);
    if (size != n)
        return;
    for (int i = 0; i < n; i++) {
        int w = -9;
        MPI_Group_translate_ranks(g, 1, &i, world_group, &w);
        CHECK(w == world[i], "%s: rank %d is world %d, expected %d", what, i, w, world[i]);
    }
}

int main(int argc, char **argv)
{
    int rank, size, rc, result;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int all[64], want[64];
    for (int i = 0; i < size; i++)
        all[i] = i;
    check_members(world_group, size, all, "world");
    int grank = -1;
    MPI_Group_rank(world_group, &grank);
    CHECK_INT(grank, rank);

    /* incl: reversed */
    for (int i = 0; i < size; i++)
        want[i] = size - 1 - i;
    MPI_Group rev;
    CHECK_SUCCESS(MPI_Group_incl(world_group, size, want, &rev));
    check_members(rev, size, want, "incl reversed");
    MPI_Group_rank(rev, &grank);
    CHECK_INT(grank, size - 1 - rank);
    CHECK_SUCCESS(MPI_Group_compare(rev, world_group, &result));
    CHECK_INT(result, size == 1 ? MPI_IDENT : MPI_SIMILAR);
    CHECK_SUCCESS(MPI_Group_compare(world_group, world_group, &result));
    CHECK_INT(result, MPI_IDENT);

    /* excl: drop rank 0 and the last rank */
    if (size >= 3) {
        int ex[2] = {size - 1, 0};
        MPI_Group mid;
        CHECK_SUCCESS(MPI_Group_excl(world_group, 2, ex, &mid));
        for (int i = 0; i < size - 2; i++)
            want[i] = i + 1;
        check_members(mid, size - 2, want, "excl");
        MPI_Group_rank(mid, &grank);
        CHECK_INT(grank, (rank == 0 || rank == size - 1) ? MPI_UNDEFINED : rank - 1);
        CHECK_SUCCESS(MPI_Group_compare(mid, world_group, &result));
        CHECK_INT(result, MPI_UNEQUAL);

        /* set operations: mid U {0} = 1..n-2,0 ; world ^ mid ; world - mid */
        int zero = 0;
        MPI_Group g0, u, in, diff;
        MPI_Group_incl(world_group, 1, &zero, &g0);
        CHECK_SUCCESS(MPI_Group_union(mid, g0, &u));
        want[size - 2] = 0;
        check_members(u, size - 1, want, "union");
        CHECK_SUCCESS(MPI_Group_intersection(rev, mid, &in));
        for (int i = 0; i < size - 2; i++)
            want[i] = size - 2 - i;
        check_members(in, size - 2, want, "intersection (order of the first group)");
        CHECK_SUCCESS(MPI_Group_difference(world_group, mid, &diff));
        want[0] = 0;
        want[1] = size - 1;
        check_members(diff, 2, want, "difference");
        MPI_Group_free(&g0);
        MPI_Group_free(&u);
        MPI_Group_free(&in);
        MPI_Group_free(&diff);
        MPI_Group_free(&mid);
    }

    /* range_incl: (size-1 .. 0 step -2) and (0 .. 0 step 1) when that is not repeated */
    int ranges[2][3] = {{size - 1, 0, -2}, {0, 0, 1}};
    int nr = 0;
    for (int r = size - 1; r >= 0; r -= 2)
        want[nr++] = r;
    int nranges = ((size - 1) % 2 == 0) ? 1 : 2;
    if (nranges == 2)
        want[nr++] = 0;
    MPI_Group ranged;
    CHECK_SUCCESS(MPI_Group_range_incl(world_group, nranges, ranges, &ranged));
    check_members(ranged, nr, want, "range_incl");
    MPI_Group_free(&ranged);

    /* translate_ranks: MPI_PROC_NULL stays, missing ranks are MPI_UNDEFINED */
    if (size >= 2) {
        int one = 1, in1[3] = {0, MPI_PROC_NULL, 1}, out[3] = {-9, -9, -9};
        MPI_Group g1;
        MPI_Group_incl(world_group, 1, &one, &g1);
        CHECK_SUCCESS(MPI_Group_translate_ranks(world_group, 3, in1, g1, out));
        CHECK_INT(out[0], MPI_UNDEFINED);
        CHECK_INT(out[1], MPI_PROC_NULL);
        CHECK_INT(out[2], 0);
        MPI_Group_free(&g1);
    }

    /* Errors, raised on MPI_COMM_SELF's handler (MPI_ERRORS_RETURN here). */
    MPI_Group bad = MPI_GROUP_NULL;
    int outside[2] = {0, size + 4};
    rc = MPI_Group_incl(world_group, 2, outside, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, size + 4);
    CHECK_ERR_STRING(rc, "ranks[1]");
    int twice[2] = {0, 0};
    rc = MPI_Group_incl(world_group, 2, twice, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    rc = MPI_Group_excl(world_group, 2, twice, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    int negative = -3;
    rc = MPI_Group_excl(world_group, 1, &negative, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, -3);
    int badrange[1][3] = {{0, size, 1}};
    rc = MPI_Group_range_incl(world_group, 1, badrange, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    int overlap[2][3] = {{0, size - 1, 1}, {0, 0, 1}};
    rc = MPI_Group_range_incl(world_group, 2, overlap, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    int big = size;
    rc = MPI_Group_translate_ranks(world_group, 1, &big, rev, want);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    /* MPI_GROUP_EMPTY may be freed (the handle becomes MPI_GROUP_NULL) and
     * stays usable, as in MPICH and Open MPI. */
    MPI_Group empty = MPI_GROUP_EMPTY;
    CHECK_SUCCESS(MPI_Group_free(&empty));
    CHECK(empty == MPI_GROUP_NULL, "freed MPI_GROUP_EMPTY handle is not MPI_GROUP_NULL");
    int esize = -1;
    MPI_Group_size(MPI_GROUP_EMPTY, &esize);
    CHECK_INT(esize, 0);

    /* Empty results are MPI_GROUP_EMPTY itself, and can be freed. */
    MPI_Group none;
    CHECK_SUCCESS(MPI_Group_incl(world_group, 0, NULL, &none));
    CHECK(none == MPI_GROUP_EMPTY, "MPI_Group_incl with n = 0 is not MPI_GROUP_EMPTY");
    esize = -1;
    MPI_Group_size(none, &esize);
    CHECK_INT(esize, 0);
    MPI_Group_rank(none, &grank);
    CHECK_INT(grank, MPI_UNDEFINED);
    CHECK_SUCCESS(MPI_Group_compare(none, MPI_GROUP_EMPTY, &result));
    CHECK_INT(result, MPI_IDENT);
    CHECK_SUCCESS(MPI_Group_free(&none));
    CHECK_SUCCESS(MPI_Group_difference(world_group, world_group, &none));
    CHECK(none == MPI_GROUP_EMPTY, "an empty difference is not MPI_GROUP_EMPTY");
    MPI_Group_size(none, &esize);
    CHECK_INT(esize, 0);
    CHECK_SUCCESS(MPI_Group_free(&none));

    MPI_Group_free(&rev);
    MPI_Group_free(&world_group);
    return mtest_finish();
}
