/* Independent reads and writes: explicit offsets (and the _c large-count forms), statuses
 * with exact counts (MPI_Get_count, MPI_Get_elements_x), zero-length accesses, offsets past
 * 4 GiB, individual file pointers that every rank moves on its own, a noncontiguous memory
 * type, and reads past the end of file that return a short count (not an error). */
#include "iotest.h"

#define N 1000

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "rw", path);
    MPI_File fh;
    MPI_Status st;
    int cnt;
    MPI_Count ecount;
    unsigned char buf[N], want[N];

    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    /* Explicit offsets: rank r's block at r * N, written in two pieces (one _c). */
    for (int i = 0; i < N; i++)
        want[i] = io_byte(rank, i);
    CHECK_SUCCESS(MPI_File_write_at(fh, (MPI_Offset)rank * N, want, 300, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, 300);
    CHECK_SUCCESS(MPI_File_write_at_c(fh, (MPI_Offset)rank * N + 300, want + 300,
                                      (MPI_Count)(N - 300), MPI_BYTE, &st));
    MPI_Get_elements_x(&st, MPI_BYTE, &ecount);
    CHECK_INT(ecount, N - 300);
    /* Zero-length write: success, count 0, nothing changes. */
    CHECK_SUCCESS(MPI_File_write_at(fh, (MPI_Offset)rank * N, want, 0, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, 0);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    /* Everybody reads everybody's block; with MPI_STATUS_IGNORE too. */
    for (int r = 0; r < size; r++) {
        unsigned char ref[N];
        for (int i = 0; i < N; i++)
            ref[i] = io_byte(r, i);
        memset(buf, 0, N);
        CHECK_SUCCESS(MPI_File_read_at(fh, (MPI_Offset)r * N, buf, N, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_INT(cnt, N);
        CHECK_BYTES(buf, ref, N);
        memset(buf, 0, N);
        CHECK_SUCCESS(
            MPI_File_read_at_c(fh, (MPI_Offset)r * N, buf, N, MPI_BYTE, MPI_STATUS_IGNORE));
        CHECK_BYTES(buf, ref, N);
    }
    /* Counts in a derived type: 250 ints as MPI_INT = 250, as 2-int contiguous = 125. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int ints[250];
    CHECK_SUCCESS(MPI_File_read_at(fh, (MPI_Offset)rank * N, ints, 125, pair, &st));
    MPI_Get_count(&st, pair, &cnt);
    CHECK_INT(cnt, 125);
    MPI_Get_elements_x(&st, pair, &ecount);
    CHECK_INT(ecount, 250);
    CHECK_BYTES(ints, want, N);
    MPI_Type_free(&pair);

    /* Noncontiguous memory: every third byte of a buffer, written to a contiguous range. */
    MPI_Datatype third;
    MPI_Type_vector(100, 1, 3, MPI_BYTE, &third);
    MPI_Type_commit(&third);
    unsigned char spread[300], packed[100];
    for (int i = 0; i < 300; i++)
        spread[i] = io_byte(50 + rank, i);
    for (int i = 0; i < 100; i++)
        packed[i] = spread[3 * i];
    MPI_Offset base = (MPI_Offset)size * N + (MPI_Offset)rank * 100;
    CHECK_SUCCESS(MPI_File_write_at(fh, base, spread, 1, third, &st));
    MPI_Get_elements_x(&st, third, &ecount);
    CHECK_INT(ecount, 100);
    memset(buf, 0, 100);
    CHECK_SUCCESS(MPI_File_read_at(fh, base, buf, 100, MPI_BYTE, &st));
    CHECK_BYTES(buf, packed, 100);
    unsigned char spread2[300];
    memset(spread2, 0, sizeof spread2);
    CHECK_SUCCESS(MPI_File_read_at(fh, base, spread2, 1, third, &st));
    for (int i = 0; i < 100; i++)
        CHECK(spread2[3 * i] == packed[i] && spread2[3 * i + 1] == 0, "strided read byte %d", i);
    MPI_Type_free(&third);

    /* Individual pointers: every rank moves its own. */
    MPI_Offset pos = -1;
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, 0);
    CHECK_SUCCESS(MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET));
    memset(buf, 0, N);
    CHECK_SUCCESS(MPI_File_read(fh, buf, 100, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_read_c(fh, buf + 100, 100, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, (MPI_Offset)rank * N + 200);
    CHECK_BYTES(buf, want, 200);
    CHECK_SUCCESS(MPI_File_seek(fh, -150, MPI_SEEK_CUR));
    CHECK_SUCCESS(MPI_File_read(fh, buf, 10, MPI_BYTE, &st));
    CHECK_BYTES(buf, want + 50, 10);
    /* Write through the pointer at the end of the file region of this rank. */
    MPI_Offset tail = (MPI_Offset)size * N + (MPI_Offset)size * 100 + (MPI_Offset)rank * 16;
    CHECK_SUCCESS(MPI_File_seek(fh, tail, MPI_SEEK_SET));
    unsigned char sixteen[16];
    memset(sixteen, 0x70 + rank, 16);
    CHECK_SUCCESS(MPI_File_write(fh, sixteen, 8, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_write_c(fh, sixteen + 8, 8, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, tail + 16);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_sync(fh));
    const long fsize = (long)size * N + size * 100L + size * 16L;
    MPI_Offset sz = 0;
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, fsize);
    if (rank == 0) {
        CHECK_INT(io_raw_size(path), fsize);
        for (int r = 0; r < size; r++) {
            unsigned char ref[16];
            memset(ref, 0x70 + r, 16);
            io_raw_read(path, (long)size * N + size * 100L + r * 16L, buf, 16);
            CHECK_BYTES(buf, ref, 16);
        }
    }

    /* Past the end: a short count, then zero, never an error. */
    memset(buf, 0, N);
    CHECK_SUCCESS(MPI_File_read_at(fh, fsize - 10, buf, 100, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, 10);
    {
        unsigned char ref[10];
        memset(ref, 0x70 + size - 1, 10);
        CHECK_BYTES(buf, ref, 10);
    }
    CHECK_SUCCESS(MPI_File_read_at(fh, fsize + 1000, buf, 100, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, 0);
    /* In ints: 8 bytes left are 2 ints; 10 bytes left is not a whole number of ints. */
    CHECK_SUCCESS(MPI_File_read_at(fh, fsize - 8, ints, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, 2);
    CHECK_SUCCESS(MPI_File_read_at(fh, fsize - 10, ints, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, MPI_UNDEFINED);
    /* Through the individual pointer: short, and the pointer moves by what was read. */
    CHECK_SUCCESS(MPI_File_seek(fh, fsize - 5, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_read(fh, buf, 50, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, 5);
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, fsize);
    /* Collective read with some ranks past the end. */
    CHECK_SUCCESS(MPI_File_read_at_all(fh, fsize - 20 + rank * 10, buf, 20, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    {
        long left = 20 - rank * 10;
        CHECK_INT(cnt, left < 0 ? 0 : left);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Offsets past 4 GiB (a sparse file). */
    const MPI_Offset far = ((MPI_Offset)5 << 30) + (MPI_Offset)rank * 8;
    long long mark = 0x0123456789ABCDEFLL + rank, got = 0;
    CHECK_SUCCESS(MPI_File_write_at(fh, far, &mark, 1, MPI_LONG_LONG, &st));
    CHECK_SUCCESS(MPI_File_read_at(fh, far, &got, 1, MPI_LONG_LONG, &st));
    CHECK_INT(got, mark);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_get_size(fh, &sz));
    CHECK(sz >= far + 8, "size %lld after writing at %lld", (long long)sz, (long long)far);
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_INT(io_raw_size(path), ((long)5 << 30) + size * 8L);
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    }
    return mtest_finish();
}
