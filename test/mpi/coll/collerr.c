/* Errors of collectives with MPI_ERRORS_RETURN, detected identically on
 * every process before any communication: invalid root (MPI_ERR_ROOT),
 * operation not defined for the datatype or one-sided only (MPI_ERR_OP),
 * negative count (MPI_ERR_COUNT). Collectives still work afterwards. Also:
 * collective traffic never matches a pending wildcard user receive. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, rc;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int a[4] = {1, 2, 3, 4}, b[4];
    double d = 1.0, e;

    rc = MPI_Bcast(a, 4, MPI_INT, size, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_ROOT);
    CHECK_ERR_STRING_INT(rc, size);
    rc = MPI_Reduce(a, b, 4, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_ROOT);
    rc = MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, size + 2, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_ROOT);
    rc = MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_ROOT);

    rc = MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    rc = MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_LAND, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    rc = MPI_Reduce(a, b, 4, MPI_BYTE, MPI_SUM, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    rc = MPI_Allreduce(a, b, 2, MPI_2INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    rc = MPI_Allreduce(a, b, 4, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    rc = MPI_Allreduce(a, b, 4, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    rc = MPI_Allreduce(a, b, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    rc = MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    rc = MPI_Allreduce(a, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);
    rc = MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);

    /* Everything still works, and a wildcard receive posted before the
     * collectives only gets the user message sent after them. */
    MPI_Request req;
    int user = -1;
    if (rank == 0)
        MPI_Irecv(&user, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    int sum = 0;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(sum, size * (size - 1) / 2);
    int v = rank == 0 ? 42 : 0;
    CHECK_SUCCESS(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK_INT(v, 42);
    CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        int flag = 1;
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "a collective message matched a user wildcard receive (got %d)", user);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        int msg = 777;
        MPI_Send(&msg, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        MPI_Status st;
        MPI_Wait(&req, &st);
        CHECK_INT(user, 777);
        CHECK_INT(st.MPI_SOURCE, size - 1);
        CHECK_INT(st.MPI_TAG, 3);
    }
    return mtest_finish();
}
