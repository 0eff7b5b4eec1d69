/* Bad arguments to communicator, group and attribute calls: NULL, freed and
 * predefined-where-not-allowed handles, ranks outside a group, NULL outputs,
 * invalid keyvals. Collective calls (dup, split, create) fail on every
 * process alike. */
#include "badargs.h"

int main(int argc, char **argv)
{
    int rank, size, result, flag;
    ba_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Comm W = MPI_COMM_WORLD;
    MPI_Comm c = MPI_COMM_NULL, freed_comm;
    MPI_Comm_dup(W, &freed_comm);
    MPI_Comm freed_copy = freed_comm;
    MPI_Comm_free(&freed_comm);
    MPI_Group world_group, g = MPI_GROUP_NULL, freed_group;
    MPI_Comm_group(W, &world_group);
    MPI_Group_incl(world_group, 1, &rank, &freed_group);
    MPI_Group freed_group_copy = freed_group;
    MPI_Group_free(&freed_group);

    EXPECT(MPI_ERR_COMM, "comm", MPI_Comm_rank(MPI_COMM_NULL, &result));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Comm_size(freed_copy, &result));
    EXPECT(MPI_ERR_ARG, "rank", MPI_Comm_rank(W, NULL));
    EXPECT(MPI_ERR_ARG, "newcomm", MPI_Comm_dup(W, NULL));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Comm_dup(MPI_COMM_NULL, &c));
    EXPECT(MPI_ERR_ARG, "newcomm", MPI_Comm_split(W, 0, 0, NULL));
    EXPECT(MPI_ERR_GROUP, "group", MPI_Comm_create(W, MPI_GROUP_NULL, &c));
    EXPECT(MPI_ERR_GROUP, "group", MPI_Comm_create(W, freed_group_copy, &c));
    EXPECT(MPI_ERR_ARG, "comm", MPI_Comm_free(NULL));
    c = MPI_COMM_WORLD;
    EXPECT(MPI_ERR_COMM, "MPI_COMM_WORLD", MPI_Comm_free(&c));
    c = MPI_COMM_NULL;
    EXPECT(MPI_ERR_COMM, "comm", MPI_Comm_free(&c));
    c = freed_copy;
    EXPECT(MPI_ERR_COMM, "comm", MPI_Comm_free(&c));
    EXPECT(MPI_ERR_COMM, "comm1", MPI_Comm_compare(MPI_COMM_NULL, W, &result));
    EXPECT(MPI_ERR_ARG, "result", MPI_Comm_compare(W, W, NULL));
    EXPECT(MPI_ERR_ARG, "comm_name", MPI_Comm_set_name(W, NULL));
    EXPECT(MPI_ERR_ARG, "resultlen", MPI_Comm_get_name(W, (char[MPI_MAX_OBJECT_NAME]){0}, NULL));

    EXPECT(MPI_ERR_ARG, "color", MPI_Comm_split(W, -5, 0, &c));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c));
    EXPECT(MPI_ERR_ARG, "newcomm", MPI_Comm_create(W, world_group, NULL));

    /* Groups */
    int bad_ranks[2] = {0, size};
    int dup_ranks[2] = {0, 0};
    int ranges[1][3] = {{0, size, 1}};
    EXPECT(MPI_ERR_RANK, "ranks", MPI_Group_incl(world_group, 2, bad_ranks, &g));
    EXPECT(MPI_ERR_RANK, "ranks", MPI_Group_incl(world_group, 2, dup_ranks, &g));
    {
        /* More ranks than the group has: one of them repeats or is invalid. */
        int many[64];
        for (int i = 0; i <= size && i < 64; ++i)
            many[i] = i % size;
        EXPECT(MPI_ERR_RANK, "ranks", MPI_Group_incl(world_group, size + 1, many, &g));
    }
    EXPECT(MPI_ERR_ARG, "n", MPI_Group_incl(world_group, -1, bad_ranks, &g));
    EXPECT(MPI_ERR_RANK, "ranks", MPI_Group_excl(world_group, 2, bad_ranks, &g));
    EXPECT(MPI_ERR_RANK, "ranges", MPI_Group_range_incl(world_group, 1, ranges, &g));
    EXPECT(MPI_ERR_GROUP, "group", MPI_Group_size(MPI_GROUP_NULL, &result));
    EXPECT(MPI_ERR_GROUP, "group", MPI_Group_rank(freed_group_copy, &result));
    EXPECT(MPI_ERR_ARG, "group", MPI_Group_free(NULL));
    g = MPI_GROUP_NULL;
    EXPECT(MPI_ERR_GROUP, "group", MPI_Group_free(&g));
    int out[2];
    EXPECT(MPI_ERR_RANK, "ranks1",
           MPI_Group_translate_ranks(world_group, 2, bad_ranks, world_group, out));
    EXPECT(MPI_ERR_GROUP, "group2", MPI_Group_union(world_group, MPI_GROUP_NULL, &g));
    EXPECT(MPI_ERR_ARG, "newgroup", MPI_Group_intersection(world_group, world_group, NULL));

    /* Attributes */
    int keyval = MPI_KEYVAL_INVALID;
    void *value;
    EXPECT(MPI_ERR_KEYVAL, "keyval", MPI_Comm_get_attr(W, 123456, &value, &flag));
    EXPECT(MPI_ERR_KEYVAL, "keyval", MPI_Comm_set_attr(W, MPI_KEYVAL_INVALID, NULL));
    EXPECT(MPI_ERR_KEYVAL, "keyval", MPI_Comm_set_attr(W, MPI_TAG_UB, NULL)); /* predefined */
    EXPECT(MPI_ERR_KEYVAL, "keyval", MPI_Comm_delete_attr(W, 98765));
    EXPECT(MPI_ERR_ARG, "comm_keyval", MPI_Comm_create_keyval(NULL, NULL, NULL, NULL));
    EXPECT(MPI_ERR_KEYVAL, "keyval", MPI_Comm_free_keyval(&keyval));
    keyval = MPI_TAG_UB;
    EXPECT(MPI_ERR_KEYVAL, "keyval", MPI_Comm_free_keyval(&keyval));
    EXPECT(MPI_ERR_ARG, "flag", MPI_Comm_get_attr(W, MPI_TAG_UB, &value, NULL));

    MPI_Group_free(&world_group);
    return ba_finish();
}
