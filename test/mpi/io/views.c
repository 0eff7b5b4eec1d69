/* File views: the default view; an interleaved view with holes (a resized vector filetype,
 * a displacement past a header, etype MPI_INT) written independently by every rank, with the
 * header and the holes left as they were; a 2-D subarray filetype per rank; offsets counted
 * in etypes (MPI_DOUBLE); a noncontiguous memory type; get_view, get_position,
 * get_byte_offset, get_type_extent, seek (SET, CUR, END) and the pointer reset by set_view.
 * The file is checked with POSIX reads against a reference image built here. */
#include "iotest.h"

#define HDR 40 /* bytes before the views start */
#define B 3    /* ints per block */
#define K 5    /* blocks per rank */
#define GAP 2  /* ints of hole after each cycle of blocks */
#define ROWS 6
#define COLS 8 /* ints per row; columns are split over the ranks */

static int val(int rank, int k) { return 1000 * (rank + 1) + k; }

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "views", path);
    MPI_File fh;
    MPI_Status st;
    const long cycle = (long)(size * B + GAP) * 4; /* bytes per filetype extent */
    const long total = HDR + K * cycle;

    /* The file starts as a known pattern (0xEE), so holes can be checked. */
    if (rank == 0) {
        unsigned char *init = malloc(total);
        memset(init, 0xEE, total);
        CHECK_INT(io_raw_write(path, 0, init, total), 0);
        free(init);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

    /* Default view. */
    MPI_Offset disp = -1;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    CHECK_SUCCESS(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK_INT(disp, 0);
    CHECK(et == MPI_BYTE, "default etype is not MPI_BYTE");
    CHECK(ft == MPI_BYTE, "default filetype is not MPI_BYTE");
    CHECK(strcmp(rep, "native") == 0, "default datarep \"%s\"", rep);

    /* Interleaved view: B ints per rank per cycle, then GAP ints nobody writes. */
    MPI_Datatype block, filetype;
    MPI_Type_contiguous(B, MPI_INT, &block);
    MPI_Type_create_resized(block, 0, cycle, &filetype);
    MPI_Type_commit(&filetype);
    MPI_Offset mydisp = HDR + (MPI_Offset)rank * B * 4;
    CHECK_SUCCESS(MPI_File_set_view(fh, mydisp, MPI_INT, filetype, "native", MPI_INFO_NULL));
    CHECK_SUCCESS(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK_INT(disp, mydisp);
    CHECK(et == MPI_INT, "etype is not MPI_INT");
    MPI_Aint lb, ext;
    int tsize = 0;
    MPI_Type_get_extent(ft, &lb, &ext);
    MPI_Type_size(ft, &tsize);
    CHECK_INT(ext, cycle);
    CHECK_INT(tsize, B * 4);
    if (ft != MPI_INT)
        MPI_Type_free(&ft);
    int data[K * B], back[K * B];
    for (int k = 0; k < K * B; k++)
        data[k] = val(rank, k);
    /* Two writes through the individual pointer, the second from where the first ended. */
    CHECK_SUCCESS(MPI_File_write(fh, data, 4, MPI_INT, &st));
    MPI_Offset pos = -1;
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, 4);
    CHECK_SUCCESS(MPI_File_write(fh, data + 4, K * B - 4, MPI_INT, &st));
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, K * B - 4);
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, K * B);
    /* Byte offsets of view positions: etype B (the first int of the second cycle). */
    MPI_Offset boff = -1;
    CHECK_SUCCESS(MPI_File_get_byte_offset(fh, B, &boff));
    CHECK_INT(boff, mydisp + cycle);
    CHECK_SUCCESS(MPI_File_get_byte_offset(fh, B + 1, &boff));
    CHECK_INT(boff, mydisp + cycle + 4);
    MPI_Aint text = 0;
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_INT, &text));
    CHECK_INT(text, 4);
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, filetype, &text));
    CHECK_INT(text, cycle);
    /* seek: SET, CUR; reading through the view gets the ints back. */
    CHECK_SUCCESS(MPI_File_seek(fh, 2, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_seek(fh, 3, MPI_SEEK_CUR));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, 5);
    memset(back, 0, sizeof back);
    CHECK_SUCCESS(MPI_File_read(fh, back, 4, MPI_INT, &st));
    for (int k = 0; k < 4; k++)
        CHECK(back[k] == data[5 + k], "read through the view: int %d is %d, expected %d", k,
              back[k], data[5 + k]);
    CHECK_SUCCESS(MPI_File_read_at(fh, 0, back, K * B, MPI_INT, &st));
    for (int k = 0; k < K * B; k++)
        CHECK(back[k] == data[k], "read_at through the view: int %d is %d", k, back[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));

    /* The image: header and holes untouched, rank r's ints in its blocks. */
    if (rank == 0) {
        unsigned char *want = malloc(total), *got = malloc(total);
        memset(want, 0xEE, total);
        for (int r = 0; r < size; r++)
            for (int k = 0; k < K * B; k++) {
                int v = val(r, k);
                long off = HDR + (long)(k / B) * cycle + (long)(r * B + k % B) * 4;
                memcpy(want + off, &v, 4);
            }
        CHECK_INT(io_raw_read(path, 0, got, total), total);
        CHECK_BYTES(got, want, total);
        free(want);
        free(got);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* set_view resets the pointer; etypes of MPI_DOUBLE: offsets count doubles. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 8, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, 0);
    CHECK_SUCCESS(MPI_File_get_byte_offset(fh, 3, &boff));
    CHECK_INT(boff, 8 + 3 * 8);
    /* SEEK_END: relative to the end of the file, in etypes of the view. */
    MPI_Offset fsize = 0;
    MPI_File_get_size(fh, &fsize);
    CHECK_INT(fsize, total);
    fsize = (fsize + 7) / 8 * 8 + 8; /* a whole number of doubles past the displacement */
    CHECK_SUCCESS(MPI_File_set_size(fh, fsize));
    CHECK_SUCCESS(MPI_File_seek(fh, -1, MPI_SEEK_END));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, (fsize - 8) / 8 - 1);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2-D subarray: ROWS x (COLS * size) ints, rank r owns columns [r*COLS, (r+1)*COLS);
     * written from a noncontiguous memory layout (every other int of a padded buffer). */
    char path2[512];
    io_path(MPI_COMM_WORLD, "views-sub", path2);
    MPI_File fh2;
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path2, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh2));
    int gsizes[2] = {ROWS, COLS * size}, lsizes[2] = {ROWS, COLS}, starts[2] = {0, COLS * rank};
    MPI_Datatype sub, memtype;
    MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    MPI_Type_vector(ROWS * COLS, 1, 2, MPI_INT, &memtype);
    MPI_Type_commit(&memtype);
    CHECK_SUCCESS(MPI_File_set_view(fh2, 0, MPI_INT, sub, "native", MPI_INFO_NULL));
    int padded[2 * ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++) {
        padded[2 * i] = (i / COLS) * 10000 + COLS * rank + i % COLS; /* row * 10000 + column */
        padded[2 * i + 1] = -1;
    }
    CHECK_SUCCESS(MPI_File_write(fh2, padded, 1, memtype, &st));
    MPI_Get_count(&st, memtype, &cnt);
    CHECK_INT(cnt, 1);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, ROWS * COLS);
    CHECK_SUCCESS(MPI_File_sync(fh2));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh2));
    /* Read the whole array back through a plain view; every rank checks all of it. */
    CHECK_SUCCESS(MPI_File_set_view(fh2, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int n = ROWS * COLS * size;
    int *all = malloc(sizeof(int) * n);
    CHECK_SUCCESS(MPI_File_read_at(fh2, 0, all, n, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, n);
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (all[i] != (i / (COLS * size)) * 10000 + i % (COLS * size) && bad++ < 5)
            CHECK(0, "subarray file int %d is %d", i, all[i]);
    /* Read our columns back through the subarray view into the padded layout. */
    CHECK_SUCCESS(MPI_File_set_view(fh2, 0, MPI_INT, sub, "native", MPI_INFO_NULL));
    int again[2 * ROWS * COLS];
    for (int i = 0; i < 2 * ROWS * COLS; i++)
        again[i] = -1;
    CHECK_SUCCESS(MPI_File_read(fh2, again, 1, memtype, &st));
    CHECK_BYTES(again, padded, sizeof padded);
    CHECK_SUCCESS(MPI_File_close(&fh2));
    CHECK_SUCCESS(MPI_File_close(&fh));
    free(all);
    MPI_Type_free(&sub);
    MPI_Type_free(&memtype);
    MPI_Type_free(&filetype);
    MPI_Type_free(&block);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        MPI_File_delete(path2, MPI_INFO_NULL);
    }
    return mtest_finish();
}
