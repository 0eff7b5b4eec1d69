/* Data representations whose sizes differ from memory's: in "external32" MPI_LONG takes 4
 * bytes (8 in memory here); a user representation "stmpi-wide" stores each MPI_INT as 8
 * big-endian bytes. Views with such etypes and filetypes lay the types out with the file
 * sizes: MPI_File_get_type_extent reports them, a vector filetype's holes and instances
 * follow them, independent and collective writes put exactly the reference bytes in the
 * file (holes untouched), reads give the values back with statuses counting memory items, a
 * short read at the end of the file counts whole items, a value that does not fit external32
 * is MPI_ERR_CONVERSION, and the user conversion functions see the item counts asked for.
 * MPI_WCHAR (2 bytes in external32) and MPI_LONG_DOUBLE (binary128) in a struct filetype. */
#include "iotest.h"

#include <limits.h>

#define NL 12 /* longs per rank: two instances of the filetype */

static void be_bytes(unsigned long long v, int n, unsigned char *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

/* "stmpi-wide": MPI_INT as 8 big-endian bytes; other types as their bytes. */
static long wide_write_items = 0, wide_read_items = 0;

static int wide_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    (void)extra;
    CHECK(type == MPI_INT, "write conversion called for another type");
    wide_write_items += count;
    const int *in = (const int *)userbuf + position;
    for (int i = 0; i < count; i++)
        be_bytes((unsigned long long)(long long)in[i], 8, (unsigned char *)filebuf + 8 * i);
    return MPI_SUCCESS;
}

static int wide_read(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    (void)extra;
    CHECK(type == MPI_INT, "read conversion called for another type");
    wide_read_items += count;
    int *out = (int *)userbuf + position;
    const unsigned char *in = filebuf;
    for (int i = 0; i < count; i++) {
        unsigned long long v = 0;
        for (int b = 0; b < 8; b++)
            v = v << 8 | in[8 * i + b];
        if ((long long)v > INT_MAX || (long long)v < INT_MIN)
            return MPI_ERR_CONVERSION;
        out[i] = (int)(long long)v;
    }
    return MPI_SUCCESS;
}

static int wide_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    (void)extra;
    int sz = 0;
    MPI_Type_size(type, &sz);
    *extent = type == MPI_INT ? 8 : sz;
    return MPI_SUCCESS;
}

/* The file bytes of rank r's longs through the vector view (blocks of 2, stride 3, 4-byte
 * elements), region of `span` bytes per rank starting at r * span; holes keep `fill`. */
