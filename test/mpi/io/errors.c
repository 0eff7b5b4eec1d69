/* I/O errors and file error handlers: a missing file (MPI_ERR_NO_SUCH_FILE, the message names
 * the file and the call), EXCL on an existing file (MPI_ERR_FILE_EXISTS), a read-only file
 * opened for writing (MPI_ERR_ACCESS; as root the opening rank drops its effective uid for
 * the call), a directory opened as a file, a bad amode (MPI_ERR_AMODE), writes on a read-only
 * handle (MPI_ERR_READ_ONLY) and reads on a write-only one (MPI_ERR_ACCESS), negative
 * offsets, MPI_FILE_NULL as a handle (MPI_ERR_FILE); the default handler on files is
 * MPI_ERRORS_RETURN, a handler set on MPI_FILE_NULL is inherited by files opened after, a
 * handler on a file sees that file's errors, MPI_File_call_errhandler calls it. */
#include "iotest.h"

#include <errno.h>
#include <sys/stat.h>

static int calls = 0, last_class = -1;
static MPI_File last_file = MPI_FILE_NULL;

static void handler(MPI_File *fh, int *code, ...)
{
    calls++;
    last_file = *fh;
    last_class = mtest_err_class(*code);
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "errors", path);
    MPI_File fh = MPI_FILE_NULL;
    MPI_Status st;
    int rc, v = 7;

    /* The default handler on MPI_FILE_NULL (and so on new files) returns. */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    CHECK_SUCCESS(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "default file errhandler is not MPI_ERRORS_RETURN");

    /* No such file: every rank gets the error, and the message names file and call. */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    CHECK_ERR_STRING(rc, base(path));
    CHECK_ERR_STRING(rc, "MPI_File_open");
    CHECK(fh == MPI_FILE_NULL, "failed open left a handle");
    char nodir[600];
    snprintf(nodir, sizeof nodir, "%s-nodir/file", path);
    rc = MPI_File_open(MPI_COMM_WORLD, nodir, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);

    /* Create it; EXCL now fails on every rank. */
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_write_at(fh, rank * 4, &v, 1, MPI_INT, &st));
    /* This file's handler is a copy of MPI_FILE_NULL's: MPI_ERRORS_RETURN. */
    CHECK_SUCCESS(MPI_File_get_errhandler(fh, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "new file's errhandler is not MPI_ERRORS_RETURN");
    /* Errors on an open file: negative offset, MPI_FILE_NULL as a handle. */
    rc = MPI_File_write_at(fh, -4, &v, 1, MPI_INT, &st);
    CHECK(rc != MPI_SUCCESS, "write_at a negative offset succeeded");
    rc = MPI_File_read_at(MPI_FILE_NULL, 0, &v, 1, MPI_INT, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_FILE);
    CHECK_SUCCESS(MPI_File_close(&fh));
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                       MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_FILE_EXISTS);
    CHECK_ERR_STRING(rc, base(path));

    /* Bad amode. */
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_AMODE);

    /* Writing a read-only handle, reading a write-only one. */
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    rc = MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_READ_ONLY);
    rc = MPI_File_write_at_all(fh, 0, &v, 1, MPI_INT, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_READ_ONLY);
    CHECK_SUCCESS(MPI_File_close(&fh));
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    rc = MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_ACCESS);

    /* A handler on the file sees its errors; call_errhandler calls it. */
    MPI_Errhandler user;
    CHECK_SUCCESS(MPI_File_create_errhandler(handler, &user));
    CHECK_SUCCESS(MPI_File_set_errhandler(fh, user));
    rc = MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st);
    CHECK_INT(calls, 1);
    CHECK_INT(last_class, MPI_ERR_ACCESS);
    CHECK(last_file == fh, "handler got another file handle");
    CHECK_SUCCESS(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK_INT(calls, 2);
    CHECK_INT(last_class, MPI_ERR_IO);
    MPI_Errhandler got;
    CHECK_SUCCESS(MPI_File_get_errhandler(fh, &got));
    CHECK(got == user, "get_errhandler on the file did not return the user handler");
    MPI_Errhandler_free(&got);
    CHECK_SUCCESS(MPI_File_close(&fh));

    /* A handler on MPI_FILE_NULL gets open errors and is inherited by new files. */
    CHECK_SUCCESS(MPI_File_set_errhandler(MPI_FILE_NULL, user));
    calls = 0;
    rc = MPI_File_open(MPI_COMM_WORLD, nodir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    CHECK_INT(calls, 1);
    CHECK(last_file == MPI_FILE_NULL, "open error handler did not get MPI_FILE_NULL");
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_get_errhandler(fh, &got));
    CHECK(got == user, "a new file did not inherit MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&got);
    calls = 0;
    MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st);
    CHECK_INT(calls, 1);
    CHECK_INT(last_class, MPI_ERR_READ_ONLY);
    CHECK_SUCCESS(MPI_File_close(&fh));
    CHECK_SUCCESS(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&user);

    /* A read-only file opened for writing, on one rank (MPI_COMM_SELF). */
    if (rank == 0) {
        chmod(path, 0444);
        int dropped = 0;
        if (geteuid() == 0)
            dropped = seteuid(65534) == 0;
        rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        if (dropped)
            CHECK(seteuid(0) == 0, "seteuid(0) failed: %s", strerror(errno));
        if (geteuid() != 0 || dropped) {
            CHECK_ERR_CLASS(rc, MPI_ERR_ACCESS);
            CHECK_ERR_STRING(rc, base(path));
        } else {
            printf("read-only file check not run: root and seteuid failed\n");
        }
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
        chmod(path, 0644);
        /* A directory where a file is expected. */
        char dir[600];
        snprintf(dir, sizeof dir, "%s-dir", path);
        CHECK(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
        rc = MPI_File_open(MPI_COMM_SELF, dir, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        CHECK_ERR_CLASS(rc, MPI_ERR_BAD_FILE);
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
        rc = MPI_File_delete(dir, MPI_INFO_NULL);
        CHECK(rc != MPI_SUCCESS || io_raw_size(dir) == -1, "delete of a directory");
        rmdir(dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    return mtest_finish();
}
