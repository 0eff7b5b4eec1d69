/* Generalized requests whose callbacks fail, and MPI_Cancel of MPI_REQUEST_NULL.
 * - query_fn returning an error: MPI_Wait and MPI_Test return that error; MPI_Waitall
 *   returns MPI_ERR_IN_STATUS with the error in the request's status.
 * - free_fn returning an error (query_fn fine): MPI_Wait returns it.
 * - both callbacks run exactly once, and the status query_fn fills reaches the caller.
 * - MPI_Cancel(&MPI_REQUEST_NULL) is MPI_ERR_REQUEST (MPI 4.1 3.8.4). */
#include "mtest.h"

struct state {
    int query_rc, free_rc;
    int queries, frees;
};

static int query_fn(void *extra, MPI_Status *status)
{
    struct state *s = extra;
    s->queries++;
    MPI_Status_set_elements(status, MPI_INT, 7);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = 3;
    status->MPI_TAG = 11;
    return s->query_rc;
}

static int free_fn(void *extra)
{
    struct state *s = extra;
    s->frees++;
    return s->free_rc;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static MPI_Request start(struct state *s, int query_rc, int free_rc)
{
    MPI_Request req = MPI_REQUEST_NULL;
    s->query_rc = query_rc;
    s->free_rc = free_rc;
    s->queries = s->frees = 0;
    CHECK_SUCCESS(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &req));
    CHECK_SUCCESS(MPI_Grequest_complete(req));
    return req;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    struct state s;
    MPI_Status status;
    int count = -1, flag = 0;

    /* All callbacks succeed: the status is query_fn's. */
    MPI_Request req = start(&s, MPI_SUCCESS, MPI_SUCCESS);
    CHECK_SUCCESS(MPI_Wait(&req, &status));
    CHECK(req == MPI_REQUEST_NULL, "request not freed");
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK_INT(count, 7);
    CHECK_INT(status.MPI_SOURCE, 3);
    CHECK_INT(status.MPI_TAG, 11);
    CHECK_INT(s.queries, 1);
    CHECK_INT(s.frees, 1);

    /* query_fn fails: Wait returns its error. */
    req = start(&s, MPI_ERR_OTHER, MPI_SUCCESS);
    int rc = MPI_Wait(&req, &status);
    CHECK_ERR_CLASS(rc, MPI_ERR_OTHER);
    CHECK(req == MPI_REQUEST_NULL, "request not freed after a failing query_fn");
    CHECK_INT(s.frees, 1);

    /* query_fn fails with an added error class: Test returns that class. */
    int myclass = 0;
    CHECK_SUCCESS(MPI_Add_error_class(&myclass));
    req = start(&s, myclass, MPI_SUCCESS);
    rc = MPI_Test(&req, &flag, &status);
    CHECK_INT(flag, 1);
    CHECK_INT(rc, myclass);

    /* free_fn fails: Wait returns its error. */
    req = start(&s, MPI_SUCCESS, MPI_ERR_ARG);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_INT(s.frees, 1);

    /* Waitall: MPI_ERR_IN_STATUS, the failing request's status holds query_fn's error. */
    struct state s2;
    MPI_Request reqs[2];
    MPI_Status statuses[2];
    reqs[0] = start(&s, MPI_SUCCESS, MPI_SUCCESS);
    reqs[1] = start(&s2, MPI_ERR_OTHER, MPI_SUCCESS);
    rc = MPI_Waitall(2, reqs, statuses);
    CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
    CHECK_INT(statuses[0].MPI_ERROR, MPI_SUCCESS);
    CHECK_ERR_CLASS(statuses[1].MPI_ERROR, MPI_ERR_OTHER);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "requests not freed");
    CHECK_INT(s.frees + s2.frees, 2);

    /* MPI_Cancel of the null request. */
    MPI_Request null_req = MPI_REQUEST_NULL;
    rc = MPI_Cancel(&null_req);
    CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
    CHECK_ERR_STRING(rc, "MPI_REQUEST_NULL");

    return mtest_finish();
}
