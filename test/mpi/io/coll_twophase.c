/* Two-phase collective I/O checked byte by byte against a reference: contiguous blocks and a
 * strided interleaved view, written and read with every romio_cb_write / romio_cb_read setting,
 * one and all processes as aggregators (cb_nodes) and a cb_buffer_size small enough to force
 * many rounds, and blocks large enough for the direct path; a collective read past the end of the
 * file gives a short count. */
#include "iotest.h"

#define BLOCK 24 /* bytes per block of the strided view */

static int rank, nprocs;
static long NBLK = 50; /* blocks per process */

/* The byte at file offset o of the interleaved file: block o / BLOCK belongs to process
 * block % nprocs, at position (block / nprocs) * BLOCK + o % BLOCK of its stream. */
static unsigned char interleaved_byte(long o)
{
    long blk = o / BLOCK;
    int owner = (int)(blk % nprocs);
    return io_byte(owner + 1, (blk / nprocs) * BLOCK + o % BLOCK);
}

static void check_file(const char *path, long size, int interleaved, const char *what)
{
    unsigned char *got = malloc((size_t)size + 16);
    unsigned char *want = malloc((size_t)size + 16);
    long n = io_raw_read(path, 0, got, size + 16);
    CHECK(n == size, "%s: file has %ld bytes, expected %ld", what, n, size);
    for (long o = 0; o < size; o++)
        want[o] = interleaved ? interleaved_byte(o)
                              : io_byte((int)(o / (BLOCK * NBLK)) + 1, o % (BLOCK * NBLK));
    if (n == size)
        CHECK_BYTES(got, want, size);
    free(got);
    free(want);
}

static void run(const char *cb, const char *nodes, const char *bufsize)
{
    char path[512];
    io_path(MPI_COMM_WORLD, "coll2ph", path);
    MPI_Info info = io_info("romio_cb_write", cb, "romio_cb_read", cb, "cb_nodes", nodes,
                            "cb_buffer_size", bufsize, NULL);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    CHECK_SUCCESS(rc);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return;
    const long mine = BLOCK * NBLK;
    unsigned char *data = malloc(mine), *back = malloc(mine + 64);
    for (long i = 0; i < mine; i++)
        data[i] = io_byte(rank + 1, i);

    /* Contiguous: process r's block at r * mine, in two calls through the individual pointer. */
    MPI_Status st;
    int count = -1;
    CHECK_SUCCESS(MPI_File_seek(fh, rank * mine, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_write_all(fh, data, (int)(mine / 2), MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_INT(count, (int)(mine / 2));
    CHECK_SUCCESS(MPI_File_write_all(fh, data + mine / 2, (int)(mine - mine / 2), MPI_BYTE, &st));
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == (rank + 1) * mine, "%s: position %lld after write_all", cb, (long long)pos);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    check_file(path, mine * nprocs, 0, cb);
    memset(back, 0, mine);
    CHECK_SUCCESS(MPI_File_read_at_all(fh, rank * mine, back, (int)mine, MPI_BYTE, &st));
    CHECK_BYTES(back, data, mine);

    /* A read past the end: the last process asks for 64 more bytes than exist. */
    count = -1;
    long ask = rank == nprocs - 1 ? mine + 64 : mine;
    CHECK_SUCCESS(MPI_File_read_at_all(fh, rank * mine, back, (int)ask, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_INT(count, (int)mine);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_set_size(fh, 0));

    /* Interleaved: a vector filetype, process r owns blocks r, r + nprocs, ... */
    MPI_Datatype ftype;
    MPI_Type_vector(NBLK, BLOCK, BLOCK * nprocs, MPI_BYTE, &ftype);
    MPI_Type_commit(&ftype);
    CHECK_SUCCESS(
        MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, ftype, "native", MPI_INFO_NULL));
    /* The memory side is strided too: every other int of a buffer twice the size. */
    int nint = (int)(mine / 4);
    int *wide = calloc((size_t)nint * 2, sizeof(int));
    for (int i = 0; i < nint; i++)
        memcpy(&wide[2 * i], data + 4 * i, 4);
    MPI_Datatype mtype;
    MPI_Type_vector(nint, 1, 2, MPI_INT, &mtype);
    MPI_Type_commit(&mtype);
    CHECK_SUCCESS(MPI_File_write_at_all(fh, 0, wide, 1, mtype, &st));
    MPI_Get_count(&st, mtype, &count);
    CHECK_INT(count, 1);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    check_file(path, mine * nprocs, 1, cb);
    int *wide_back = calloc((size_t)nint * 2, sizeof(int));
    CHECK_SUCCESS(MPI_File_read_at_all(fh, 0, wide_back, 1, mtype, &st));
    for (int i = 0; i < nint; i++)
        CHECK(wide_back[2 * i] == wide[2 * i] && wide_back[2 * i + 1] == 0,
              "%s: int %d read back as %d, expected %d", cb, i, wide_back[2 * i], wide[2 * i]);
    CHECK_SUCCESS(MPI_File_read_at_all(fh, 0, back, (int)mine, MPI_BYTE, &st));
    CHECK_BYTES(back, data, mine);

    MPI_Type_free(&mtype);
    MPI_Type_free(&ftype);
    free(wide);
    free(wide_back);
    free(data);
    free(back);
    CHECK_SUCCESS(MPI_File_close(&fh));
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char all[16];
    snprintf(all, sizeof all, "%d", nprocs);
    const char *modes[] = {"enable", "disable", "automatic"};
    for (int m = 0; m < 3; m++) {
        run(modes[m], "1", "16777216");
        run(modes[m], all, "100"); /* many rounds, windows not aligned with blocks */
        run(modes[m], "1", "7");
    }
    /* 24000 bytes per process: under automatic the disjoint contiguous blocks go direct. */
    NBLK = 1000;
    run("automatic", all, "4096");
    run("enable", "1", "65536");
    return mtest_finish();
}
