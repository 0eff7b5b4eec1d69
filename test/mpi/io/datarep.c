/* Data representations: "native" stores memory bytes; "external32" stores big-endian
 * (int, short, double, long long checked byte by byte in the file), with type extents from
 * get_type_extent, and reads back to native values; "internal" round-trips; a user
 * representation registered with MPI_Register_datarep has its conversion functions called
 * (the file holds the converted bytes); registering a name twice is MPI_ERR_DUP_DATAREP; an
 * unknown name in set_view is MPI_ERR_UNSUPPORTED_DATAREP. */
#include "iotest.h"

#include <stddef.h>

#define N 16

static int user_calls = 0;

/* "stmpi-xor": the file holds each byte of an int XOR 0x5A. */
static int xor_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    (void)type;
    CHECK(extra == (void *)&user_calls, "extra_state not passed through");
    user_calls++;
    const unsigned char *in = (const unsigned char *)userbuf + position * 4;
    unsigned char *out = filebuf;
    for (long i = 0; i < 4L * count; i++)
        out[i] = in[i] ^ 0x5A;
    return MPI_SUCCESS;
}

static int xor_read(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                    void *extra)
{
    (void)type;
    (void)extra;
    user_calls++;
    unsigned char *out = (unsigned char *)userbuf + position * 4;
    const unsigned char *in = filebuf;
    for (long i = 0; i < 4L * count; i++)
        out[i] = in[i] ^ 0x5A;
    return MPI_SUCCESS;
}

static int xor_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    (void)extra;
    int sz = 0;
    MPI_Type_size(type, &sz);
    *extent = sz;
    return MPI_SUCCESS;
}

