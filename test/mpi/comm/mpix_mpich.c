/* MPICH's MPIX_ calls that MPICH's Fortran library needs, with the meaning they have here
 * (include/mpix.h): no failure is ever detected, so MPIX_Comm_agree is the bitwise AND of the
 * flags, MPIX_Comm_shrink a congruent new communicator without the attributes,
 * MPIX_Comm_failure_ack succeeds and MPIX_Comm_failure_get_acked gives MPI_GROUP_EMPTY;
 * MPIX_Comm_revoke is MPI_ERR_UNSUPPORTED_OPERATION, agree on an intercommunicator too.
 * GPU buffers are not supported by the MPI calls: 0 for every kind, MPI_ERR_ARG for an unknown
 * kind. MPIX_Delete_error_class/code/string undo MPI_Add_error_*; a predefined class or code
 * is MPI_ERR_ARG. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank = 0, size = 1, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int flag = rank == size - 1 ? 0x0e : 0x1f;
    CHECK_SUCCESS(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
    CHECK_INT(flag, 0x0e);

    int key = MPI_KEYVAL_INVALID;
    CHECK_SUCCESS(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_SUCCESS(MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)5));
    MPI_Comm shrunk = MPI_COMM_NULL;
    CHECK_SUCCESS(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk));
    int result = -1, attr_flag = 1, srank = -1;
    void *value = NULL;
    CHECK_SUCCESS(MPI_Comm_compare(MPI_COMM_WORLD, shrunk, &result));
    CHECK_INT(result, MPI_CONGRUENT);
    CHECK_SUCCESS(MPI_Comm_rank(shrunk, &srank));
    CHECK_INT(srank, rank);
    CHECK_SUCCESS(MPI_Comm_get_attr(shrunk, key, &value, &attr_flag));
    CHECK_INT(attr_flag, 0);
    int sum = 0;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk));
    CHECK_INT(sum, size * (size - 1) / 2);
    CHECK_SUCCESS(MPIX_Comm_failure_ack(shrunk));
    MPI_Group failed = MPI_GROUP_NULL;
    CHECK_SUCCESS(MPIX_Comm_failure_get_acked(shrunk, &failed));
    int gsize = -1;
    CHECK_SUCCESS(MPI_Group_size(failed, &gsize));
    CHECK_INT(gsize, 0);
    CHECK(failed == MPI_GROUP_EMPTY, "failed group is not MPI_GROUP_EMPTY");
    CHECK_ERR_CLASS(MPIX_Comm_revoke(shrunk), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_CLASS(MPIX_Comm_agree(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
    CHECK_SUCCESS(MPI_Comm_free(&shrunk));
    CHECK_SUCCESS(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    CHECK_SUCCESS(MPI_Comm_free_keyval(&key));

    if (size > 1) {
        MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
        CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        CHECK_SUCCESS(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter));
        CHECK_ERR_CLASS(MPIX_Comm_agree(inter, &flag), MPI_ERR_UNSUPPORTED_OPERATION);
        CHECK_SUCCESS(MPI_Comm_free(&inter));
        CHECK_SUCCESS(MPI_Comm_free(&half));
    }

    int supported = -1;
    const int kinds[] = {MPIX_GPU_SUPPORT_CUDA, MPIX_GPU_SUPPORT_ZE, MPIX_GPU_SUPPORT_HIP};
    for (int i = 0; i < 3; i++) {
        supported = -1;
        CHECK_SUCCESS(MPIX_GPU_query_support(kinds[i], &supported));
        CHECK_INT(supported, 0);
    }
    CHECK_ERR_CLASS(MPIX_GPU_query_support(7, &supported), MPI_ERR_ARG);
    CHECK_INT(MPIX_Query_cuda_support(), 0);
    CHECK_INT(MPIX_Query_hip_support(), 0);
    CHECK_INT(MPIX_Query_ze_support(), 0);

    int eclass = 0, ecode = 0, cls = -1, len = -1;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_SUCCESS(MPI_Add_error_class(&eclass));
    CHECK_SUCCESS(MPI_Add_error_code(eclass, &ecode));
    CHECK_SUCCESS(MPI_Add_error_string(ecode, "the added code"));
    CHECK_SUCCESS(MPI_Error_string(ecode, text, &len));
    CHECK(strcmp(text, "the added code") == 0, "string '%s'", text);
    CHECK_SUCCESS(MPIX_Delete_error_string(ecode));
    CHECK_SUCCESS(MPI_Error_string(ecode, text, &len));
    CHECK_INT(len, 0);
    CHECK_SUCCESS(MPIX_Delete_error_code(ecode));
    CHECK_ERR_CLASS(MPI_Error_class(ecode, &cls), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPIX_Delete_error_code(ecode), MPI_ERR_ARG);
    CHECK_SUCCESS(MPIX_Delete_error_class(eclass));
    CHECK_ERR_CLASS(MPI_Add_error_code(eclass, &ecode), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPIX_Delete_error_class(MPI_ERR_OTHER), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPIX_Delete_error_code(MPI_ERR_TRUNCATE), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPIX_Delete_error_string(MPI_ERR_TRUNCATE), MPI_ERR_ARG);

    return mtest_finish();
}
