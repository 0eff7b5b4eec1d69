/* Collective I/O with each path forced through hints, one configuration after the other:
 * collective buffering on / off (romio_cb_write, romio_cb_read), data sieving on / off
 * (romio_ds_write, romio_ds_read), a small cb_buffer_size (many rounds), one aggregator
 * (cb_nodes=1), and the defaults. Each writes an interleaved view with holes by
 * write_all (unequal counts, one rank with nothing on the last step), checks the file with
 * POSIX reads against the image computed here (holes keep their old bytes), reads it back
 * by read_all under the same hints, then does large disjoint blocks with write_at_all /
 * read_at_all and split collectives (write_all_begin/end, read_at_all_begin/end). */
#include "iotest.h"

#define B 5              /* ints per block */
#define K 40             /* blocks (cycles) for rank 0; rank r has K - r */
#define GAP 3            /* ints of hole per cycle */
#define BIG (256 * 1024) /* bytes per rank for the disjoint blocks */

static const char *configs[][8] = {
    {"romio_cb_write", "enable", "romio_cb_read", "enable", "romio_ds_write", "enable", NULL},
    {"romio_cb_write", "disable", "romio_cb_read", "disable", "romio_ds_write", "enable",
     "romio_ds_read", "enable"},
    {"romio_cb_write", "disable", "romio_cb_read", "disable", "romio_ds_write", "disable",
     "romio_ds_read", "disable"},
    {"romio_cb_write", "enable", "romio_cb_read", "enable", "cb_buffer_size", "4096", "cb_nodes",
     "1"},
    {"romio_cb_write", "enable", "romio_ds_write", "disable", "cb_buffer_size", "65536", NULL},
    {NULL},
};

static int val(int rank, int i, int cfg) { return (cfg + 1) * 1000000 + rank * 10000 + i; }

static MPI_Info make_info(const char *const *kv)
{
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 0; i < 8 && kv[i] != NULL; i += 2)
        MPI_Info_set(info, kv[i], kv[i + 1]);
    return info;
}

