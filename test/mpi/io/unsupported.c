/* MPI-IO is not provided yet: every MPI_File_* call links and fails with
 * MPI_ERR_UNSUPPORTED_OPERATION through the default file error handler
 * (MPI_ERRORS_RETURN unless set on MPI_FILE_NULL); MPI_FILE_NULL converts to
 * Fortran and back; file error handlers can be created, set, got and called. */
#include "mtest.h"

static int handler_calls = 0;
static int handler_code = 0;

static void file_handler(MPI_File *file, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    CHECK(*file == MPI_FILE_NULL, "handler got file %p", (void *)*file);
}

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_File fh = MPI_FILE_NULL;

    /* Handle conversion of the only file handle there is. */
    CHECK_INT(MPI_File_c2f(MPI_FILE_NULL), 0);
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL, "MPI_File_f2c(0) is not MPI_FILE_NULL");

    /* The default file error handler is MPI_ERRORS_RETURN. */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_SUCCESS(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "default file errhandler 0x%x", (unsigned)eh);

    int rc = MPI_File_open(MPI_COMM_WORLD, "stmpi-io-test", MPI_MODE_CREATE | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_ERR_STRING(rc, "MPI_File_open");
    CHECK_ERR_STRING(rc, "not provided");
    rc = MPI_File_delete("stmpi-io-test", MPI_INFO_NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    int value = 7;
    MPI_Status status;
    rc = MPI_File_write_at(fh, 0, &value, 1, MPI_INT, &status);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    rc = MPI_File_read_c(fh, &value, 1, MPI_INT, &status);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    /* Arguments are still checked first. */
    rc = MPI_File_open(MPI_COMM_NULL, "x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    rc = MPI_File_open(MPI_COMM_WORLD, "x", MPI_MODE_RDONLY, MPI_INFO_NULL, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);

    /* A user file error handler on MPI_FILE_NULL sees the failures. */
    MPI_Errhandler user = MPI_ERRHANDLER_NULL;
    CHECK_SUCCESS(MPI_File_create_errhandler(file_handler, &user));
    CHECK_SUCCESS(MPI_File_set_errhandler(MPI_FILE_NULL, user));
    rc = MPI_File_open(MPI_COMM_SELF, "x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_INT(handler_calls, 1);
    int cls = 0;
    MPI_Error_class(handler_code, &cls);
    CHECK_INT(cls, MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_SUCCESS(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_OTHER));
    CHECK_INT(handler_calls, 2);
    CHECK_INT(handler_code, MPI_ERR_OTHER);
    MPI_Errhandler got = MPI_ERRHANDLER_NULL;
    CHECK_SUCCESS(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == user, "got 0x%x, set 0x%x", (unsigned)got, (unsigned)user);
    MPI_Errhandler_free(&got);

    /* A communicator error handler is not a file error handler. */
    MPI_Errhandler comm_eh = MPI_ERRHANDLER_NULL;
    CHECK_SUCCESS(MPI_Comm_create_errhandler(comm_handler, &comm_eh));
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, comm_eh);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    MPI_Errhandler_free(&comm_eh);

    CHECK_SUCCESS(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&user);
    rc = MPI_File_open(MPI_COMM_SELF, "x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_INT(handler_calls, 2);

    /* Status conversions: C <-> Fortran <-> Fortran 2008 keep every field. */
    MPI_Status c = {0};
    c.MPI_SOURCE = 3;
    c.MPI_TAG = 77;
    c.MPI_ERROR = MPI_ERR_TRUNCATE;
    MPI_Status_set_elements(&c, MPI_INT, 11);
    MPI_Status_set_cancelled(&c, 1);
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_F08_status f08;
    MPI_Status back;
    CHECK_SUCCESS(MPI_Status_c2f(&c, f));
    CHECK_SUCCESS(MPI_Status_f2f08(f, &f08));
    CHECK_INT(f08.MPI_SOURCE, 3);
    CHECK_INT(f08.MPI_TAG, 77);
    MPI_Fint f2[MPI_F_STATUS_SIZE];
    CHECK_SUCCESS(MPI_Status_f082f(&f08, f2));
    CHECK_SUCCESS(MPI_Status_f2c(f2, &back));
    CHECK_INT(back.MPI_SOURCE, 3);
    CHECK_INT(back.MPI_TAG, 77);
    CHECK_INT(back.MPI_ERROR, MPI_ERR_TRUNCATE);
    int count = 0, cancelled = 0;
    MPI_Get_count(&back, MPI_INT, &count);
    MPI_Test_cancelled(&back, &cancelled);
    CHECK_INT(count, 11);
    CHECK_INT(cancelled, 1);
    CHECK_SUCCESS(MPI_Status_c2f08(&c, &f08));
    CHECK_SUCCESS(MPI_Status_f082c(&f08, &back));
    CHECK_INT(back.MPI_TAG, 77);
    CHECK_ERR_CLASS(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &back), MPI_ERR_ARG);
    CHECK(MPI_F_STATUS_IGNORE != NULL && MPI_F_STATUSES_IGNORE != NULL &&
              MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE,
          "F status IGNORE objects");
    return mtest_finish();
}
