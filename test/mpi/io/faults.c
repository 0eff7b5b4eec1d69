/* File-system faults (run by faults.sh, which mounts the file systems and removes them):
 * $STMPI_IO_TESTDIR is a small tmpfs (1 MiB), $STMPI_IO_RODIR a tmpfs mounted read-only that
 * holds the file "ro-file" with the text "read-only mount\n".
 *   - a full file system: the ranks whose independent writes do not fit get MPI_ERR_NO_SPACE
 *     and the data written before reads back intact; a collective write that does not fit
 *     returns MPI_ERR_NO_SPACE on every rank;
 *   - a collective write (and read) where one rank gives a negative offset: every rank returns
 *     an error, none waits, and the next collective on the file works (collective buffering
 *     forced, automatic and disabled);
 *   - a file unlinked under an open handle: reads, writes, get_size and collectives go on
 *     with the right bytes; close succeeds; MPI_File_delete then says MPI_ERR_NO_SUCH_FILE;
 *   - a directory opened collectively as a file: MPI_ERR_BAD_FILE on every rank (also with
 *     MPI_MODE_CREATE and MPI_MODE_RDONLY); a path through a regular file: _NO_SUCH_FILE;
 *   - a read-only file opened for writing on every rank: MPI_ERR_ACCESS (as root, every rank
 *     drops its effective uid for the call); a file on a read-only mount opened for writing,
 *     created there or deleted: MPI_ERR_READ_ONLY on every rank, while opening it read-only
 *     reads its bytes.
 * errors.c covers the one-rank (MPI_COMM_SELF) forms of the last two. */
#include "iotest.h"

#include <errno.h>
#include <stdlib.h>

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s != NULL ? s + 1 : path;
}

static void fill(unsigned char *buf, int seed, long from, long n)
{
    for (long i = 0; i < n; i++)
        buf[i] = io_byte(seed, from + i);
}

