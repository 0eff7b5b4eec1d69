/* Communicator error handlers: a user handler sees the failing communicator
 * and the error code; MPI_ERRORS_RETURN returns codes; MPI_Comm_call_errhandler
 * invokes the attached handler; handlers follow MPI_Comm_dup. */
#include "mtest.h"

static int calls = 0;
static int last_code = MPI_SUCCESS;
static MPI_Comm last_comm = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}

int main(int argc, char **argv)
{
    int rank, size, rc, buf[4] = {0, 0, 0, 0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* The default on MPI_COMM_WORLD is MPI_ERRORS_ARE_FATAL. */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_SUCCESS(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler is 0x%x", (unsigned)eh);
    if (eh != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&eh);

    /* MPI_ERRORS_RETURN */
    CHECK_SUCCESS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_SUCCESS(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "handler is 0x%x", (unsigned)eh);
    MPI_Errhandler_free(&eh);
    rc = MPI_Send(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, size + 3);
    rc = MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    CHECK_ERR_STRING_INT(rc, -1);

    /* A user handler on a duplicate communicator. */
    MPI_Comm dup;
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Errhandler user;
    CHECK_SUCCESS(MPI_Comm_create_errhandler(handler, &user));
    CHECK_SUCCESS(MPI_Comm_set_errhandler(dup, user));
    MPI_Errhandler got;
    CHECK_SUCCESS(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == user, "get_errhandler gave 0x%x, set 0x%x", (unsigned)got, (unsigned)user);
    MPI_Errhandler_free(&got);

    rc = MPI_Send(buf, 1, MPI_INT, 0, -5, dup);
    CHECK_INT(calls, 1);
    CHECK(last_comm == dup, "handler got comm 0x%x, expected 0x%x", (unsigned)last_comm,
          (unsigned)dup);
    CHECK_ERR_CLASS(last_code, MPI_ERR_TAG);
    CHECK_ERR_STRING_INT(last_code, -5);
    /* The call returns the error code after the handler returns. */
    CHECK(rc == last_code, "MPI_Send returned %d, handler saw %d", rc, last_code);

    rc = MPI_Recv(buf, 1, MPI_INT, size, 0, dup, MPI_STATUS_IGNORE);
    CHECK_INT(calls, 2);
    CHECK_ERR_CLASS(last_code, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(last_code, size);
    CHECK(rc == last_code, "MPI_Recv returned %d, handler saw %d", rc, last_code);

    /* Errors on MPI_COMM_WORLD do not reach the handler on dup. */
    rc = MPI_Send(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
    CHECK_INT(calls, 2);

    /* Successful calls do not call the handler. */
    int token = rank * 11, in = -1;
    CHECK_SUCCESS(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 3, &in, 1, MPI_INT,
                               (rank + size - 1) % size, 3, dup, MPI_STATUS_IGNORE));
    CHECK_INT(in, ((rank + size - 1) % size) * 11);
    CHECK_INT(calls, 2);

    /* MPI_Comm_call_errhandler passes the given code to the handler. */
    rc = MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    CHECK_INT(rc, MPI_SUCCESS);
    CHECK_INT(calls, 3);
    CHECK_INT(last_code, MPI_ERR_OTHER);
    CHECK(last_comm == dup, "handler got comm 0x%x", (unsigned)last_comm);

    /* A duplicate inherits the handler. */
    MPI_Comm dup2;
    CHECK_SUCCESS(MPI_Comm_dup(dup, &dup2));
    CHECK_SUCCESS(MPI_Comm_get_errhandler(dup2, &got));
    CHECK(got == user, "dup of dup has handler 0x%x, expected 0x%x", (unsigned)got, (unsigned)user);
    MPI_Errhandler_free(&got);
    /* dup2 works for communication: a message to self */
    MPI_Request sreq;
    int self_out = 1000 + rank, self_in = -1;
    CHECK_SUCCESS(MPI_Isend(&self_out, 1, MPI_INT, rank, 0, dup2, &sreq));
    CHECK_SUCCESS(MPI_Recv(&self_in, 1, MPI_INT, rank, 0, dup2, MPI_STATUS_IGNORE));
    CHECK_SUCCESS(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_INT(self_in, 1000 + rank);
    CHECK_INT(calls, 3);
    rc = MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, dup2);
    CHECK_INT(calls, 4);
    CHECK(last_comm == dup2, "handler got comm 0x%x, expected dup2 0x%x", (unsigned)last_comm,
          (unsigned)dup2);
    CHECK_ERR_CLASS(last_code, MPI_ERR_TYPE);

    /* Freeing the handler object keeps it alive while attached. */
    CHECK_SUCCESS(MPI_Errhandler_free(&user));
    CHECK(user == MPI_ERRHANDLER_NULL, "free did not set MPI_ERRHANDLER_NULL");
    rc = MPI_Comm_call_errhandler(dup, MPI_ERR_ARG);
    CHECK_INT(calls, 5);
    CHECK_INT(last_code, MPI_ERR_ARG);

    /* MPI_ERRORS_RETURN via call_errhandler: just returns. */
    CHECK_SUCCESS(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    rc = MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    CHECK_INT(calls, 5);

    /* Bad arguments to the error handler functions themselves. Which handler an
     * invalid communicator argument raises the error on is left open (MPI_COMM_SELF
     * or MPI_COMM_WORLD): both return here. */
    CHECK_SUCCESS(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    rc = MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    rc = MPI_Comm_set_errhandler(dup, MPI_ERRHANDLER_NULL);
    CHECK(rc != MPI_SUCCESS, "setting MPI_ERRHANDLER_NULL succeeded");

    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    return mtest_finish();
}
