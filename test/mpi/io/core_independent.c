/* The independent path of src/mpi/io/independent.cc, forced one way at a time by hints:
 * noncontiguous file views written and read with data sieving on and off, noncontiguous
 * memory against a contiguous file range (vector I/O) and against a strided view (packing),
 * the individual pointer, exact statuses (MPI_Get_count, MPI_Get_elements_x) and short
 * counts past the end of file, the _c forms, an open that fails on one rank only, a user
 * data representation with conversion functions, file error handlers, and
 * MPI_MODE_DELETE_ON_CLOSE. Every byte is checked against a POSIX read of the file. */
#include "iotest.h"

#include <string.h>

#define BLK 3   /* ints per block of a rank */
#define NBLK 50 /* blocks per rank */

static int calls;
static void on_error(MPI_File *fh, int *code, ...)
{
    (void)fh;
    (void)code;
    calls++;
}

/* A user representation: ints stored byte-reversed. */
static int swap_ints(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *extra, int to_file)
{
    (void)type;
    (void)extra;
    unsigned char *u = (unsigned char *)userbuf + position * 4, *f = filebuf;
    for (int i = 0; i < count; i++)
        for (int b = 0; b < 4; b++) {
            if (to_file)
                f[4 * i + b] = u[4 * i + 3 - b];
            else
                u[4 * i + 3 - b] = f[4 * i + b];
        }
    return MPI_SUCCESS;
}
static int rev_read(void *u, MPI_Datatype t, int c, void *f, MPI_Offset p, void *e)
{
    return swap_ints(u, t, c, f, p, e, 0);
}
static int rev_write(void *u, MPI_Datatype t, int c, void *f, MPI_Offset p, void *e)
{
    return swap_ints(u, t, c, f, p, e, 1);
}
static int rev_extent(MPI_Datatype t, MPI_Aint *extent, void *e)
{
    (void)e;
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, extent);
}

static int val(int r, int k) { return r * 100000 + k * 7 + 1; }

