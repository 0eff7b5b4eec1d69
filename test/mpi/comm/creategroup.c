/* Group-collective constructors: MPI_Comm_create_group over the even
 * ranks only (the odd ones do not call it, and meanwhile build their own
 * with another tag), repeated in a loop; MPI_Comm_create_from_group from a
 * session-less group of MPI_COMM_WORLD; MPI_Comm_dup_with_info,
 * MPI_Comm_idup(_with_info), MPI_Comm_set_info/get_info; error paths. */
#include <string.h>
#include "mtest.h"

static int rank, size;

static void check_members(MPI_Comm comm, int parity)
{
    int s = -1, r = -1, sum = -1, want = 0;
    MPI_Comm_size(comm, &s);
    MPI_Comm_rank(comm, &r);
    CHECK_INT(s, (size - parity + 1) / 2);
    CHECK_INT(r, rank / 2);
    for (int i = parity; i < size; i += 2)
        want += i;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK_INT(sum, want);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world, half;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int parity = rank % 2, range[1][3] = {{parity, size - 1, 2}};
    MPI_Group_range_incl(world, 1, range, &half);
    for (int iter = 0; iter < 5; iter++) {
        MPI_Comm comm;
        CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, half, 10 + parity, &comm));
        check_members(comm, parity);
        MPI_Comm_free(&comm);
    }
    {
        MPI_Comm comm;
        CHECK_SUCCESS(MPI_Comm_create_from_group(half, parity ? "odd" : "even", MPI_INFO_NULL,
                                                 MPI_ERRORS_RETURN, &comm));
        check_members(comm, parity);
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(comm, &eh);
        CHECK(eh == MPI_ERRORS_RETURN, "create_from_group did not attach the error handler");
        MPI_Errhandler_free(&eh);
        MPI_Comm_free(&comm);
    }
    /* A group this process is not in */
    if (size > 1) {
        MPI_Group other;
        int orange[1][3] = {{1 - parity, size - 1, 2}};
        MPI_Group_range_incl(world, 1, orange, &other);
        MPI_Comm comm;
        CHECK_ERR_CLASS(
            MPI_Comm_create_from_group(other, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm),
            MPI_ERR_GROUP);
        MPI_Group_free(&other);
    }

    /* Info on communicators */
    MPI_Info info, got;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm dup, idup;
    CHECK_SUCCESS(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup));
    char value[64];
    int flag = 0;
    CHECK_SUCCESS(MPI_Comm_get_info(dup, &got));
    MPI_Info_get(got, "mpi_assert_no_any_tag", 63, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0, "dup_with_info lost the hint");
    MPI_Info_free(&got);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "false");
    CHECK_SUCCESS(MPI_Comm_set_info(dup, info));
    CHECK_SUCCESS(MPI_Comm_get_info(dup, &got));
    MPI_Info_get(got, "mpi_assert_no_any_tag", 63, value, &flag);
    CHECK(flag && strcmp(value, "false") == 0, "set_info did not replace the hint");
    MPI_Info_free(&got);
    MPI_Request req;
    CHECK_SUCCESS(MPI_Comm_idup(dup, &idup, &req));
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    int result = -1;
    MPI_Comm_compare(dup, idup, &result);
    CHECK_INT(result, MPI_CONGRUENT);
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, idup);
    CHECK_INT(sum, size * (size - 1) / 2);
    MPI_Comm_free(&idup);
    CHECK_SUCCESS(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &idup, &req));
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_SUCCESS(MPI_Comm_get_info(idup, &got));
    MPI_Info_get(got, "mpi_assert_no_any_tag", 63, value, &flag);
    CHECK(flag, "idup_with_info lost the hint");
    MPI_Info_free(&got);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dup);
    MPI_Info_free(&info);

    /* Errors */
    MPI_Comm bad;
    CHECK_ERR_CLASS(MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)0x12345), MPI_ERR_INFO);
    CHECK_ERR_CLASS(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)0x12345, &bad), MPI_ERR_INFO);

    MPI_Group_free(&half);
    MPI_Group_free(&world);
    return mtest_finish();
}
