/* Nonblocking I/O: iwrite_at / iread_at (and _c), iwrite / iread (the individual pointer moves
 * when the call is made), iwrite_all / iread_all and iwrite_at_all / iread_at_all, completed
 * by MPI_Test loops, MPI_Waitall and MPI_Request_get_status, with exact counts; and
 * progress: a write of several MiB started, then no MPI call for a while, then one MPI_Test
 * must find it complete (the I/O advanced while the program computed). */
#include "iotest.h"

#include <time.h>

#define N 4096
#define BIG (8L << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Busy computation without MPI calls for s seconds. */
static double compute(double s)
{
    volatile double x = 1.0;
    double end = now() + s;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

/* MPI_Test until done; fails the check when it takes over 30 s. */
static void test_until_done(MPI_Request *req, MPI_Status *st, const char *what)
{
    int done = 0;
    double end = now() + 30;
    while (!done && now() < end) {
        int rc = MPI_Test(req, &done, st);
        if (rc != MPI_SUCCESS) {
            CHECK_SUCCESS(rc);
            return;
        }
    }
    CHECK(done, "%s did not complete under MPI_Test within 30 s", what);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "nb", path);
    MPI_File fh;
    MPI_Status st, sts[4];
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Request reqs[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int cnt;
    unsigned char *a = malloc(N), *b = malloc(N), *want = malloc(N);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

    /* iwrite_at of two halves, completed together. */
    for (int i = 0; i < N; i++)
        a[i] = io_byte(rank, i);
    MPI_Offset base = (MPI_Offset)rank * N;
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, base, a, N / 2, MPI_BYTE, &reqs[0]));
    CHECK_SUCCESS(MPI_File_iwrite_at_c(fh, base + N / 2, a + N / 2, N / 2, MPI_BYTE, &reqs[1]));
    CHECK_SUCCESS(MPI_Waitall(2, reqs, sts));
    MPI_Get_count(&sts[0], MPI_BYTE, &cnt);
    CHECK_INT(cnt, N / 2);
    MPI_Get_count(&sts[1], MPI_BYTE, &cnt);
    CHECK_INT(cnt, N / 2);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    /* iread_at of the neighbour's block, polled with MPI_Test. */
    int peer = (rank + 1) % size;
    for (int i = 0; i < N; i++)
        want[i] = io_byte(peer, i);
    memset(b, 0, N);
    CHECK_SUCCESS(MPI_File_iread_at(fh, (MPI_Offset)peer * N, b, N, MPI_BYTE, &req));
    test_until_done(&req, &st, "iread_at");
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, N);
    CHECK_BYTES(b, want, N);
    memset(b, 0, N);
    CHECK_SUCCESS(MPI_File_iread_at_c(fh, (MPI_Offset)peer * N, b, N, MPI_BYTE, &req));
    int flag = 0;
    double end = now() + 30;
    while (!flag && now() < end) {
        int rc = MPI_Request_get_status(req, &flag, &st);
        if (rc != MPI_SUCCESS) {
            CHECK_SUCCESS(rc);
            break;
        }
    }
    CHECK(flag, "MPI_Request_get_status never reported completion");
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
    CHECK_BYTES(b, want, N);

    /* iwrite / iread: the pointer moves when the call is made. */
    MPI_Offset pos = -1, mine = (MPI_Offset)size * N + (MPI_Offset)rank * N;
    CHECK_SUCCESS(MPI_File_seek(fh, mine, MPI_SEEK_SET));
    for (int i = 0; i < N; i++)
        a[i] = io_byte(10 + rank, i);
    CHECK_SUCCESS(MPI_File_iwrite(fh, a, N / 4, MPI_BYTE, &reqs[0]));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, mine + N / 4);
    CHECK_SUCCESS(MPI_File_iwrite_c(fh, a + N / 4, 3 * N / 4, MPI_BYTE, &reqs[1]));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, mine + N);
    CHECK_SUCCESS(MPI_Waitall(2, reqs, sts));
    CHECK_SUCCESS(MPI_File_seek(fh, mine, MPI_SEEK_SET));
    memset(b, 0, N);
    CHECK_SUCCESS(MPI_File_iread(fh, b, N / 2, MPI_BYTE, &reqs[0]));
    CHECK_SUCCESS(MPI_File_iread_c(fh, b + N / 2, N / 2, MPI_BYTE, &reqs[1]));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, mine + N);
    CHECK_SUCCESS(MPI_Waitall(2, reqs, sts));
    CHECK_BYTES(b, a, N);

    /* Nonblocking collectives: interleaved ints, then read back. */
    MPI_Datatype ftype;
    MPI_Type_vector(N / 16, 4, 4 * size, MPI_INT, &ftype);
    MPI_Datatype rtype;
    MPI_Type_create_resized(ftype, 0, (MPI_Aint)N / 16 * 4 * size * 4, &rtype);
    MPI_Type_commit(&rtype);
    MPI_Offset cbase = 2 * (MPI_Offset)size * N;
    CHECK_SUCCESS(
        MPI_File_set_view(fh, cbase + rank * 16, MPI_INT, rtype, "native", MPI_INFO_NULL));
    int *ia = malloc(N), *ib = malloc(N);
    for (int i = 0; i < N / 4; i++)
        ia[i] = rank * 100000 + i;
    CHECK_SUCCESS(MPI_File_iwrite_all(fh, ia, N / 4, MPI_INT, &req));
    test_until_done(&req, &st, "iwrite_all");
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, N / 4);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    memset(ib, 0, N);
    CHECK_SUCCESS(MPI_File_iread_at_all(fh, 0, ib, N / 4, MPI_INT, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK_BYTES(ib, ia, N);
    if (rank == 0) {
        int *img = malloc((size_t)N * size);
        CHECK_INT(io_raw_read(path, (long)cbase, img, (long)N * size), (long)N * size);
        int bad = 0;
        for (int i = 0; i < N / 4 * size; i++) {
            int r = (i / 4) % size, k = (i / (4 * size)) * 4 + i % 4;
            if (img[i] != r * 100000 + k && bad++ < 3)
                CHECK(0, "interleaved int %d is %d, expected %d", i, img[i], r * 100000 + k);
        }
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0 has checked before the ints change */
    for (int i = 0; i < N / 4; i++)
        ia[i] = -rank * 100000 - i;
    CHECK_SUCCESS(MPI_File_iwrite_at_all(fh, 0, ia, N / 4, MPI_INT, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    CHECK_SUCCESS(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(ib, 0, N);
    CHECK_SUCCESS(MPI_File_iread_all(fh, ib, N / 4, MPI_INT, &req));
    test_until_done(&req, &st, "iread_all");
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, N / 4);
    CHECK_BYTES(ib, ia, N);
    MPI_Type_free(&ftype);
    MPI_Type_free(&rtype);
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));

    /* Progress: BIG bytes per rank written while the rank computes for 3 s without MPI. */
    unsigned char *big = malloc(BIG);
    for (long i = 0; i < BIG; i++)
        big[i] = io_byte(20 + rank, i);
    MPI_Offset pbase = 4 * (MPI_Offset)size * N + (MPI_Offset)rank * BIG;
    double t0 = now();
    CHECK_SUCCESS(MPI_File_iwrite_at(fh, pbase, big, BIG, MPI_BYTE, &req));
    double t_call = now() - t0;
    compute(3.0);
    int done = 0;
    CHECK_SUCCESS(MPI_Test(&req, &done, &st));
    CHECK(done,
          "an %ld-byte iwrite_at did not progress during 3 s without MPI calls "
          "(the call itself took %.3f s)",
          BIG, t_call);
    if (!done)
        MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, BIG);
    unsigned char *bigback = malloc(BIG);
    CHECK_SUCCESS(MPI_File_read_at(fh, pbase, bigback, BIG, MPI_BYTE, &st));
    CHECK_BYTES(bigback, big, BIG);
    /* The same for a nonblocking collective read. */
    memset(bigback, 0, BIG);
    CHECK_SUCCESS(MPI_File_iread_at_all(fh, pbase, bigback, BIG, MPI_BYTE, &req));
    compute(3.0);
    done = 0;
    CHECK_SUCCESS(MPI_Test(&req, &done, &st));
    CHECK(done, "an %ld-byte iread_at_all did not progress during 3 s without MPI calls", BIG);
    if (!done)
        MPI_Wait(&req, &st);
    CHECK_BYTES(bigback, big, BIG);

    CHECK_SUCCESS(MPI_File_close(&fh));
    free(a);
    free(b);
    free(want);
    free(ia);
    free(ib);
    free(big);
    free(bigback);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