/* Writes and reads back rank-interleaved blocks of BLK ints with the given ds hints. */
static void interleaved(const char *path, const char *ds, int rank, int size)
{
    MPI_Info info = io_info("romio_ds_read", ds, "romio_ds_write", ds, "ind_wr_buffer_size", "100",
                            "ind_rd_buffer_size", "64", NULL);
    MPI_File fh;
    MPI_Status st;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    char v[MPI_MAX_INFO_VAL + 1];
    CHECK(io_info_value(MPI_INFO_NULL, "x", v) == 0, "no info");
    MPI_Info used;
    CHECK_SUCCESS(MPI_File_get_info(fh, &used));
    CHECK(io_info_value(used, "romio_ds_write", v) && strcmp(v, ds) == 0,
          "romio_ds_write reported as \"%s\", set \"%s\"", v, ds);
    CHECK(io_info_value(used, "ind_wr_buffer_size", v) && strcmp(v, "100") == 0,
          "ind_wr_buffer_size reported as \"%s\"", v);
    MPI_Info_free(&used);
    MPI_Datatype vec, filetype;
    MPI_Type_vector(1, BLK, BLK * size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)BLK * size * 4, &filetype);
    MPI_Type_commit(&filetype);
    CHECK_SUCCESS(MPI_File_set_view(fh, 16 + (MPI_Offset)rank * BLK * 4, MPI_INT, filetype,
                                    "native", MPI_INFO_NULL));
    int data[BLK * NBLK], back[BLK * NBLK];
    for (int k = 0; k < BLK * NBLK; k++)
        data[k] = val(rank, k);
    /* First half through the pointer, second half at an explicit offset. */
    int half = BLK * NBLK / 2;
    CHECK_SUCCESS(MPI_File_write(fh, data, half, MPI_INT, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, half);
    MPI_Offset pos;
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, half);
    CHECK_SUCCESS(
        MPI_File_write_at_c(fh, half, data + half, (MPI_Count)(BLK * NBLK - half), MPI_INT, &st));
    MPI_Count elements = -1;
    MPI_Get_elements_x(&st, MPI_INT, &elements);
    CHECK_INT(elements, BLK * NBLK - half);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    /* POSIX check of every rank's blocks. */
    if (rank == 0) {
        long total = 16 + (long)BLK * 4 * size * NBLK;
        int *img = malloc((size_t)total);
        CHECK_INT(io_raw_read(path, 0, img, total), total);
        for (int r = 0; r < size; r++)
            for (int k = 0; k < BLK * NBLK; k++) {
                int got;
                memcpy(&got,
                       (char *)img + 16 + ((long)(k / BLK) * size * BLK + r * BLK + k % BLK) * 4,
                       4);
                if (got != val(r, k)) {
                    CHECK(0, "ds=%s: rank %d int %d is %d, expected %d", ds, r, k, got, val(r, k));
                    break;
                }
            }
        free(img);
    }
    /* Read back the neighbour's blocks into a strided memory layout (every other int). */
    int peer = (rank + 1) % size;
    MPI_File fh2;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh2));
    CHECK_SUCCESS(MPI_File_set_view(fh2, 16 + (MPI_Offset)peer * BLK * 4, MPI_INT, filetype,
                                    "native", MPI_INFO_NULL));
    MPI_Datatype every_other;
    MPI_Type_vector(BLK * NBLK, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int wide[2 * BLK * NBLK];
    memset(wide, 0, sizeof wide);
    CHECK_SUCCESS(MPI_File_read_at(fh2, 0, wide, 1, every_other, &st));
    for (int k = 0; k < BLK * NBLK; k++)
        if (wide[2 * k] != val(peer, k) || wide[2 * k + 1] != 0) {
            CHECK(0, "ds=%s: strided read of int %d gives %d, expected %d", ds, k, wide[2 * k],
                  val(peer, k));
            break;
        }
    /* Past the end of the file: a short count, not an error. */
    memset(back, 0, sizeof back);
    CHECK_SUCCESS(MPI_File_read_at(fh2, BLK * NBLK - 4, back, 10, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, 4);
    for (int k = 0; k < 4; k++)
        CHECK_INT(back[k], val(peer, BLK * NBLK - 4 + k));
    CHECK_SUCCESS(MPI_File_read_at(fh2, BLK * NBLK + 10, back, 10, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, 0);
    MPI_Type_free(&every_other);
    CHECK_SUCCESS(MPI_File_close(&fh2));
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Type_free(&vec);
    MPI_Type_free(&filetype);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    MPI_File fh;
    MPI_Status st;

    io_path(MPI_COMM_WORLD, "core-ds", path);
    interleaved(path, "enable", rank, size);
    interleaved(path, "disable", rank, size);
    interleaved(path, "automatic", rank, size);

    /* Vector I/O: a noncontiguous memory type (two 4 KiB pieces a 1 KiB hole apart) to a
     * contiguous file range, then read back the same way. */
    io_path(MPI_COMM_WORLD, "core-iov", path);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    static unsigned char mem[9216], got[9216], want[8192];
    for (int i = 0; i < 9216; i++)
        mem[i] = io_byte(rank, i);
    MPI_Datatype pieces;
    MPI_Type_vector(2, 4096, 5120, MPI_BYTE, &pieces);
    MPI_Type_commit(&pieces);
    CHECK_SUCCESS(MPI_File_write_at(fh, (MPI_Offset)rank * 8192, mem, 1, pieces, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    memset(got, 0, sizeof got);
    int peer = (rank + size - 1) % size;
    CHECK_SUCCESS(MPI_File_read_at(fh, (MPI_Offset)peer * 8192, got, 1, pieces, &st));
    for (int i = 0; i < 8192; i++)
        want[i] = io_byte(peer, i < 4096 ? i : i + 1024);
    CHECK_BYTES(got, want, 4096);
    CHECK_BYTES(got + 5120, want + 4096, 4096);
    if (rank == 0) {
        io_raw_read(path, (long)peer * 8192, got, 8192);
        CHECK_BYTES(got, want, 8192);
    }
    MPI_Type_free(&pieces);
    /* A user error handler sees the failure of a call on this file only. */
    MPI_Errhandler eh;
    MPI_File_create_errhandler(on_error, &eh);
    CHECK_SUCCESS(MPI_File_set_errhandler(fh, eh));
    int rc = MPI_File_read_at(fh, -1, got, 1, MPI_BYTE, &st);
    CHECK(rc != MPI_SUCCESS && calls == 1, "handler called %d times, rc %d", calls, rc);
    CHECK_SUCCESS(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK_INT(calls, 2);
    MPI_Errhandler_free(&eh);
    /* DELETE_ON_CLOSE after a reopen. */
    CHECK_SUCCESS(MPI_File_close(&fh));
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                                MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(io_raw_size(path), -1);

    /* An open that fails on one rank only: every rank returns an error, nobody hangs. */
    io_path(MPI_COMM_WORLD, "core-onefail", path);
    int amode =
        rank == size - 1 ? (MPI_MODE_RDONLY | MPI_MODE_CREATE) : (MPI_MODE_RDWR | MPI_MODE_CREATE);
    rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    if (size == 1 || rank == size - 1)
        CHECK_ERR_CLASS(rc, MPI_ERR_AMODE);
    else
        CHECK(rc != MPI_SUCCESS, "open succeeded although rank %d failed", size - 1);
    CHECK(fh == MPI_FILE_NULL, "failed open left a handle");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);

    /* A user representation: ints byte-reversed in the file. */
    rc = MPI_Register_datarep("core-reversed", rev_read, rev_write, rev_extent, NULL);
    CHECK_SUCCESS(rc);
    rc = MPI_Register_datarep("core-reversed", rev_read, rev_write, rev_extent, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_DUP_DATAREP);
    io_path(MPI_COMM_WORLD, "core-rep", path);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "core-reversed", MPI_INFO_NULL));
    int ints[8], iback[8];
    for (int i = 0; i < 8; i++)
        ints[i] = 0x01020304 + i + rank * 0x100;
    CHECK_SUCCESS(MPI_File_write_at(fh, rank * 8, ints, 8, MPI_INT, &st));
    CHECK_SUCCESS(MPI_File_read_at(fh, rank * 8, iback, 8, MPI_INT, &st));
    for (int i = 0; i < 8; i++)
        CHECK_INT(iback[i], ints[i]);
    unsigned char raw[4];
    io_raw_read(path, rank * 32 + 4, raw, 4);
    CHECK(raw[0] == 0x01 && raw[3] == (unsigned char)(0x05),
          "reversed int in the file: %02x %02x %02x %02x", raw[0], raw[1], raw[2], raw[3]);
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
