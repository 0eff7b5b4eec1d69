/* File size and hints: set_size grows (zero-filled) and shrinks, preallocate grows and never
 * shrinks, get_size follows writes by every rank, sync; the hints given at open and by
 * set_info are reported back by get_info with the values in effect, and the defaults are
 * reported when no info is given. */
#include "iotest.h"

static void check_hint(MPI_File fh, const char *key, const char *want)
{
    MPI_Info info = MPI_INFO_NULL;
    char value[MPI_MAX_INFO_VAL + 1];
    CHECK_SUCCESS(MPI_File_get_info(fh, &info));
    int flag = io_info_value(info, key, value);
    CHECK(flag, "hint %s not reported by MPI_File_get_info", key);
    if (flag && want != NULL)
        CHECK(strcmp(value, want) == 0, "hint %s is \"%s\", expected \"%s\"", key, value, want);
    MPI_Info_free(&info);
}

static long hint_number(MPI_File fh, const char *key)
{
    MPI_Info info = MPI_INFO_NULL;
    char value[MPI_MAX_INFO_VAL + 1];
    MPI_File_get_info(fh, &info);
    long v = io_info_value(info, key, value) ? strtol(value, NULL, 10) : -1;
    MPI_Info_free(&info);
    return v;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "size", path);
    MPI_File fh;
    MPI_Status st;
    MPI_Offset sz = -1;

    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 0);
    CHECK_SUCCESS(MPI_File_set_size(fh, 1000));
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 1000);
    CHECK_INT(io_raw_size(path), 1000);
    unsigned char buf[1000], zeros[1000];
    memset(zeros, 0, sizeof zeros);
    memset(buf, 0xFF, sizeof buf);
    CHECK_SUCCESS(MPI_File_read_at(fh, 0, buf, 1000, MPI_BYTE, &st));
    CHECK_BYTES(buf, zeros, 1000);
    CHECK_SUCCESS(MPI_File_set_size(fh, 100));
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 100);
    CHECK_INT(io_raw_size(path), 100);
    CHECK_SUCCESS(MPI_File_preallocate(fh, 5000));
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 5000);
    CHECK_SUCCESS(MPI_File_preallocate(fh, 10));
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 5000);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has seen 5000 before anyone writes */
    /* Each rank writes 8 bytes past the end; all see the largest end after sync. */
    long end = 8000 + 64L * rank + 8;
    memset(buf, rank + 1, 8);
    CHECK_SUCCESS(MPI_File_write_at(fh, end - 8, buf, 8, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 8000 + 64L * (size - 1) + 8);
    /* The bytes between the old end and the writes read as zeros. */
    CHECK_SUCCESS(MPI_File_read_at(fh, 5000, buf, 1000, MPI_BYTE, &st));
    CHECK_BYTES(buf, zeros, 1000);
    int cnt = -1;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, 1000);
    CHECK_SUCCESS(MPI_File_close(&fh));

    /* Hints at open are reported back with the values in effect. */
    MPI_Info info =
        io_info("cb_buffer_size", "1048576", "romio_cb_write", "disable", "romio_cb_read", "enable",
                "romio_ds_write", "disable", "romio_ds_read", "enable", "ind_rd_buffer_size",
                "65536", "ind_wr_buffer_size", "32768", "cb_nodes", "1", NULL);
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    check_hint(fh, "cb_buffer_size", "1048576");
    check_hint(fh, "romio_cb_write", "disable");
    check_hint(fh, "romio_cb_read", "enable");
    check_hint(fh, "romio_ds_write", "disable");
    check_hint(fh, "romio_ds_read", "enable");
    check_hint(fh, "ind_rd_buffer_size", "65536");
    check_hint(fh, "ind_wr_buffer_size", "32768");
    check_hint(fh, "cb_nodes", "1");
    /* set_info changes a hint in effect. */
    info = io_info("romio_cb_write", "enable", "cb_buffer_size", "65536", NULL);
    CHECK_SUCCESS(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    check_hint(fh, "romio_cb_write", "enable");
    check_hint(fh, "cb_buffer_size", "65536");
    /* The file still works after the change. */
    memset(buf, 0x3C, 16);
    CHECK_SUCCESS(MPI_File_write_at_all(fh, 16L * rank, buf, 16, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char want[16];
        memset(want, 0x3C, 16);
        for (int r = 0; r < size; r++) {
            io_raw_read(path, 16L * r, buf, 16);
            CHECK_BYTES(buf, want, 16);
        }
    }

    /* Without info, the defaults are reported and sensible. */
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    const char *keys[] = {"romio_cb_write", "romio_cb_read", "romio_ds_write", "romio_ds_read"};
    for (int i = 0; i < 4; i++) {
        MPI_Info got;
        char value[MPI_MAX_INFO_VAL + 1];
        MPI_File_get_info(fh, &got);
        int flag = io_info_value(got, keys[i], value);
        CHECK(flag, "default hint %s not reported", keys[i]);
        if (flag)
            CHECK(!strcmp(value, "enable") || !strcmp(value, "disable") ||
                      !strcmp(value, "automatic"),
                  "hint %s = \"%s\"", keys[i], value);
        MPI_Info_free(&got);
    }
    long cbs = hint_number(fh, "cb_buffer_size");
    CHECK(cbs > 0, "default cb_buffer_size %ld", cbs);
    long cbn = hint_number(fh, "cb_nodes");
    CHECK(cbn >= 1 && cbn <= size, "default cb_nodes %ld with %d ranks on one node", cbn, size);
    CHECK(hint_number(fh, "ind_rd_buffer_size") > 0, "ind_rd_buffer_size not positive");
    CHECK(hint_number(fh, "ind_wr_buffer_size") > 0, "ind_wr_buffer_size not positive");
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