static void run(int cfg, int rank, int size)
{
    const char *const *kv = configs[cfg];
    char path[512];
    io_path(MPI_COMM_WORLD, "coll", path);
    const long cycle = (long)(size * B + GAP) * 4;
    const long total = K * cycle;
    if (rank == 0) {
        unsigned char *init = malloc(total);
        for (long i = 0; i < total; i++)
            init[i] = io_byte(cfg, i);
        CHECK_INT(io_raw_write(path, 0, init, total), 0);
        free(init);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = make_info(kv);
    MPI_File fh;
    MPI_Status st;
    int cnt;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    /* The forced hints are the ones in effect. */
    MPI_Info used;
    CHECK_SUCCESS(MPI_File_get_info(fh, &used));
    for (int i = 0; i < 8 && kv[i] != NULL; i += 2) {
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = io_info_value(used, kv[i], value);
        CHECK(flag && strcmp(value, kv[i + 1]) == 0, "config %d: hint %s is \"%s\", set \"%s\"",
              cfg, kv[i], flag ? value : "(unset)", kv[i + 1]);
    }
    MPI_Info_free(&used);

    MPI_Datatype block, ftype;
    MPI_Type_contiguous(B, MPI_INT, &block);
    MPI_Type_create_resized(block, 0, cycle, &ftype);
    MPI_Type_commit(&ftype);
    CHECK_SUCCESS(
        MPI_File_set_view(fh, (MPI_Offset)rank * B * 4, MPI_INT, ftype, "native", MPI_INFO_NULL));
    const int n = (K - rank) * B; /* unequal counts */
    int *data = malloc(sizeof(int) * K * B), *back = malloc(sizeof(int) * K * B);
    for (int i = 0; i < n; i++)
        data[i] = val(rank, i, cfg);
    /* Two collective calls: the second has nothing to do on the last rank. */
    int first = n / 2, second = rank == size - 1 ? 0 : n - first;
    CHECK_SUCCESS(MPI_File_write_all(fh, data, first, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, first);
    CHECK_SUCCESS(MPI_File_write_all(fh, data + first, second, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, second);
    int written = first + second;
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char *want = malloc(total), *got = malloc(total);
        for (long i = 0; i < total; i++)
            want[i] = io_byte(cfg, i);
        for (int r = 0; r < size; r++) {
            int nr = (K - r) * B, wr = r == size - 1 ? nr / 2 : nr;
            for (int i = 0; i < wr; i++) {
                int v = val(r, i, cfg);
                memcpy(want + (long)(i / B) * cycle + (long)(r * B + i % B) * 4, &v, 4);
            }
        }
        CHECK_INT(io_raw_read(path, 0, got, total), total);
        long d = io_first_diff(got, want, total);
        CHECK(d < 0, "config %d (%s=%s): file differs from the reference first at byte %ld", cfg,
              kv[0] ? kv[0] : "defaults", kv[0] ? kv[1] : "", d);
        free(want);
        free(got);
    }
    /* read_all back through the same view, with the individual pointer reset. */
    CHECK_SUCCESS(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(back, 0, sizeof(int) * K * B);
    CHECK_SUCCESS(MPI_File_read_all(fh, back, written, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, written);
    CHECK_BYTES(back, data, (long)written * 4);
    /* read_at_all of the other rank's interleaved data through a whole-file view. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    int peer = (rank + 1) % size;
    int pn = (K - peer) * B;
    int pw = peer == size - 1 ? pn / 2 : pn;
    (void)pw;
    CHECK_SUCCESS(
        MPI_File_set_view(fh, (MPI_Offset)peer * B * 4, MPI_INT, ftype, "native", MPI_INFO_NULL));
    memset(back, 0, sizeof(int) * K * B);
    CHECK_SUCCESS(MPI_File_read_at_all(fh, 0, back, pw, MPI_INT, &st));
    for (int i = 0; i < pw; i++)
        if (back[i] != val(peer, i, cfg)) {
            CHECK(0, "config %d: read_at_all of rank %d's int %d gave %d", cfg, peer, i, back[i]);
            break;
        }
    MPI_Type_free(&ftype);
    MPI_Type_free(&block);

    /* Large disjoint blocks (the direct path), then split collectives on them. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char *big = malloc(BIG), *bigback = malloc(BIG);
    for (long i = 0; i < BIG; i++)
        big[i] = io_byte(cfg * 16 + rank, i);
    MPI_Offset at = total + (MPI_Offset)rank * BIG;
    CHECK_SUCCESS(MPI_File_write_at_all(fh, at, big, BIG, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, BIG);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Offset other = total + (MPI_Offset)((rank + 1) % size) * BIG;
    CHECK_SUCCESS(MPI_File_read_at_all_begin(fh, other, bigback, BIG, MPI_BYTE));
    CHECK_SUCCESS(MPI_File_read_at_all_end(fh, bigback, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, BIG);
    for (long i = 0; i < BIG; i++)
        big[i] = io_byte(cfg * 16 + (rank + 1) % size, i);
    CHECK_BYTES(bigback, big, BIG);
    MPI_Barrier(MPI_COMM_WORLD); /* everybody has read before the blocks change */
    /* write_all_begin/end through the individual pointer, read_all_begin/end back. */
    for (long i = 0; i < BIG; i++)
        big[i] = io_byte(cfg * 16 + 8 + rank, i);
    CHECK_SUCCESS(MPI_File_seek(fh, at, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_write_all_begin(fh, big, BIG, MPI_BYTE));
    CHECK_SUCCESS(MPI_File_write_all_end(fh, big, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, BIG);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    CHECK_SUCCESS(MPI_File_seek(fh, at, MPI_SEEK_SET));
    memset(bigback, 0, BIG);
    CHECK_SUCCESS(MPI_File_read_all_begin(fh, bigback, BIG, MPI_BYTE));
    CHECK_SUCCESS(MPI_File_read_all_end(fh, bigback, &st));
    CHECK_BYTES(bigback, big, BIG);
    MPI_Offset pos = -1;
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, at + BIG);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            for (long i = 0; i < BIG; i++)
                big[i] = io_byte(cfg * 16 + 8 + r, i);
            CHECK_INT(io_raw_read(path, total + (long)r * BIG, bigback, BIG), BIG);
            CHECK_BYTES(bigback, big, BIG);
        }
    }
    CHECK_SUCCESS(MPI_File_close(&fh));
    free(big);
    free(bigback);
    free(data);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int cfg = 0; configs[cfg][0] != NULL || cfg == 5; cfg++) {
        run(cfg, rank, size);
        if (configs[cfg][0] == NULL)
            break;
    }
    return mtest_finish();
}
