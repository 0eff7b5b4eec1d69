/* Errors of nonblocking file operations surface in the completion call and go to the file's
 * error handler, not to a communicator's: MPI_COMM_WORLD and MPI_COMM_SELF have
 * MPI_ERRORS_ARE_FATAL here, so an error raised on either ends the program.
 *
 * The failure: RLIMIT_FSIZE lowered to 64 KiB (SIGXFSZ ignored) while a write lands at
 * 1 MiB, so the I/O thread's pwrite fails with EFBIG (MPI_ERR_NO_SPACE), whatever the file
 * system. The limit is lowered only around the failing accesses.
 *   - MPI_ERRORS_RETURN on the file: MPI_Wait, MPI_Test, MPI_Waitany return MPI_ERR_NO_SPACE
 *     (iwrite_at and iwrite); MPI_Waitall of a good and a failing write returns
 *     MPI_ERR_IN_STATUS with each status's error; the good bytes reach the file.
 *   - a user handler on the file: called once per failing completion call with the file and
 *     the call's code, never for a call that succeeds.
 *   - a write on a file opened MPI_MODE_RDONLY fails at MPI_File_iwrite (MPI_ERR_READ_ONLY or
 *     MPI_ERR_ACCESS), on the file's handler too. */
#include "iotest.h"

#include <signal.h>
#include <sys/resource.h>

#define N 1024
#define FAR (1L << 20) /* past the lowered limit */
#define LIMIT (64L << 10)

static struct rlimit saved_limit;

static void lower_limit(void)
{
    struct rlimit low = saved_limit;
    low.rlim_cur = LIMIT;
    CHECK(setrlimit(RLIMIT_FSIZE, &low) == 0, "setrlimit(RLIMIT_FSIZE) failed");
}

static void restore_limit(void)
{
    CHECK(setrlimit(RLIMIT_FSIZE, &saved_limit) == 0, "restoring RLIMIT_FSIZE failed");
}

static int handler_calls = 0;
static int handler_code = MPI_SUCCESS;
static MPI_File handler_file = MPI_FILE_NULL;

static void count_handler(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_file = *fh;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    signal(SIGXFSZ, SIG_IGN);
    CHECK(getrlimit(RLIMIT_FSIZE, &saved_limit) == 0, "getrlimit(RLIMIT_FSIZE) failed");
    CHECK(saved_limit.rlim_max == RLIM_INFINITY || saved_limit.rlim_max > (rlim_t)(2 * FAR),
          "the hard RLIMIT_FSIZE is too low for this test");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "nberr", path);
    unsigned char a[N], b[N], got[N];
    for (int i = 0; i < N; i++) {
        a[i] = io_byte(rank, i);
        b[i] = io_byte(rank + 100, i);
    }
    const MPI_Offset mine = (MPI_Offset)rank * 2 * N;
    const MPI_Offset far = FAR + (MPI_Offset)rank * N;
    MPI_File fh;
    MPI_Request req, reqs[2];
    MPI_Status st, sts[2];
    MPI_Errhandler eh;
    int rc, flag = 0, index = -1;

    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_get_errhandler(fh, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "a new file's error handler is not MPI_ERRORS_RETURN");

    /* A good write completes without error. */
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, mine, a, N, MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));

    lower_limit();
    /* MPI_Wait on a failing iwrite_at: the class, on the file's handler. */
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, far, a, N, MPI_BYTE, &req));
    rc = MPI_Wait(&req, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
    CHECK(req == MPI_REQUEST_NULL, "the failed request was not freed by MPI_Wait");

    /* MPI_Test until complete. */
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, far, a, N, MPI_BYTE, &req));
    for (int tries = 0; !flag && tries < 10000000; tries++) {
        rc = MPI_Test(&req, &flag, &st);
        if (rc != MPI_SUCCESS)
            break;
    }
    CHECK(flag, "MPI_Test never completed the failing write");
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);

    /* The individual pointer moved past the limit, MPI_Waitany. */
    CHECK_SUCCESS(MPI_File_seek(fh, far, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_iwrite(fh, a, N, MPI_BYTE, &req));
    rc = MPI_Waitany(1, &req, &index, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
    CHECK_INT(index, 0);

    /* MPI_Waitall: a good write and a failing one. */
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, mine + N, b, N, MPI_BYTE, &reqs[0]));
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, far, b, N, MPI_BYTE, &reqs[1]));
    sts[0].MPI_ERROR = sts[1].MPI_ERROR = -1;
    rc = MPI_Waitall(2, reqs, sts);
    CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
    CHECK_SUCCESS(sts[0].MPI_ERROR);
    CHECK_ERR_CLASS(sts[1].MPI_ERROR, MPI_ERR_NO_SPACE);
    int count = -1;
    MPI_Get_count(&sts[0], MPI_BYTE, &count);
    CHECK_INT(count, N);

    /* A user handler on the file: one call per failing completion call. */
    MPI_Errhandler user;
    CHECK_SUCCESS(MPI_File_create_errhandler(count_handler, &user));
    CHECK_SUCCESS(MPI_File_set_errhandler(fh, user));
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, mine, a, N, MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK_INT(handler_calls, 0);
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, far, a, N, MPI_BYTE, &req));
    rc = MPI_Wait(&req, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
    CHECK_INT(handler_calls, 1);
    CHECK(handler_file == fh, "the handler was not given the file");
    CHECK(handler_code == rc, "the handler saw code %d, MPI_Wait returned %d", handler_code, rc);
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, far, a, N, MPI_BYTE, &reqs[0]));
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, far + N, b, N, MPI_BYTE, &reqs[1]));
    rc = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
    CHECK_INT(handler_calls, 2);
    CHECK_ERR_CLASS(handler_code, MPI_ERR_IN_STATUS);
    restore_limit();
    CHECK_SUCCESS(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    CHECK_SUCCESS(MPI_Errhandler_free(&user));
    /* Once the limit is back, the same write succeeds and calls nobody. */
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, far, a, N, MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK_INT(handler_calls, 2);
    CHECK_SUCCESS(MPI_File_close(&fh));

    /* The good writes are in the file, nothing of the failed ones below the limit moved. */
    CHECK_INT(io_raw_read(path, (long)mine, got, N), N);
    CHECK_BYTES(got, a, N);
    CHECK_INT(io_raw_read(path, (long)(mine + N), got, N), N);
    CHECK_BYTES(got, b, N);
    CHECK_INT(io_raw_read(path, (long)far, got, N), N);
    CHECK_BYTES(got, a, N);

    /* A file opened read-only: MPI_File_iwrite fails at once, on the file's handler. */
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    req = MPI_REQUEST_NULL;
    rc = MPI_File_iwrite(fh, a, N, MPI_BYTE, &req);
    CHECK(mtest_err_class(rc) == MPI_ERR_READ_ONLY || mtest_err_class(rc) == MPI_ERR_ACCESS,
          "iwrite on a read-only file returned %s", mtest_err_text(rc));
    CHECK_SUCCESS(MPI_File_close(&fh));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    return mtest_finish();
}
