/* Nonblocking collective I/O aggregates: MPI_File_iwrite_at_all, iwrite_all, iread_at_all and
 * iread_all with an interleaved view (blocks of BLK bytes, one per process in turn) and
 * romio_cb_write / romio_cb_read = enable, cb_nodes = 1, a cb_buffer_size of a few blocks
 * (many rounds). Aggregation is made visible as in coll_direct.c: every process but rank 0
 * (the only aggregator) lowers its RLIMIT_FSIZE below the file range (SIGXFSZ ignored), so a
 * process writing its own data would fail with EFBIG; through the aggregator every write
 * succeeds. The caller computes and calls MPI_Test while the operation runs; every byte of the
 * file is checked against the reference, reads give the data back with exact counts (short at
 * the end of the file), and with romio_cb_write = disable the same write fails on the limited
 * processes (the control: the limit does bite). */
#include "iotest.h"

#include <signal.h>
#include <sys/resource.h>

#define BLK 96L           /* bytes per block */
#define K 64L             /* blocks per process */
#define FAR (1L << 20)    /* where the view starts: above the lowered limit */
#define LIMIT (64L << 10) /* the lowered RLIMIT_FSIZE */

static struct rlimit saved;

static void limit(int rank, int on)
{
    if (rank == 0)
        return;
    struct rlimit low = saved;
    low.rlim_cur = LIMIT;
    CHECK(setrlimit(RLIMIT_FSIZE, on ? &low : &saved) == 0, "setrlimit failed");
}

/* Waits for `req` by MPI_Test between slices of computation; returns the tests made. */
static int test_until_done(MPI_Request *req, MPI_Status *st)
{
    int done = 0, tests = 0;
    volatile double x = 1.0;
    while (!done) {
        for (int i = 0; i < 20000; i++)
            x = x * 1.0000001 + 1e-9;
        CHECK_SUCCESS(MPI_Test(req, &done, st));
        tests++;
    }
    return tests;
}

static void fill(unsigned char *buf, int seed, int rank)
{
    for (long i = 0; i < K * BLK; i++)
        buf[i] = io_byte(seed + rank, i);
}

/* The file holds block b of process r (seed) at FAR + (b * size + r) * BLK. */
static void check_file(const char *path, int seed, int size)
{
    long total = K * BLK * size;
    unsigned char *raw = malloc((size_t)total);
    CHECK_INT(io_raw_read(path, FAR, raw, total), total);
    for (int r = 0; r < size; r++)
        for (long i = 0; i < K * BLK; i++) {
            long at = (i / BLK * size + r) * BLK + i % BLK;
            if (raw[at] != io_byte(seed + r, i)) {
                CHECK(0, "seed %d: byte %ld of rank %d differs", seed, i, r);
                free(raw);
                return;
            }
        }
    free(raw);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &saved);
    char path[512];
    io_path(MPI_COMM_WORLD, "iaggr", path);
    MPI_Info info = io_info("cb_nodes", "1", "romio_cb_write", "enable", "romio_cb_read", "enable",
                            "cb_buffer_size", "1000", NULL);
    MPI_File fh;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Datatype block, cycle;
    MPI_Type_contiguous((int)BLK, MPI_BYTE, &block);
    MPI_Type_create_resized(block, 0, BLK * size, &cycle);
    MPI_Type_commit(&cycle);
    CHECK_SUCCESS(MPI_File_set_view(fh, FAR + rank * BLK, MPI_BYTE, cycle, "native", info));
    unsigned char *buf = malloc(K * BLK), *back = malloc(K * BLK);
    MPI_Request req;
    MPI_Status st;
    int cnt = 0;

    /* iwrite_at_all through the aggregator, the limited processes included. */
    fill(buf, 1, rank);
    limit(rank, 1);
    CHECK_SUCCESS(MPI_File_iwrite_at_all(fh, 0, buf, (int)(K * BLK), MPI_BYTE, &req));
    test_until_done(&req, &st);
    limit(rank, 0);
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, K * BLK);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_file(path, 1, size);
    MPI_Barrier(MPI_COMM_WORLD);

    /* iwrite_all at the individual pointer (half the blocks, from block K/2), then Wait. */
    fill(buf, 2, rank);
    CHECK_SUCCESS(MPI_File_seek(fh, K / 2 * BLK, MPI_SEEK_SET));
    limit(rank, 1);
    CHECK_SUCCESS(MPI_File_iwrite_all(fh, buf + K / 2 * BLK, (int)(K / 2 * BLK), MPI_BYTE, &req));
    MPI_Offset pos = 0;
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, K * BLK); /* moved when the call is made */
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    limit(rank, 0);
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, K / 2 * BLK);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        /* first half from seed 1, second from seed 2 */
        long total = K * BLK * size;
        unsigned char *raw = malloc((size_t)total);
        CHECK_INT(io_raw_read(path, FAR, raw, total), total);
        for (int r = 0; r < size; r++)
            for (long i = 0; i < K * BLK; i++) {
                long at = (i / BLK * size + r) * BLK + i % BLK;
                int seed = i < K / 2 * BLK ? 1 : 2;
                if (raw[at] != io_byte(seed + r, i)) {
                    CHECK(0, "iwrite_all: byte %ld of rank %d differs", i, r);
                    break;
                }
            }
        free(raw);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* iread_at_all and iread_all through the aggregator. */
    memset(back, 0, K * BLK);
    CHECK_SUCCESS(MPI_File_iread_at_all(fh, 0, back, (int)(K / 2 * BLK), MPI_BYTE, &req));
    test_until_done(&req, &st);
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, K / 2 * BLK);
    fill(buf, 1, rank);
    CHECK_BYTES(back, buf, K / 2 * BLK);
    CHECK_SUCCESS(MPI_File_seek(fh, K / 2 * BLK, MPI_SEEK_SET));
    memset(back, 0, K * BLK);
    CHECK_SUCCESS(MPI_File_iread_all(fh, back, (int)(K / 2 * BLK), MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    fill(buf, 2, rank);
    CHECK_BYTES(back, buf + K / 2 * BLK, K / 2 * BLK);
    /* Past the end: the last process's last block is the end of the file, so reading two
     * cycles from the last block gives one block to the last process and two to the others. */
    memset(back, 0, K * BLK);
    CHECK_SUCCESS(MPI_File_iread_at_all(fh, (K - 1) * BLK, back, (int)(2 * BLK), MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, BLK);
    CHECK_BYTES(back, buf + (K - 1) * BLK, BLK);

    /* The control: without aggregation the limited processes' own writes fail. */
    if (size > 1) {
        MPI_Info off = io_info("romio_cb_write", "disable", NULL);
        CHECK_SUCCESS(MPI_File_set_info(fh, off));
        MPI_Info_free(&off);
        fill(buf, 3, rank);
        limit(rank, 1);
        CHECK_SUCCESS(MPI_File_iwrite_at_all(fh, 0, buf, (int)(K * BLK), MPI_BYTE, &req));
        int rc = MPI_Wait(&req, &st);
        limit(rank, 0);
        if (rank != 0)
            CHECK(rc != MPI_SUCCESS, "a limited process wrote its own data beyond its limit");
    }

    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Info_free(&info);
    MPI_Type_free(&cycle);
    MPI_Type_free(&block);
    free(buf);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
