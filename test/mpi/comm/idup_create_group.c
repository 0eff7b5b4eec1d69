/* A nonblocking construction and a blocking one in different orders on
 * different processes: even ranks call MPI_Comm_create_group (collective
 * over the group only) and then start MPI_Comm_idup of MPI_COMM_WORLD, odd
 * ranks start the idup first. Odd ranks' pending idup holds their context
 * id bitmap while every rank is in create_group; the agreement must still
 * finish (blocking constructions have a reserve of ids of their own).
 * Then several rounds with a half-world group, and both new communicators
 * are checked with an allreduce. */
#include "mtest.h"

static void round_trip(MPI_Group group, int tag, int in_group)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm group_comm = MPI_COMM_NULL, dup;
    MPI_Request req;
    if (rank % 2 == 0) {
        if (in_group)
            CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &group_comm));
        CHECK_SUCCESS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
    } else {
        CHECK_SUCCESS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
        if (in_group)
            CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &group_comm));
    }
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int one = 1, sum = 0;
    CHECK_SUCCESS(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK_INT(sum, size);
    if (in_group) {
        int gsize;
        MPI_Group_size(group, &gsize);
        CHECK_SUCCESS(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, group_comm));
        CHECK_INT(sum, gsize);
        CHECK_SUCCESS(MPI_Comm_free(&group_comm));
    }
    CHECK_SUCCESS(MPI_Comm_free(&dup));
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world, lower;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    round_trip(world, 0, 1);
    /* The lower half (at least 2 processes): the others only idup. */
    int range[1][3] = {{0, size > 3 ? size / 2 - 1 : size - 1, 1}};
    MPI_Group_range_incl(world, 1, range, &lower);
    for (int i = 0; i < 20; i++)
        round_trip(lower, 100 + i, rank <= range[0][1]);
    MPI_Group_free(&lower);
    MPI_Group_free(&world);
    return mtest_finish();
}