static void be_bytes(unsigned long long v, int n, unsigned char *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "datarep", path);
    MPI_File fh;
    MPI_Status st;
    int ints[N], iback[N];
    for (int i = 0; i < N; i++)
        ints[i] = (int)(0x01020304u * (unsigned)(i + 1) + (unsigned)rank * 0x10000000u);

    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    /* native: the file holds the memory bytes. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    CHECK_SUCCESS(MPI_File_write_at(fh, rank * N, ints, N, MPI_INT, &st));
    CHECK_SUCCESS(MPI_File_sync(fh));
    {
        unsigned char raw[4 * N];
        CHECK_INT(io_raw_read(path, 4L * N * rank, raw, 4 * N), 4 * N);
        CHECK_BYTES(raw, ints, 4 * N);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* external32: big-endian on disk. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING + 1];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    CHECK_SUCCESS(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(strcmp(rep, "external32") == 0, "datarep is \"%s\"", rep);
    MPI_Aint ext = 0;
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK_INT(ext, 4);
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    CHECK_INT(ext, 8);
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK_INT(ext, 4); /* external32's MPI_LONG is 4 bytes */
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_LONG_LONG, &ext));
    CHECK_INT(ext, 8);
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_SHORT, &ext));
    CHECK_INT(ext, 2);
    /* Per rank a record: N ints, 4 shorts, 2 doubles, 2 long longs = 64 + 8 + 16 + 16 bytes. */
    const long rec = 4 * N + 8 + 16 + 16;
    MPI_Offset at = (MPI_Offset)rec * rank;
    short shorts[4] = {1, -2, 0x1234, (short)(rank + 7)};
    double doubles[2] = {1.5, -1024.25 - rank};
    long long lls[2] = {0x0102030405060708LL, -3 - rank};
    CHECK_SUCCESS(MPI_File_write_at(fh, at, ints, N, MPI_INT, &st));
    int cnt = 0;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, N);
    CHECK_SUCCESS(MPI_File_write_at(fh, at + 4 * N, shorts, 4, MPI_SHORT, &st));
    CHECK_SUCCESS(MPI_File_write_at(fh, at + 4 * N + 8, doubles, 2, MPI_DOUBLE, &st));
    CHECK_SUCCESS(MPI_File_write_at(fh, at + 4 * N + 24, lls, 2, MPI_LONG_LONG, &st));
    CHECK_SUCCESS(MPI_File_sync(fh));
    {
        unsigned char raw[4 * N + 40], want[4 * N + 40];
        for (int i = 0; i < N; i++)
            be_bytes((unsigned)ints[i], 4, want + 4 * i);
        for (int i = 0; i < 4; i++)
            be_bytes((unsigned short)shorts[i], 2, want + 4 * N + 2 * i);
        for (int i = 0; i < 2; i++) {
            unsigned long long bits;
            memcpy(&bits, &doubles[i], 8);
            be_bytes(bits, 8, want + 4 * N + 8 + 8 * i);
            be_bytes((unsigned long long)lls[i], 8, want + 4 * N + 24 + 8 * i);
        }
        CHECK_INT(io_raw_read(path, (long)at, raw, rec), rec);
        CHECK_BYTES(raw, want, rec);
    }
    /* Read back to native values. */
    short sback[4] = {0};
    double dback[2] = {0};
    long long lback[2] = {0};
    CHECK_SUCCESS(MPI_File_read_at(fh, at, iback, N, MPI_INT, &st));
    CHECK_BYTES(iback, ints, sizeof ints);
    CHECK_SUCCESS(MPI_File_read_at(fh, at + 4 * N, sback, 4, MPI_SHORT, &st));
    CHECK_BYTES(sback, shorts, sizeof shorts);
    CHECK_SUCCESS(MPI_File_read_at(fh, at + 4 * N + 8, dback, 2, MPI_DOUBLE, &st));
    CHECK_BYTES(dback, doubles, sizeof doubles);
    CHECK_SUCCESS(MPI_File_read_at(fh, at + 4 * N + 24, lback, 2, MPI_LONG_LONG, &st));
    CHECK_BYTES(lback, lls, sizeof lls);
    /* A derived memory type: a struct of an int and a double (padding not in the file). */
    struct pair {
        int i;
        double d;
    } pairs[2] = {{rank, 0.5}, {-rank, 2.0}}, pback[2];
    int bl[2] = {1, 1};
    MPI_Aint displs[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, stype, rtype;
    MPI_Type_create_struct(2, bl, displs, types, &stype);
    MPI_Type_create_resized(stype, 0, sizeof(struct pair), &rtype);
    MPI_Type_commit(&rtype);
    MPI_Offset pat = (MPI_Offset)rec * size + 24L * rank;
    CHECK_SUCCESS(MPI_File_write_at(fh, pat, pairs, 2, rtype, &st));
    CHECK_SUCCESS(MPI_File_sync(fh));
    {
        unsigned char raw[24], want[24];
        for (int k = 0; k < 2; k++) {
            unsigned long long bits;
            be_bytes((unsigned)pairs[k].i, 4, want + 12 * k);
            memcpy(&bits, &pairs[k].d, 8);
            be_bytes(bits, 8, want + 12 * k + 4);
        }
        CHECK_INT(io_raw_read(path, (long)pat, raw, 24), 24);
        CHECK_BYTES(raw, want, 24);
    }
    memset(pback, 0, sizeof pback);
    CHECK_SUCCESS(MPI_File_read_at(fh, pat, pback, 2, rtype, &st));
    for (int k = 0; k < 2; k++)
        CHECK(pback[k].i == pairs[k].i && pback[k].d == pairs[k].d, "struct %d read back", k);
    MPI_Type_free(&stype);
    MPI_Type_free(&rtype);

    /* internal round-trips. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "internal", MPI_INFO_NULL));
    MPI_Offset iat = 4096 + (MPI_Offset)rank * 1024;
    CHECK_SUCCESS(MPI_File_write_at(fh, iat, ints, N, MPI_INT, &st));
    memset(iback, 0, sizeof iback);
    CHECK_SUCCESS(MPI_File_read_at(fh, iat, iback, N, MPI_INT, &st));
    CHECK_BYTES(iback, ints, sizeof ints);

    /* Unknown representation. */
    int rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-datarep", MPI_INFO_NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_DATAREP);

    /* A user representation. */
    CHECK_SUCCESS(MPI_Register_datarep("stmpi-xor", xor_read, xor_write, xor_extent, &user_calls));
    rc = MPI_Register_datarep("stmpi-xor", xor_read, xor_write, xor_extent, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_DUP_DATAREP);
    rc = MPI_Register_datarep("external32", xor_read, xor_write, xor_extent, NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_DUP_DATAREP);
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "stmpi-xor", MPI_INFO_NULL));
    MPI_Offset uat = 8192 / 4 + (MPI_Offset)rank * N; /* in ints */
    user_calls = 0;
    CHECK_SUCCESS(MPI_File_write_at(fh, uat, ints, N, MPI_INT, &st));
    CHECK(user_calls > 0, "the write conversion function was not called");
    CHECK_SUCCESS(MPI_File_sync(fh));
    {
        unsigned char raw[4 * N], want[4 * N];
        memcpy(want, ints, sizeof ints);
        for (int i = 0; i < 4 * N; i++)
            want[i] ^= 0x5A;
        CHECK_INT(io_raw_read(path, (long)uat * 4, raw, 4 * N), 4 * N);
        CHECK_BYTES(raw, want, 4 * N);
    }
    user_calls = 0;
    memset(iback, 0, sizeof iback);
    CHECK_SUCCESS(MPI_File_read_at(fh, uat, iback, N, MPI_INT, &st));
    CHECK(user_calls > 0, "the read conversion function was not called");
    CHECK_BYTES(iback, ints, sizeof ints);
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
