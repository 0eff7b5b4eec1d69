/* MPI_Comm_dup, MPI_Comm_compare, MPI_Comm_group, names, and MPI_Comm_free:
 * a duplicate is congruent, isolates traffic from its parent, and freeing
 * the predefined communicators fails with MPI_ERR_COMM. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, result, len;
    char name[MPI_MAX_OBJECT_NAME];
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup;
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int drank = -1, dsize = -1;
    MPI_Comm_rank(dup, &drank);
    MPI_Comm_size(dup, &dsize);
    CHECK_INT(drank, rank);
    CHECK_INT(dsize, size);
    CHECK_SUCCESS(MPI_Comm_compare(dup, MPI_COMM_WORLD, &result));
    CHECK_INT(result, MPI_CONGRUENT);
    CHECK_SUCCESS(MPI_Comm_compare(dup, dup, &result));
    CHECK_INT(result, MPI_IDENT);
    CHECK_SUCCESS(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result));
    CHECK_INT(result, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

    /* A reordered copy is similar. */
    MPI_Comm reversed;
    CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed));
    CHECK_SUCCESS(MPI_Comm_compare(reversed, MPI_COMM_WORLD, &result));
    CHECK_INT(result, size == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
    MPI_Comm_free(&reversed);

    /* Same tag, same peers: messages on dup never match receives on WORLD. */
    if (size >= 2) {
        if (rank == 0) {
            int a = 111, b = 222;
            MPI_Send(&a, 1, MPI_INT, 1, 5, dup);
            MPI_Send(&b, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        } else if (rank == 1) {
            int got_world = 0, got_dup = 0;
            MPI_Recv(&got_world, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&got_dup, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
            CHECK_INT(got_world, 222);
            CHECK_INT(got_dup, 111);
        }
    }

    /* A collective on dup interleaved with user traffic on dup's p2p context. */
    int sum = -1;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK_INT(sum, size * (size - 1) / 2);

    /* Groups. */
    MPI_Group g;
    CHECK_SUCCESS(MPI_Comm_group(dup, &g));
    int gsize = -1, grank = -1;
    MPI_Group_size(g, &gsize);
    MPI_Group_rank(g, &grank);
    CHECK_INT(gsize, size);
    CHECK_INT(grank, rank);
    CHECK_SUCCESS(MPI_Group_free(&g));
    CHECK(g == MPI_GROUP_NULL, "MPI_Group_free did not reset the handle");

    /* Names. */
    CHECK_SUCCESS(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world is named \"%s\"", name);
    CHECK_INT(len, 14);
    CHECK_SUCCESS(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self is named \"%s\"", name);
    CHECK_SUCCESS(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "") == 0 && len == 0, "dup is named \"%s\"", name);
    CHECK_SUCCESS(MPI_Comm_set_name(dup, "my duplicate"));
    CHECK_SUCCESS(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my duplicate") == 0, "dup is named \"%s\"", name);
    CHECK_INT(len, 12);
    MPI_Comm dup2;
    CHECK_SUCCESS(MPI_Comm_dup(dup, &dup2));
    CHECK_SUCCESS(MPI_Comm_get_name(dup2, name, &len));
    CHECK(len == 0, "names are not inherited, got \"%s\"", name);
    MPI_Comm_free(&dup2);

    /* Error handlers are inherited. */
    MPI_Errhandler eh;
    CHECK_SUCCESS(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "dup's handler is 0x%x", (unsigned)eh);
    MPI_Errhandler_free(&eh);

    /* Freeing. */
    CHECK_SUCCESS(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "handle not reset");
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF, null = MPI_COMM_NULL;
    int rc = MPI_Comm_free(&world);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    CHECK_ERR_STRING(rc, "MPI_COMM_WORLD");
    CHECK(world == MPI_COMM_WORLD, "handle changed");
    rc = MPI_Comm_free(&self);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    rc = MPI_Comm_free(&null);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);

    /* Deep chains and many live communicators at once. */
    enum { kLive = 64 };
    MPI_Comm live[kLive];
    live[0] = MPI_COMM_WORLD;
    for (int i = 1; i < kLive; i++)
        CHECK_SUCCESS(MPI_Comm_dup(live[i - 1], &live[i]));
    for (int i = 1; i < kLive; i++) {
        int v = -1;
        CHECK_SUCCESS(MPI_Allreduce(&i, &v, 1, MPI_INT, MPI_MAX, live[i]));
        CHECK_INT(v, i);
    }
    for (int i = kLive - 1; i >= 1; i--)
        CHECK_SUCCESS(MPI_Comm_free(&live[i]));

    return mtest_finish();
}