/* Every rank got an error; the classes are returned in *cls. */
static void check_all_failed(int rc, const char *what)
{
    int failed = rc != MPI_SUCCESS, all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(all == size, "%s: %d of %d ranks got an error", what, all, size);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *rodir = getenv("STMPI_IO_RODIR");
    const char *testdir = getenv("STMPI_IO_TESTDIR");
    CHECK(rodir != NULL && testdir != NULL, "run by faults.sh (STMPI_IO_RODIR, STMPI_IO_TESTDIR)");
    if (rodir == NULL || testdir == NULL)
        return mtest_finish();
    char path[512];
    MPI_File fh;
    MPI_Status st;
    const long keep = 32 * 1024;

    /* ---- a full file system, independent writes ---- */
    io_path(MPI_COMM_WORLD, "full", path);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    unsigned char *mine = malloc(keep), *all = malloc(keep * size), *back = malloc(keep * size);
    fill(mine, 1, rank * keep, keep);
    fill(all, 1, 0, keep * size);
    CHECK_SUCCESS(MPI_File_write_at(fh, rank * keep, mine, (int)keep, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    const int filler = rank >= size / 2; /* the upper half (rank 0 when alone) */
    const long big = 2L * 1024 * 1024;
    if (filler) {
        unsigned char *huge = calloc(1, big);
        rc = MPI_File_write_at(fh, size * keep + rank * big, huge, (int)big, MPI_BYTE, &st);
        CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
        CHECK_ERR_STRING(rc, base(path));
        free(huge);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    memset(back, 0, keep * size);
    CHECK_SUCCESS(MPI_File_read_at(fh, 0, back, (int)(keep * size), MPI_BYTE, &st));
    CHECK_BYTES(back, all, keep * size);
    CHECK_SUCCESS(MPI_File_close(&fh));
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- a full file system, one collective write: every rank gets the error ---- */
    io_path(MPI_COMM_WORLD, "fullcoll", path);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_write_at_all(fh, rank * keep, mine, (int)keep, MPI_BYTE, &st));
    {
        const long each = 2L * 1024 * 1024 / size + 4096;
        unsigned char *huge = calloc(1, each);
        rc = MPI_File_write_at_all(fh, size * keep + rank * each, huge, (int)each, MPI_BYTE, &st);
        CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
        free(huge);
    }
    memset(back, 0, keep * size);
    CHECK_SUCCESS(MPI_File_read_at_all(fh, 0, back, (int)(keep * size), MPI_BYTE, &st));
    CHECK_BYTES(back, all, keep * size);
    CHECK_SUCCESS(MPI_File_close(&fh));
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- a collective where one rank fails: a negative offset on the last rank ---- */
    io_path(MPI_COMM_WORLD, "onefails", path);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    const int bad = size - 1;
    const char *cb[3] = {"enable", "automatic", "disable"};
    for (int pass = 0; pass < 3; pass++) {
        /* Collective buffering forced, the default (the direct path here) and off. */
        MPI_Info info = io_info("romio_cb_write", cb[pass], "romio_cb_read", cb[pass], NULL);
        CHECK_SUCCESS(MPI_File_set_info(fh, info));
        MPI_Info_free(&info);
        const MPI_Offset at = rank == bad ? -1 : rank * keep;
        rc = MPI_File_write_at_all(fh, at, mine, (int)keep, MPI_BYTE, &st);
        check_all_failed(rc, "write_at_all with a negative offset on one rank");
        if (rank == bad)
            CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
        rc = MPI_File_read_at_all(fh, at, back, (int)keep, MPI_BYTE, &st);
        check_all_failed(rc, "read_at_all with a negative offset on one rank");
        if (rank == bad)
            CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
        /* The file still works collectively. */
        CHECK_SUCCESS(MPI_File_write_at_all(fh, rank * keep, mine, (int)keep, MPI_BYTE, &st));
        memset(back, 0, keep * size);
        CHECK_SUCCESS(MPI_File_read_at_all(fh, 0, back, (int)(keep * size), MPI_BYTE, &st));
        CHECK_BYTES(back, all, keep * size);
    }
    CHECK_SUCCESS(MPI_File_close(&fh));
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- a file unlinked under an open handle ---- */
    io_path(MPI_COMM_WORLD, "gone", path);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    unsigned char *two = malloc(2 * keep * size), *mine2 = malloc(keep);
    fill(two, 2, 0, 2 * keep * size);
    memcpy(mine, two + rank * keep, keep);
    memcpy(mine2, two + (size + rank) * keep, keep);
    CHECK_SUCCESS(MPI_File_write_at(fh, rank * keep, mine, (int)keep, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(unlink(path) == 0, "unlink %s: %s", path, strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(io_raw_size(path), -1);
    CHECK_SUCCESS(MPI_File_write_at(fh, (size + rank) * keep, mine2, (int)keep, MPI_BYTE, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char *back2 = malloc(2 * keep * size);
    memset(back2, 0, 2 * keep * size);
    CHECK_SUCCESS(MPI_File_read_at(fh, 0, back2, (int)(2 * keep * size), MPI_BYTE, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK_INT(n, (int)(2 * keep * size));
    CHECK_BYTES(back2, two, 2 * keep * size);
    MPI_Offset fsize = -1;
    CHECK_SUCCESS(MPI_File_get_size(fh, &fsize));
    CHECK_INT((long)fsize, 2 * keep * size);
    CHECK_SUCCESS(MPI_File_write_at_all(fh, rank * keep, mine2, (int)keep, MPI_BYTE, &st));
    memset(back2, 0, keep * size);
    CHECK_SUCCESS(MPI_File_read_at_all(fh, size * keep, back2, (int)(keep * size), MPI_BYTE, &st));
    CHECK_BYTES(back2, two + size * keep, keep * size);
    CHECK_SUCCESS(MPI_File_close(&fh));
    rc = MPI_File_delete(path, MPI_INFO_NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    free(two);
    free(mine2);
    free(back2);
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- a directory where a file is expected, opened on every rank ---- */
    char dir[600], through[700];
    io_path(MPI_COMM_WORLD, "dir", path);
    snprintf(dir, sizeof dir, "%s-dir", path);
    if (rank == 0)
        CHECK(mkdir(dir, 0755) == 0, "mkdir %s: %s", dir, strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    const int modes[3] = {MPI_MODE_RDWR, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_MODE_RDONLY};
    for (int m = 0; m < 3; m++) {
        fh = MPI_FILE_NULL;
        rc = MPI_File_open(MPI_COMM_WORLD, dir, modes[m], MPI_INFO_NULL, &fh);
        CHECK_ERR_CLASS(rc, MPI_ERR_BAD_FILE);
        CHECK(fh == MPI_FILE_NULL, "a failed open left a handle");
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
    }
    /* A path that goes through a regular file. */
    if (rank == 0)
        CHECK_INT(io_raw_write(path, 0, "x", 1), 0);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(through, sizeof through, "%s/inside", path);
    rc =
        MPI_File_open(MPI_COMM_WORLD, through, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    CHECK_ERR_STRING(rc, "inside");
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- a read-only file opened for writing on every rank ---- */
    if (rank == 0)
        CHECK(chmod(path, 0444) == 0, "chmod: %s", strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    int dropped = 0;
    if (geteuid() == 0) {
        dropped = seteuid(65534) == 0;
        CHECK(dropped, "seteuid(65534): %s", strerror(errno));
    }
    for (int m = 0; m < 2; m++) {
        rc = MPI_File_open(MPI_COMM_WORLD, path, m == 0 ? MPI_MODE_WRONLY : MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fh);
        CHECK_ERR_CLASS(rc, MPI_ERR_ACCESS);
        CHECK_ERR_STRING(rc, base(path));
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
    }
    if (dropped)
        CHECK(seteuid(0) == 0, "seteuid(0): %s", strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        chmod(path, 0644);
        unlink(path);
        rmdir(dir);
    }

    /* ---- a read-only mount ---- */
    char ro[600], rnew[600];
    snprintf(ro, sizeof ro, "%s/ro-file", rodir);
    snprintf(rnew, sizeof rnew, "%s/new-file", rodir);
    const int wmodes[3] = {MPI_MODE_RDWR, MPI_MODE_WRONLY, MPI_MODE_WRONLY | MPI_MODE_APPEND};
    for (int m = 0; m < 3; m++) {
        rc = MPI_File_open(MPI_COMM_WORLD, ro, wmodes[m], MPI_INFO_NULL, &fh);
        CHECK_ERR_CLASS(rc, MPI_ERR_READ_ONLY);
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
    }
    rc = MPI_File_open(MPI_COMM_WORLD, rnew, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_READ_ONLY);
    CHECK_ERR_STRING(rc, "new-file");
    if (rank == 0) {
        rc = MPI_File_delete(ro, MPI_INFO_NULL);
        CHECK_ERR_CLASS(rc, MPI_ERR_READ_ONLY);
    }
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, ro, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    char text[64] = {0};
    CHECK_SUCCESS(MPI_File_read_at_all(fh, 0, text, (int)sizeof text - 1, MPI_CHAR, &st));
    MPI_Get_count(&st, MPI_CHAR, &n);
    CHECK_INT(n, 16);
    CHECK(strcmp(text, "read-only mount\n") == 0, "read \"%s\" from the read-only mount", text);
    rc = MPI_File_write_at(fh, 0, "x", 1, MPI_CHAR, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_READ_ONLY);
    CHECK_SUCCESS(MPI_File_close(&fh));

    free(mine);
    free(all);
    free(back);
    return mtest_finish();
}