static void reference_longs(const long *v, unsigned char *want, long span, unsigned char fill)
{
    memset(want, fill, (size_t)span);
    for (int k = 0; k < NL; k++) {
        long inst = k / 6, in = k % 6;
        long elem = (in / 2) * 3 + in % 2; /* element index inside the instance */
        be_bytes((unsigned long long)(unsigned)(int)v[k], 4, want + inst * 32 + elem * 4);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "dsizes", path);
    const long span = 64; /* two 32-byte filetype instances per rank */
    const unsigned char fill = 0xEE;
    if (rank == 0) {
        static unsigned char pre[16384];
        memset(pre, fill, sizeof pre);
        CHECK_INT(io_raw_write(path, 0, pre, sizeof pre), 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    MPI_Status st;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));

    /* A vector of longs: 3 blocks of 2, stride 3; 64 bytes of extent in memory, 32 in the
     * file. */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 3, MPI_LONG, &vec);
    MPI_Type_commit(&vec);
    CHECK_SUCCESS(
        MPI_File_set_view(fh, (MPI_Offset)span * rank, MPI_LONG, vec, "external32", MPI_INFO_NULL));
    MPI_Aint ext = 0;
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK_INT(ext, 4);
    CHECK_SUCCESS(MPI_File_get_type_extent(fh, vec, &ext));
    CHECK_INT(ext, 32);
    MPI_Count cext = 0;
    CHECK_SUCCESS(MPI_File_get_type_extent_c(fh, vec, &cext));
    CHECK_INT(cext, 32);
    MPI_Offset byte = 0;
    CHECK_SUCCESS(MPI_File_get_byte_offset(fh, 7, &byte)); /* 2nd instance, element 1 */
    CHECK_INT(byte, span * rank + 32 + 4);

    long v[NL], back[NL];
    for (int k = 0; k < NL; k++)
        v[k] = (k % 2 ? -1L : 1L) * (long)(k * 1000003 + rank * 17 + 1);
    /* Independent: six longs, then six more by the individual pointer. */
    CHECK_SUCCESS(MPI_File_write_at(fh, 0, v, 6, MPI_LONG, &st));
    int cnt = -1;
    MPI_Get_count(&st, MPI_LONG, &cnt);
    CHECK_INT(cnt, 6);
    CHECK_SUCCESS(MPI_File_seek(fh, 6, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_write(fh, v + 6, 6, MPI_LONG, &st));
    MPI_Offset pos = -1;
    CHECK_SUCCESS(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, 12);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    {
        unsigned char raw[64], want[64];
        reference_longs(v, want, span, fill);
        CHECK_INT(io_raw_read(path, span * rank, raw, span), span);
        CHECK_BYTES(raw, want, span);
    }
    memset(back, 0, sizeof back);
    CHECK_SUCCESS(MPI_File_read_at(fh, 0, back, NL, MPI_LONG, &st));
    MPI_Get_count(&st, MPI_LONG, &cnt);
    CHECK_INT(cnt, NL);
    CHECK_BYTES(back, v, sizeof v);
    /* A memory type of a different shape: longs two apart in memory. */
    {
        long spread[2 * NL];
        MPI_Datatype mem;
        MPI_Type_vector(NL, 1, 2, MPI_LONG, &mem);
        MPI_Type_commit(&mem);
        memset(spread, 0, sizeof spread);
        CHECK_SUCCESS(MPI_File_read_at(fh, 0, spread, 1, mem, &st));
        MPI_Get_count(&st, mem, &cnt);
        CHECK_INT(cnt, 1);
        for (int k = 0; k < NL; k++)
            CHECK(spread[2 * k] == v[k] && spread[2 * k + 1] == 0, "strided read %d", k);
        MPI_Type_free(&mem);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Collective, interleaved through aggregators: rank r's i-th long is element i * size + r
     * of a contiguous external32 array after the per-rank regions. Byte displacements stay
     * bytes in the file, so the resized extent comes from MPI_File_get_type_extent, as the
     * standard asks of portable programs. */
    {
        const MPI_Offset base = span * size;
        MPI_Aint long_ext = 0;
        CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_LONG, &long_ext));
        MPI_Datatype one, tiled;
        MPI_Type_vector(1, 1, size, MPI_LONG, &one);
        MPI_Type_create_resized(one, 0, long_ext * size, &tiled);
        MPI_Type_commit(&tiled);
        MPI_Info info = io_info("romio_cb_write", "enable", "romio_cb_read", "enable", NULL);
        CHECK_SUCCESS(MPI_File_set_view(fh, base + 4L * rank, MPI_LONG, tiled, "external32", info));
        CHECK_SUCCESS(MPI_File_get_type_extent(fh, tiled, &ext));
        CHECK_INT(ext, 4L * size);
        CHECK_SUCCESS(MPI_File_write_at_all(fh, 0, v, NL, MPI_LONG, &st));
        MPI_Get_count(&st, MPI_LONG, &cnt);
        CHECK_INT(cnt, NL);
        CHECK_SUCCESS(MPI_File_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            long total = 4L * NL * size;
            unsigned char *raw = malloc((size_t)total), *want = malloc((size_t)total);
            for (int r = 0; r < size; r++)
                for (int k = 0; k < NL; k++) {
                    long val = (k % 2 ? -1L : 1L) * (long)(k * 1000003 + r * 17 + 1);
                    be_bytes((unsigned long long)(unsigned)(int)val, 4, want + 4L * (k * size + r));
                }
            CHECK_INT(io_raw_read(path, (long)base, raw, total), total);
            CHECK_BYTES(raw, want, total);
            free(raw);
            free(want);
        }
        memset(back, 0, sizeof back);
        CHECK_SUCCESS(MPI_File_read_at_all(fh, 0, back, NL, MPI_LONG, &st));
        MPI_Get_count(&st, MPI_LONG, &cnt);
        CHECK_INT(cnt, NL);
        CHECK_BYTES(back, v, sizeof v);
        MPI_Info_free(&info);
        MPI_Type_free(&one);
        MPI_Type_free(&tiled);
    }

    /* A value that does not fit 4 bytes: MPI_ERR_CONVERSION. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
    {
        long big = (long)1 << 40;
        int rc = MPI_File_write_at(fh, 2048 + rank, &big, 1, MPI_LONG, &st);
        CHECK_ERR_CLASS(rc, MPI_ERR_CONVERSION);
        long fits = -2147483647L - 1;
        CHECK_SUCCESS(MPI_File_write_at(fh, 512 + rank, &fits, 1, MPI_LONG, &st));
        unsigned char raw[4];
        CHECK_INT(io_raw_read(path, 4L * (512 + rank), raw, 4), 4);
        CHECK(raw[0] == 0x80 && raw[1] == 0 && raw[2] == 0 && raw[3] == 0, "INT_MIN as a long");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_WCHAR (2 bytes in external32, 4 in memory) and MPI_LONG_DOUBLE (IEEE binary128,
     * 16 bytes both ways but converted) in a struct filetype: wchar at 0, long double at 4 (byte
     * displacements stay bytes), extent 20 in the file. */
    {
        MPI_Offset disp = 4096 + 64L * rank;
        int bl[2] = {1, 1};
        MPI_Aint dl[2] = {0, 4};
        MPI_Datatype tl[2] = {MPI_WCHAR, MPI_LONG_DOUBLE}, st2;
        MPI_Type_create_struct(2, bl, dl, tl, &st2);
        MPI_Type_commit(&st2);
        CHECK_SUCCESS(MPI_File_set_view(fh, disp, MPI_BYTE, st2, "external32", MPI_INFO_NULL));
        CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_WCHAR, &ext));
        CHECK_INT(ext, 2);
        CHECK_SUCCESS(MPI_File_get_type_extent(fh, st2, &ext));
        CHECK_INT(ext, 20);
        struct {
            wchar_t w;
            long double x;
        } rec[2] = {{L'A', 1.5L}, {(wchar_t)0x263A, -2.0L}}, rback[2];
        MPI_Datatype mem, memr;
        MPI_Aint ml[2] = {(char *)&rec[0].w - (char *)&rec[0], (char *)&rec[0].x - (char *)&rec[0]};
        MPI_Type_create_struct(2, bl, ml, tl, &mem);
        MPI_Type_create_resized(mem, 0, sizeof rec[0], &memr);
        MPI_Type_commit(&memr);
        CHECK_SUCCESS(MPI_File_write_at(fh, 0, rec, 2, memr, &st));
        CHECK_SUCCESS(MPI_File_sync(fh));
        unsigned char raw[40], want[40];
        memset(want, 0, sizeof want);
        want[2] = want[3] = want[22] = want[23] = fill; /* the holes of the struct */
        want[1] = 0x41;                                 /* L'A' */
        want[4] = 0x3F, want[5] = 0xFF, want[6] = 0x80; /* 1.5 in binary128 */
        want[20] = 0x26, want[21] = 0x3A;               /* U+263A */
        want[24] = 0xC0;                                /* -2.0 in binary128 */
        CHECK_INT(io_raw_read(path, (long)disp, raw, 40), 40);
        CHECK_BYTES(raw, want, 40);
        memset(rback, 0, sizeof rback);
        CHECK_SUCCESS(MPI_File_read_at(fh, 0, rback, 2, memr, &st));
        MPI_Get_count(&st, memr, &cnt);
        CHECK_INT(cnt, 2);
        for (int k = 0; k < 2; k++)
            CHECK(rback[k].w == rec[k].w && rback[k].x == rec[k].x, "wchar/long double %d", k);
        MPI_Type_free(&st2);
        MPI_Type_free(&mem);
        MPI_Type_free(&memr);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* A user representation that widens MPI_INT to 8 bytes. */
    CHECK_SUCCESS(MPI_Register_datarep("stmpi-wide", wide_read, wide_write, wide_extent, NULL));
    {
        MPI_Offset disp = 8192 + 1024L * rank;
        MPI_Datatype pairs; /* 2 ints, a hole of 1 int: 24 bytes of extent in the file */
        MPI_Type_vector(2, 2, 3, MPI_INT, &pairs);
        MPI_Type_commit(&pairs);
        CHECK_SUCCESS(MPI_File_set_view(fh, disp, MPI_INT, pairs, "stmpi-wide", MPI_INFO_NULL));
        CHECK_SUCCESS(MPI_File_get_type_extent(fh, MPI_INT, &ext));
        CHECK_INT(ext, 8);
        CHECK_SUCCESS(MPI_File_get_type_extent(fh, pairs, &ext));
        CHECK_INT(ext, 40);
        int iv[8], iback[8];
        for (int i = 0; i < 8; i++)
            iv[i] = (i % 3 ? -1 : 1) * (100 * i + rank);
        wide_write_items = 0;
        CHECK_SUCCESS(MPI_File_write_at(fh, 0, iv, 8, MPI_INT, &st));
        CHECK_INT(wide_write_items, 8);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK_INT(cnt, 8);
        CHECK_SUCCESS(MPI_File_sync(fh));
        unsigned char raw[80], want[80];
        memset(want, fill, sizeof want);
        for (int i = 0; i < 8; i++) {
            long inst = i / 4, in = i % 4, elem = (in / 2) * 3 + in % 2;
            be_bytes((unsigned long long)(long long)iv[i], 8, want + inst * 40 + elem * 8);
        }
        CHECK_INT(io_raw_read(path, (long)disp, raw, 80), 80);
        /* the hole of the last instance lies past what was written: compare the first 72 */
        CHECK_BYTES(raw, want, 72);
        wide_read_items = 0;
        memset(iback, 0, sizeof iback);
        CHECK_SUCCESS(MPI_File_read_at(fh, 2, iback, 5, MPI_INT, &st));
        CHECK_INT(wide_read_items, 5);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK_INT(cnt, 5);
        CHECK_BYTES(iback, iv + 2, 5 * sizeof(int));
        MPI_Type_free(&pairs);
    }
    /* A short read at the end of the file (16 KiB of fill) counts whole longs: 6 bytes
     * are left after the view's start, one long and half of the next. */
    MPI_Barrier(MPI_COMM_WORLD);
    {
        MPI_Offset fsize = 0;
        CHECK_SUCCESS(MPI_File_get_size(fh, &fsize));
        CHECK_INT(fsize, 16384);
        CHECK_SUCCESS(
            MPI_File_set_view(fh, fsize - 6, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
        memset(back, 0, sizeof back);
        CHECK_SUCCESS(MPI_File_read_at(fh, 0, back, 3, MPI_LONG, &st));
        MPI_Get_count(&st, MPI_LONG, &cnt);
        CHECK_INT(cnt, 1);
        CHECK_INT(back[0], (long)(int)0xEEEEEEEEu);
    }
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
