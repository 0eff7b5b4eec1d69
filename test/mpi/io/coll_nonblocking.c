/* Nonblocking I/O progresses in the background: after MPI_File_iwrite_at the caller computes
 * without calling MPI, and the data reaches the file meanwhile (seen by stat), so the first
 * MPI_Test completes it; iread_at's status has the exact count (short at the end of the
 * file); the collective and shared-pointer forms complete through MPI_Waitall; an overlap
 * ratio of an iwrite with an equal compute phase is printed (not checked: the machines are
 * shared). */
#include "iotest.h"

#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;
static void compute(double seconds)
{
    double t0 = now(), x = 1.0;
    while (now() - t0 < seconds)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char path[512];
    io_path(MPI_COMM_WORLD, "collnb", path);
    MPI_File fh;
    int rc =
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK_SUCCESS(rc);
    if (rc != MPI_SUCCESS)
        return mtest_finish();
    const long n = 4L << 20; /* bytes per process */
    unsigned char *data = malloc(n), *back = malloc(n + 100);
    for (long i = 0; i < n; i++)
        data[i] = io_byte(rank + 7, i);

    /* Progress without MPI calls: wait (computing) until the file holds our last byte. */
    MPI_Request req;
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, rank * n, data, (int)n, MPI_BYTE, &req));
    double t0 = now();
    unsigned char last = 0;
    while (now() - t0 < 20.0) {
        compute(0.002);
        if (io_raw_read(path, rank * n + n - 1, &last, 1) == 1 && last == data[n - 1])
            break;
    }
    CHECK(last == data[n - 1], "the iwrite made no progress in %.1f s without MPI calls",
          now() - t0);
    /* The data is there; the request completes within a short while of Tests. */
    int flag = 0;
    for (double t1 = now(); !flag && now() - t1 < 20.0;)
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "MPI_Test never completed the iwrite");
    if (!flag)
        MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* iread_at: exact count; the last process reads past the end. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st;
    int count = -1;
    long ask = rank == nprocs - 1 ? n + 100 : n;
    CHECK_SUCCESS(MPI_File_iread_at(fh, rank * n, back, (int)ask, MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_INT(count, (int)n);
    CHECK_BYTES(back, data, n);

    /* Collective and shared forms, completed together. */
    MPI_Request reqs[3];
    int small[4] = {rank, rank + 1, rank + 2, rank + 3}, small_back[4] = {0};
    MPI_Offset base = (MPI_Offset)nprocs * n;
    CHECK_SUCCESS(MPI_File_seek_shared(fh, base + nprocs * 16, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_iwrite_at_all(fh, base + rank * 16, small, 4, MPI_INT, &reqs[0]));
    CHECK_SUCCESS(MPI_File_iwrite_shared(fh, small, 1, MPI_INT, &reqs[1]));
    CHECK_SUCCESS(MPI_File_seek(fh, rank * n, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_iread_all(fh, back, 16, MPI_BYTE, &reqs[2]));
    MPI_Status sts[3];
    CHECK_SUCCESS(MPI_Waitall(3, reqs, sts));
    MPI_Get_count(&sts[0], MPI_INT, &count);
    CHECK_INT(count, 4);
    MPI_Get_count(&sts[2], MPI_BYTE, &count);
    CHECK_INT(count, 16);
    CHECK_BYTES(back, data, 16);
    MPI_Offset pos = -1;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == rank * n + 16, "individual pointer at %lld after iread_all", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_iread_at_all(fh, base + rank * 16, small_back, 4, MPI_INT, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    for (int i = 0; i < 4; i++)
        CHECK_INT(small_back[i], small[i]);

    /* Overlap: an iwrite of n bytes with a compute phase as long as the write alone. */
    t0 = now();
    CHECK_SUCCESS(MPI_File_write_at(fh, rank * n, data, (int)n, MPI_BYTE, MPI_STATUS_IGNORE));
    double t_io = now() - t0;
    t0 = now();
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, rank * n, data, (int)n, MPI_BYTE, &req));
    compute(t_io);
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    double t_both = now() - t0;
    double overlap = t_both >= 2 * t_io ? 0.0 : (2 * t_io - t_both) / t_io;
    if (rank == 0)
        printf(
            "# iwrite %ld bytes: write %.2f ms, write+compute overlapped %.2f ms, overlap "
            "%.0f %%\n",
            n, t_io * 1e3, t_both * 1e3, overlap > 1 ? 100.0 : overlap * 100);

    free(data);
    free(back);
    CHECK_SUCCESS(MPI_File_close(&fh));
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
