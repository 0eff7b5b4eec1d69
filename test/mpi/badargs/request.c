/* Bad arguments to completion and status calls: NULL and invalid request
 * handles, freed requests, message handles where requests belong, negative
 * counts, NULL arrays and output pointers, statuses. All local. */
#include "badargs.h"

int main(int argc, char **argv)
{
    int rank, size, flag, index, outcount, indices[4];
    ba_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request req, reqs[2];
    MPI_Status st, sts[2];
    const MPI_Request bogus = (MPI_Request)0x2c00beef;
    int a = 0, count;
    MPI_Count big;

    /* A freed request handle. */
    MPI_Request freed;
    MPI_Irecv(&a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &freed);
    MPI_Request freed_copy = freed;
    MPI_Wait(&freed, MPI_STATUS_IGNORE);

    EXPECT(MPI_ERR_ARG, "request", MPI_Wait(NULL, &st));
    req = bogus;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Wait(&req, &st));
    req = freed_copy;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Wait(&req, &st));
    req = bogus;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Test(&req, &flag, &st));
    MPI_Irecv(&a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    EXPECT(MPI_ERR_ARG, "flag", MPI_Test(&req, NULL, &st));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(MPI_ERR_COUNT, "count", MPI_Waitall(-1, reqs, sts));
    EXPECT(MPI_ERR_ARG, "array_of_requests", MPI_Waitall(2, NULL, sts));
    reqs[0] = MPI_REQUEST_NULL;
    reqs[1] = bogus;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Waitall(2, reqs, sts));
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Waitany(2, reqs, &index, &st));
    EXPECT(MPI_ERR_ARG, "index", MPI_Waitany(2, reqs, NULL, &st));
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Testall(2, reqs, &flag, sts));
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Testany(2, reqs, &index, &flag, &st));
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Waitsome(2, reqs, &outcount, indices, sts));
    EXPECT(MPI_ERR_COUNT, "count", MPI_Testsome(-2, reqs, &outcount, indices, sts));
    EXPECT(MPI_ERR_ARG, "outcount", MPI_Testsome(2, reqs, NULL, indices, sts));
    req = bogus;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Start(&req));
    MPI_Irecv(&a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Start(&req)); /* not persistent */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(MPI_ERR_ARG, "request", MPI_Start(NULL));
    reqs[0] = bogus;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Startall(1, reqs));
    EXPECT(MPI_ERR_COUNT, "count", MPI_Startall(-1, reqs));
    req = MPI_REQUEST_NULL;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Request_free(&req));
    req = bogus;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Request_free(&req));
    req = bogus;
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Cancel(&req));
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Request_get_status(bogus, &flag, &st));
    EXPECT(MPI_ERR_ARG, "flag", MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st));

    /* Status queries */
    MPI_Recv(&a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    EXPECT(MPI_ERR_ARG, "status", MPI_Get_count(NULL, MPI_INT, &count));
    EXPECT(MPI_ERR_ARG, "status", MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &count));
    EXPECT(MPI_ERR_TYPE, "datatype", MPI_Get_count(&st, MPI_DATATYPE_NULL, &count));
    EXPECT(MPI_ERR_ARG, "count", MPI_Get_count(&st, MPI_INT, NULL));
    EXPECT(MPI_ERR_ARG, "count", MPI_Get_elements_x(&st, MPI_INT, NULL));
    EXPECT(MPI_ERR_TYPE, "datatype", MPI_Get_elements_c(&st, (MPI_Datatype)0x4cbadbad, &big));
    EXPECT(MPI_ERR_COUNT, "count", MPI_Status_set_elements(&st, MPI_INT, -1));
    EXPECT(MPI_ERR_ARG, "status", MPI_Status_set_cancelled(NULL, 1));
    EXPECT(MPI_ERR_ARG, "flag", MPI_Test_cancelled(&st, NULL));
    EXPECT(MPI_ERR_REQUEST, "request", MPI_Grequest_complete(bogus));
    EXPECT(MPI_ERR_ARG, "request", MPI_Grequest_start(NULL, NULL, NULL, NULL, NULL));

    /* Legal: MPI_REQUEST_NULL completes at once with an empty status. */
    req = MPI_REQUEST_NULL;
    EXPECT_OK(MPI_Wait(&req, &st));
    EXPECT_OK(MPI_Test(&req, &flag, &st));
    EXPECT_OK(MPI_Waitall(0, NULL, NULL));
    return ba_finish();
}
