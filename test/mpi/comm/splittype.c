/* MPI_Comm_split_type: MPI_COMM_TYPE_SHARED (every rank of this launch is
 * on one host, so the node communicator is MPI_COMM_WORLD's group, ordered
 * by key), MPI_UNDEFINED, MPI_COMM_TYPE_HW_GUIDED with
 * "mpi_shared_memory", an hwloc level, an unknown value and no info (the
 * last two give MPI_COMM_NULL), MPI_COMM_TYPE_HW_UNGUIDED (a strict subset
 * or MPI_COMM_NULL everywhere, labelled with mpi_hw_resource_type), and a
 * bad split_type. */
#include <string.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm node;
    CHECK_SUCCESS(
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &node));
    int nsize = -1, nrank = -1;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    CHECK_INT(nsize, size);
    CHECK_INT(nrank, size - 1 - rank);
    /* shared memory works across it: a shared window */
    {
        MPI_Win win;
        int *base;
        CHECK_SUCCESS(
            MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win));
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&node);

    MPI_Comm none;
    CHECK_SUCCESS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none));
    CHECK(none == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm hw;
    CHECK_SUCCESS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &hw));
    CHECK(hw != MPI_COMM_NULL, "mpi_shared_memory gave MPI_COMM_NULL");
    if (hw != MPI_COMM_NULL) {
        MPI_Comm_size(hw, &nsize);
        CHECK_INT(nsize, size);
        MPI_Info used;
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        CHECK_SUCCESS(MPI_Comm_get_info(hw, &used));
        MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag);
        CHECK(flag && strcmp(value, "mpi_shared_memory") == 0, "resource type not reported");
        MPI_Info_free(&used);
        MPI_Comm_free(&hw);
    }
    /* an hwloc level: members share the instance, so the sizes add up */
    MPI_Info_set(info, "mpi_hw_resource_type", "Package");
    CHECK_SUCCESS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &hw));
    {
        int in = hw != MPI_COMM_NULL, s = 0, total = 0, counted = 0;
        if (in)
            MPI_Comm_size(hw, &s);
        /* sum over members of 1/s must give the number of packages; check
         * the weaker fact that each communicator's members agree on s */
        int smax = s, smin = s;
        if (in) {
            MPI_Allreduce(&s, &smax, 1, MPI_INT, MPI_MAX, hw);
            MPI_Allreduce(&s, &smin, 1, MPI_INT, MPI_MIN, hw);
            CHECK_INT(smax, smin);
            MPI_Comm_free(&hw);
        }
        (void)total;
        (void)counted;
    }
    MPI_Info_set(info, "mpi_hw_resource_type", "no-such-resource");
    CHECK_SUCCESS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &hw));
    CHECK(hw == MPI_COMM_NULL, "unknown resource type gave a communicator");
    CHECK_SUCCESS(
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, MPI_INFO_NULL, &hw));
    CHECK(hw == MPI_COMM_NULL, "HW_GUIDED without info gave a communicator");
    MPI_Info_free(&info);

    /* Unguided: a strict subset, or MPI_COMM_NULL on every process */
    CHECK_SUCCESS(
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &hw));
    int got = hw != MPI_COMM_NULL, any = 0;
    MPI_Allreduce(&got, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (hw != MPI_COMM_NULL) {
        MPI_Comm_size(hw, &nsize);
        CHECK(nsize < size, "unguided split is not a strict subset (%d of %d)", nsize, size);
        MPI_Info used;
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Comm_get_info(hw, &used);
        MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag);
        CHECK(flag, "unguided split does not name its resource type");
        MPI_Info_free(&used);
        MPI_Comm_free(&hw);
    }
    if (size == 1)
        CHECK(!any, "unguided split of one process is not MPI_COMM_NULL");

    /* Unguided with an info object: the level is reported in it too (as MPICH does). */
    MPI_Info asked;
    MPI_Info_create(&asked);
    CHECK_SUCCESS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, asked, &hw));
    if (hw != MPI_COMM_NULL) {
        char value[MPI_MAX_INFO_VAL + 1], named[MPI_MAX_INFO_VAL + 1];
        int flag = 0, flag2 = 0;
        MPI_Info_get(asked, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag);
        CHECK(flag, "unguided split does not report its resource type in the info argument");
        MPI_Info used;
        MPI_Comm_get_info(hw, &used);
        MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, named, &flag2);
        CHECK(flag && flag2 && strcmp(value, named) == 0,
              "info argument says \"%s\", comm says \"%s\"", flag ? value : "", flag2 ? named : "");
        MPI_Info_free(&used);
        MPI_Comm_free(&hw);
    }
    MPI_Info_free(&asked);

    CHECK_ERR_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &hw), MPI_ERR_ARG);
    return mtest_finish();
}
