/* Opening files: every access mode, the illegal combinations refused with MPI_ERR_AMODE,
 * get_amode and get_group, MPI_MODE_EXCL, APPEND (pointers start at the end),
 * DELETE_ON_CLOSE, UNIQUE_OPEN, SEQUENTIAL (shared pointer only), MPI_File_delete, opens on
 * a sub-communicator and on MPI_COMM_SELF, and the handle conversions. File contents are
 * checked byte by byte with POSIX reads. */
#include "iotest.h"

#define N 64

static void fill(unsigned char *buf, int seed, long n)
{
    for (long i = 0; i < n; i++)
        buf[i] = io_byte(seed, i);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "open", path);
    unsigned char buf[N], want[N];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Status st;

    /* Create, every rank writes its block at rank * N. */
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh));
    CHECK(fh != MPI_FILE_NULL, "open returned MPI_FILE_NULL");
    int got_amode = -1;
    CHECK_SUCCESS(MPI_File_get_amode(fh, &got_amode));
    CHECK_INT(got_amode, amode);
    MPI_Group g, wg;
    int cmp = MPI_UNEQUAL;
    CHECK_SUCCESS(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK_INT(cmp, MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    /* Handle conversion of an open file. */
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(f != 0, "MPI_File_c2f of an open file gave 0");
    CHECK(MPI_File_f2c(f) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) != fh");
    fill(buf, rank, N);
    CHECK_SUCCESS(MPI_File_write_at(fh, (MPI_Offset)rank * N, buf, N, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not set the handle to MPI_FILE_NULL");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_INT(io_raw_size(path), (long)size * N);
        for (int r = 0; r < size; r++) {
            CHECK_INT(io_raw_read(path, (long)r * N, buf, N), N);
            fill(want, r, N);
            CHECK_BYTES(buf, want, N);
        }
    }

    /* Read-only reopen reads the same bytes. */
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_get_amode(fh, &got_amode));
    CHECK_INT(got_amode, MPI_MODE_RDONLY);
    int peer = (rank + 1) % size;
    memset(buf, 0, N);
    CHECK_SUCCESS(MPI_File_read_at(fh, (MPI_Offset)peer * N, buf, N, MPI_BYTE, &st));
    fill(want, peer, N);
    CHECK_BYTES(buf, want, N);
    CHECK_SUCCESS(MPI_File_close(&fh));

    /* Write-only reopen overwrites the middle of each block. */
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    memset(buf, 0xA5, 8);
    CHECK_SUCCESS(MPI_File_write_at(fh, (MPI_Offset)rank * N + 16, buf, 8, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            io_raw_read(path, (long)r * N, buf, N);
            fill(want, r, N);
            memset(want + 16, 0xA5, 8);
            CHECK_BYTES(buf, want, N);
        }
    }

    /* Illegal combinations: MPI_ERR_AMODE, on every rank, and the handle stays null. */
    const int bad[] = {0,
                       MPI_MODE_CREATE,
                       MPI_MODE_RDONLY | MPI_MODE_RDWR,
                       MPI_MODE_RDWR | MPI_MODE_WRONLY,
                       MPI_MODE_RDONLY | MPI_MODE_WRONLY,
                       MPI_MODE_RDONLY | MPI_MODE_CREATE,
                       MPI_MODE_RDONLY | MPI_MODE_EXCL,
                       MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fh = MPI_FILE_NULL;
        int rc = MPI_File_open(MPI_COMM_WORLD, path, bad[i], MPI_INFO_NULL, &fh);
        CHECK(mtest_err_class(rc) == MPI_ERR_AMODE, "amode 0x%x: rc %d class %d (%s)", bad[i], rc,
              mtest_err_class(rc), rc == MPI_SUCCESS ? "success" : mtest_err_text(rc));
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
        else
            CHECK(fh == MPI_FILE_NULL, "failed open of amode 0x%x left a handle", bad[i]);
    }

    /* EXCL: an existing file is MPI_ERR_FILE_EXISTS; a new one is created. */
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                           MPI_INFO_NULL, &fh);
    CHECK_ERR_CLASS(rc, MPI_ERR_FILE_EXISTS);
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    char path2[512];
    io_path(MPI_COMM_WORLD, "open-excl", path2);
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path2,
                                MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL,
                                &fh));
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_INT(io_raw_size(path2), 0);

    /* APPEND: both pointers start at the end of the file. */
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
    MPI_Offset pos = -1;
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, (long long)size * N);
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, (long long)size * N);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked before the pointer moves */
    /* Every rank appends one block through the shared pointer, in rank order. */
    fill(buf, 100 + rank, N);
    CHECK_SUCCESS(MPI_File_write_ordered(fh, buf, N, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_INT(io_raw_size(path), 2L * size * N);
        for (int r = 0; r < size; r++) {
            io_raw_read(path, (long)(size + r) * N, buf, N);
            fill(want, 100 + r, N);
            CHECK_BYTES(buf, want, N);
        }
    }

    /* UNIQUE_OPEN changes nothing visible. */
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_UNIQUE_OPEN,
                                MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_read_at(fh, 0, buf, N, MPI_BYTE, &st));
    fill(want, 0, N);
    memset(want + 16, 0xA5, 8);
    CHECK_BYTES(buf, want, N);
    CHECK_SUCCESS(MPI_File_close(&fh));

    /* SEQUENTIAL: shared pointer accesses work, explicit offsets are refused. */
    char path3[512];
    io_path(MPI_COMM_WORLD, "open-seq", path3);
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path3,
                                MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                                MPI_INFO_NULL, &fh));
    fill(buf, 200 + rank, N);
    CHECK_SUCCESS(MPI_File_write_ordered(fh, buf, N, MPI_BYTE, &st));
    rc = MPI_File_write_at(fh, 0, buf, N, MPI_BYTE, &st);
    CHECK(rc != MPI_SUCCESS, "write_at on a SEQUENTIAL file succeeded");
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_INT(io_raw_size(path3), (long)size * N);
        for (int r = 0; r < size; r++) {
            io_raw_read(path3, (long)r * N, buf, N);
            fill(want, 200 + r, N);
            CHECK_BYTES(buf, want, N);
        }
    }

    /* DELETE_ON_CLOSE: gone after the collective close. */
    char path4[512];
    io_path(MPI_COMM_WORLD, "open-doc", path4);
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path4,
                                MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                                MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_write_at(fh, rank * 4, &rank, 1, MPI_INT, &st));
    int back = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    CHECK_SUCCESS(MPI_File_read_at(fh, ((rank + 1) % size) * 4, &back, 1, MPI_INT, &st));
    CHECK_INT(back, (rank + 1) % size);
    CHECK(io_raw_size(path4) >= 4L * size, "file %s missing while open", path4);
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(io_raw_size(path4), -1);

    /* A sub-communicator per half, each with its own file; MPI_COMM_SELF per rank. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    char hpath[512];
    io_path(half, rank % 2 ? "open-odd" : "open-even", hpath);
    CHECK_SUCCESS(MPI_File_open(half, hpath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_get_group(fh, &g));
    int gsize = 0;
    MPI_Group_size(g, &gsize);
    CHECK_INT(gsize, hsize);
    MPI_Group_free(&g);
    fill(buf, 300 + rank, N);
    CHECK_SUCCESS(MPI_File_write_at_all(fh, (MPI_Offset)hrank * N, buf, N, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(half);
    io_raw_read(hpath, (long)hrank * N, buf, N);
    fill(want, 300 + rank, N);
    CHECK_BYTES(buf, want, N);
    MPI_Barrier(half);
    if (hrank == 0)
        CHECK_SUCCESS(MPI_File_delete(hpath, MPI_INFO_NULL));
    MPI_Comm_free(&half);

    char spath[600];
    snprintf(spath, sizeof spath, "%s-self%d", path, rank);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_SELF, spath, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    fill(buf, 400 + rank, N);
    CHECK_SUCCESS(MPI_File_write(fh, buf, N, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_close(&fh));
    io_raw_read(spath, 0, buf, N);
    fill(want, 400 + rank, N);
    CHECK_BYTES(buf, want, N);

    /* MPI_File_delete: the file goes; a missing file is MPI_ERR_NO_SUCH_FILE. */
    CHECK_SUCCESS(MPI_File_delete(spath, MPI_INFO_NULL));
    CHECK_INT(io_raw_size(spath), -1);
    rc = MPI_File_delete(spath, MPI_INFO_NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
        CHECK_SUCCESS(MPI_File_delete(path2, MPI_INFO_NULL));
        CHECK_SUCCESS(MPI_File_delete(path3, MPI_INFO_NULL));
        CHECK_INT(io_raw_size(path), -1);
    }
    return mtest_finish();
}
