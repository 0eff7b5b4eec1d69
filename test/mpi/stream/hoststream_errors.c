/* Errors of the MPIX_Host_stream calls: NULL arguments, unknown pointers,
 * freed streams and double free are MPI_ERR_ARG with a message naming the
 * argument; the errors are raised on MPI_COMM_SELF's error handler. */
#include "mtest.h"

static int handler_calls = 0;
static int handler_last_class = MPI_SUCCESS;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_last_class);
}

static void nothing(void *arg) { (void)arg; }

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rc;

    rc = MPIX_Host_stream_create(NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "stream pointer is NULL");

    rc = MPIX_Host_stream_launch(NULL, nothing, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "stream is NULL");
    rc = MPIX_Host_stream_synchronize(NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    rc = MPIX_Host_stream_free(NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "stream pointer is NULL");

    /* A pointer that was never a stream. */
    int not_a_stream = 0;
    MPIX_Host_stream bogus = (MPIX_Host_stream)&not_a_stream;
    rc = MPIX_Host_stream_launch(bogus, nothing, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "is not a live MPIX_Host_stream");
    rc = MPIX_Host_stream_synchronize(bogus);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    rc = MPIX_Host_stream_free(&bogus);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK(bogus == (MPIX_Host_stream)&not_a_stream, "a failed free changed the handle");

    /* A NULL function. */
    MPIX_Host_stream stream;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    rc = MPIX_Host_stream_launch(stream, NULL, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "fn is NULL");

    /* Double free: through the same variable (now NULL) and through a copy. */
    MPIX_Host_stream copy = stream;
    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    CHECK(stream == NULL, "free did not set the handle to NULL");
    rc = MPIX_Host_stream_free(&stream);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "*stream is NULL");
    rc = MPIX_Host_stream_free(&copy);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "already freed");
    rc = MPIX_Host_stream_launch(copy, nothing, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    rc = MPIX_Host_stream_synchronize(copy);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);

    /* Errors go to MPI_COMM_SELF's handler. */
    MPI_Errhandler errhandler;
    CHECK_SUCCESS(MPI_Comm_create_errhandler(count_errors, &errhandler));
    CHECK_SUCCESS(MPI_Comm_set_errhandler(MPI_COMM_SELF, errhandler));
    rc = MPIX_Host_stream_synchronize(copy);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_INT(handler_calls, 1);
    CHECK_INT(handler_last_class, MPI_ERR_ARG);
    CHECK_SUCCESS(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_SUCCESS(MPI_Errhandler_free(&errhandler));

    return mtest_finish();
}
