/* MPI_Comm_create: members of the group get a communicator ordered as the
 * group, others MPI_COMM_NULL; disjoint groups per process (MPI 2.2); a
 * group that is not a subset of the communicator is MPI_ERR_GROUP. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* The even ranks, in reverse order. */
    int n = (size + 1) / 2, ranks[64];
    for (int i = 0; i < n; i++)
        ranks[i] = 2 * (n - 1 - i);
    MPI_Group evens;
    CHECK_SUCCESS(MPI_Group_incl(world, n, ranks, &evens));
    MPI_Comm ecomm = MPI_COMM_WORLD;
    CHECK_SUCCESS(MPI_Comm_create(MPI_COMM_WORLD, evens, &ecomm));
    if (rank % 2 == 1) {
        CHECK(ecomm == MPI_COMM_NULL, "odd rank got a communicator");
    } else {
        int r = -1, s = -1;
        MPI_Comm_rank(ecomm, &r);
        MPI_Comm_size(ecomm, &s);
        CHECK_INT(s, n);
        CHECK_INT(r, n - 1 - rank / 2);
        int root_world = -1;
        if (r == 0)
            root_world = rank;
        CHECK_SUCCESS(MPI_Bcast(&root_world, 1, MPI_INT, 0, ecomm));
        CHECK_INT(root_world, 2 * (n - 1));
        MPI_Comm_free(&ecomm);
    }
    MPI_Group_free(&evens);

    /* Disjoint groups: each process passes the group of its parity. */
    int m = 0;
    for (int r = rank % 2; r < size; r += 2)
        ranks[m++] = r;
    MPI_Group mine;
    CHECK_SUCCESS(MPI_Group_incl(world, m, ranks, &mine));
    MPI_Comm pcomm;
    CHECK_SUCCESS(MPI_Comm_create(MPI_COMM_WORLD, mine, &pcomm));
    CHECK(pcomm != MPI_COMM_NULL, "member got MPI_COMM_NULL");
    int sum = -1, want = 0;
    for (int r = rank % 2; r < size; r += 2)
        want += r;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, pcomm));
    CHECK_INT(sum, want);

    /* Nested: create from the parity communicator with its first process only. */
    MPI_Group pgroup, first;
    MPI_Comm_group(pcomm, &pgroup);
    int zero = 0;
    MPI_Group_incl(pgroup, 1, &zero, &first);
    MPI_Comm solo;
    CHECK_SUCCESS(MPI_Comm_create(pcomm, first, &solo));
    if (rank < 2) {
        int s = -1;
        CHECK(solo != MPI_COMM_NULL, "first member got MPI_COMM_NULL");
        MPI_Comm_size(solo, &s);
        CHECK_INT(s, 1);
        MPI_Comm_free(&solo);
    } else {
        CHECK(solo == MPI_COMM_NULL, "non-member got a communicator");
    }
    MPI_Group_free(&first);

    /* The world group is not a subset of a parity communicator. */
    if (size > 1) {
        MPI_Comm bad = MPI_COMM_NULL;
        int rc = MPI_Comm_create(pcomm, world, &bad);
        CHECK_ERR_CLASS(rc, MPI_ERR_GROUP);
    }
    MPI_Group_free(&pgroup);
    MPI_Comm_free(&pcomm);

    /* The empty group: nobody is a member. */
    MPI_Comm none = MPI_COMM_WORLD;
    CHECK_SUCCESS(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &none));
    CHECK(none == MPI_COMM_NULL, "empty group gave a communicator");

    MPI_Group_free(&mine);
    MPI_Group_free(&world);
    return mtest_finish();
}
