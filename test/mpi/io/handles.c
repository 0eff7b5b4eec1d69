/* Handle conversions: MPI_FILE_NULL is 0 in Fortran and back, an open file converts both
 * ways and is null after close; file error handlers are not communicator error handlers;
 * statuses convert C <-> Fortran <-> Fortran 2008 keeping every field (MPI_File_* calls
 * return statuses through the same conversions in the Fortran bindings). */
#include "iotest.h"

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    CHECK_INT(MPI_File_c2f(MPI_FILE_NULL), 0);
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL, "MPI_File_f2c(0) is not MPI_FILE_NULL");
    char path[512];
    io_path(MPI_COMM_WORLD, "handles", path);
    MPI_File fh = MPI_FILE_NULL;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path,
                                MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                                MPI_INFO_NULL, &fh));
    MPI_Fint ffile = MPI_File_c2f(fh);
    CHECK(ffile != 0, "an open file converts to 0");
    CHECK(MPI_File_f2c(ffile) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) is another file");
    /* A communicator error handler is not a file error handler. */
    MPI_Errhandler comm_eh = MPI_ERRHANDLER_NULL;
    CHECK_SUCCESS(MPI_Comm_create_errhandler(comm_handler, &comm_eh));
    CHECK_ERR_CLASS(MPI_File_set_errhandler(fh, comm_eh), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_File_set_errhandler(MPI_FILE_NULL, comm_eh), MPI_ERR_ARG);
    MPI_Errhandler_free(&comm_eh);
    CHECK_SUCCESS(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "closed handle is not MPI_FILE_NULL");
    /* Arguments are checked first. */
    CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_NULL, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                    MPI_ERR_COMM);
    CHECK_ERR_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, NULL),
                    MPI_ERR_ARG);

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
