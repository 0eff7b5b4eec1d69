/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size (+ _c)
 * with "external32": every predefined type packs to the standard's size,
 * big-endian, byte for byte as computed here; unpacking gives the values
 * back; derived types (struct with padding, vector, pairs) pack without
 * padding; an external32 buffer sent to the next rank as MPI_BYTE is
 * decoded there element by element; and the errors: an unknown datarep, a
 * too small buffer, a negative count, an uncommitted type, a long that does
 * not fit in external32's 4 bytes. */
#include "mtest.h"

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* Big-endian bytes of the low `n` bytes of v. */
static void be(uint64_t v, int n, unsigned char *out)
{
    for (int i = 0; i < n; ++i)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static uint64_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* Packs `count` values at `in` as `type`, compares with `expect` (ext_each
 * bytes per value), unpacks and compares with the input (native_each bytes). */
static void check_type(MPI_Datatype type, const char *name, const void *in, int count,
                       const unsigned char *expect, int ext_each, int native_each)
{
    MPI_Aint size = -1;
    CHECK_SUCCESS(MPI_Pack_external_size("external32", count, type, &size));
    CHECK(size == (MPI_Aint)count * ext_each, "%s: Pack_external_size %ld, expected %d", name,
          (long)size, count * ext_each);
    MPI_Count csize = -1;
    CHECK_SUCCESS(MPI_Pack_external_size_c("external32", count, type, &csize));
    CHECK(csize == (MPI_Count)count * ext_each, "%s: Pack_external_size_c %lld", name,
          (long long)csize);
    unsigned char buf[256];
    memset(buf, 0xee, sizeof buf);
    MPI_Aint pos = 0;
    CHECK_SUCCESS(MPI_Pack_external("external32", in, count, type, buf, sizeof buf, &pos));
    CHECK(pos == (MPI_Aint)count * ext_each, "%s: position %ld after packing", name, (long)pos);
    for (int i = 0; i < count * ext_each; ++i)
        CHECK(buf[i] == expect[i], "%s: byte %d is 0x%02x, expected 0x%02x", name, i, buf[i],
              expect[i]);
    unsigned char back[256];
    memset(back, 0, sizeof back);
    pos = 0;
    CHECK_SUCCESS(MPI_Unpack_external("external32", buf, sizeof buf, &pos, back, count, type));
    CHECK(pos == (MPI_Aint)count * ext_each, "%s: position %ld after unpacking", name, (long)pos);
    CHECK(memcmp(back, in, (size_t)(count * native_each)) == 0, "%s: unpacked values differ", name);
    /* the _c forms give the same bytes */
    unsigned char buf_c[256];
    MPI_Count cpos = 0;
    CHECK_SUCCESS(MPI_Pack_external_c("external32", in, count, type, buf_c, sizeof buf_c, &cpos));
    CHECK(cpos == (MPI_Count)count * ext_each && memcmp(buf_c, buf, (size_t)cpos) == 0,
          "%s: MPI_Pack_external_c differs", name);
    memset(back, 0, sizeof back);
    cpos = 0;
    CHECK_SUCCESS(
        MPI_Unpack_external_c("external32", buf_c, sizeof buf_c, &cpos, back, count, type));
    CHECK(memcmp(back, in, (size_t)(count * native_each)) == 0, "%s: _c unpacked values differ",
          name);
}

#define INTS(T, MPIT, N)                                       \
    do {                                                       \
        T v[3] = {(T)1, (T)-2, (T)0x5a};                       \
        unsigned char e[3 * (N)];                              \
        for (int i = 0; i < 3; ++i)                            \
            be((uint64_t)(int64_t)v[i], (N), e + i * (N));     \
        check_type(MPIT, #MPIT, v, 3, e, (N), (int)sizeof(T)); \
    } while (0)

static void check_predefined(void)
{
    INTS(char, MPI_CHAR, 1);
    INTS(signed char, MPI_SIGNED_CHAR, 1);
    INTS(unsigned char, MPI_UNSIGNED_CHAR, 1);
    INTS(unsigned char, MPI_BYTE, 1);
    INTS(unsigned char, MPI_PACKED, 1);
    INTS(short, MPI_SHORT, 2);
    INTS(unsigned short, MPI_UNSIGNED_SHORT, 2);
    INTS(int, MPI_INT, 4);
    INTS(unsigned, MPI_UNSIGNED, 4);
    INTS(long, MPI_LONG, 4);
    INTS(long long, MPI_LONG_LONG, 8);
    INTS(long long, MPI_LONG_LONG_INT, 8);
    INTS(unsigned long long, MPI_UNSIGNED_LONG_LONG, 8);
    INTS(int8_t, MPI_INT8_T, 1);
    INTS(int16_t, MPI_INT16_T, 2);
    INTS(int32_t, MPI_INT32_T, 4);
    INTS(int64_t, MPI_INT64_T, 8);
    INTS(uint8_t, MPI_UINT8_T, 1);
    INTS(uint16_t, MPI_UINT16_T, 2);
    INTS(uint32_t, MPI_UINT32_T, 4);
    INTS(uint64_t, MPI_UINT64_T, 8);
    INTS(MPI_Aint, MPI_AINT, 8);
    INTS(MPI_Count, MPI_COUNT, 8);
    INTS(MPI_Offset, MPI_OFFSET, 8);
    INTS(char, MPI_CHARACTER, 1);
    INTS(int32_t, MPI_INTEGER, 4);
    INTS(int32_t, MPI_LOGICAL, 4);
    INTS(int8_t, MPI_INTEGER1, 1);
    INTS(int16_t, MPI_INTEGER2, 2);
    INTS(int32_t, MPI_INTEGER4, 4);
    INTS(int64_t, MPI_INTEGER8, 8);
    { /* unsigned long: 4 bytes, zero-extended back */
        unsigned long v[3] = {1, 4000000000UL, 0x5a};
        unsigned char e[12];
        for (int i = 0; i < 3; ++i)
            be(v[i], 4, e + 4 * i);
        check_type(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", v, 3, e, 4, sizeof(long));
    }
    { /* wchar_t: 2 bytes */
        wchar_t v[3] = {L'A', 0x263a, 0x7fff};
        unsigned char e[6];
        for (int i = 0; i < 3; ++i)
            be((uint64_t)v[i], 2, e + 2 * i);
        check_type(MPI_WCHAR, "MPI_WCHAR", v, 3, e, 2, sizeof(wchar_t));
    }
    { /* bool: 1 byte */
        _Bool v[3] = {1, 0, 1};
        unsigned char e[3] = {1, 0, 1};
        check_type(MPI_C_BOOL, "MPI_C_BOOL", v, 3, e, 1, sizeof(_Bool));
        check_type(MPI_CXX_BOOL, "MPI_CXX_BOOL", v, 3, e, 1, sizeof(_Bool));
    }
    { /* floats: IEEE bits, big-endian */
        float v[3] = {1.5f, -0.25f, 3.0e38f};
        unsigned char e[12];
        for (int i = 0; i < 3; ++i)
            be(float_bits(v[i]), 4, e + 4 * i);
        check_type(MPI_FLOAT, "MPI_FLOAT", v, 3, e, 4, 4);
        check_type(MPI_REAL, "MPI_REAL", v, 3, e, 4, 4);
        check_type(MPI_REAL4, "MPI_REAL4", v, 3, e, 4, 4);
        /* complex float: two floats, each big-endian */
        check_type(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", v, 1, e, 8, 8);
        check_type(MPI_C_COMPLEX, "MPI_C_COMPLEX", v, 1, e, 8, 8);
        check_type(MPI_COMPLEX, "MPI_COMPLEX", v, 1, e, 8, 8);
        check_type(MPI_COMPLEX8, "MPI_COMPLEX8", v, 1, e, 8, 8);
        check_type(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", v, 1, e, 8, 8);
    }
    {
        double v[4] = {1.5, -1e-300, 6.02e23, 0.0};
        unsigned char e[32];
        for (int i = 0; i < 4; ++i)
            be(double_bits(v[i]), 8, e + 8 * i);
        check_type(MPI_DOUBLE, "MPI_DOUBLE", v, 4, e, 8, 8);
        check_type(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", v, 4, e, 8, 8);
        check_type(MPI_REAL8, "MPI_REAL8", v, 4, e, 8, 8);
        check_type(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", v, 2, e, 16, 16);
        check_type(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", v, 2, e, 16, 16);
        check_type(MPI_COMPLEX16, "MPI_COMPLEX16", v, 2, e, 16, 16);
        check_type(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", v, 2, e, 16, 16);
    }
    { /* long double: IEEE binary128, big-endian (1.5 = 3fff 8000..., -2 = c000 0000...) */
        long double v[2] = {1.5L, -2.0L};
        unsigned char e[32] = {0x3f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                               0xc0, 0x00, 0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        /* compare values, not the native padding bytes */
        long double back[2] = {0, 0};
        unsigned char buf[32];
        MPI_Aint pos = 0, size = 0;
        MPI_Pack_external_size("external32", 2, MPI_LONG_DOUBLE, &size);
        CHECK_INT((long)size, 32);
        CHECK_SUCCESS(MPI_Pack_external("external32", v, 2, MPI_LONG_DOUBLE, buf, 32, &pos));
        CHECK(memcmp(buf, e, 32) == 0,
              "MPI_LONG_DOUBLE: external32 bytes differ (first 0x%02x%02x)", buf[0], buf[1]);
        pos = 0;
        CHECK_SUCCESS(MPI_Unpack_external("external32", buf, 32, &pos, back, 2, MPI_LONG_DOUBLE));
        CHECK(back[0] == 1.5L && back[1] == -2.0L, "MPI_LONG_DOUBLE: unpacked %Lg %Lg", back[0],
              back[1]);
        long double _Complex z = 1.5L - 2.0L * 1.0iL, zb = 0;
        pos = 0;
        MPI_Pack_external_size("external32", 1, MPI_C_LONG_DOUBLE_COMPLEX, &size);
        CHECK_INT((long)size, 32);
        CHECK_SUCCESS(
            MPI_Pack_external("external32", &z, 1, MPI_C_LONG_DOUBLE_COMPLEX, buf, 32, &pos));
        CHECK(memcmp(buf, e, 32) == 0, "MPI_C_LONG_DOUBLE_COMPLEX: external32 bytes differ");
        pos = 0;
        CHECK_SUCCESS(
            MPI_Unpack_external("external32", buf, 32, &pos, &zb, 1, MPI_C_LONG_DOUBLE_COMPLEX));
        CHECK(zb == z, "MPI_C_LONG_DOUBLE_COMPLEX: unpacked value differs");
    }
    { /* pairs: value then index, no padding */
        struct {
            double v;
            int i;
        } di[2] = {{2.5, 7}, {-1.0, -3}};
        unsigned char e[24];
        for (int k = 0; k < 2; ++k) {
            be(double_bits(di[k].v), 8, e + 12 * k);
            be((uint64_t)(int64_t)di[k].i, 4, e + 12 * k + 8);
        }
        MPI_Aint pos = 0, size = 0;
        unsigned char buf[24];
        MPI_Pack_external_size("external32", 2, MPI_DOUBLE_INT, &size);
        CHECK_INT((long)size, 24);
        CHECK_SUCCESS(MPI_Pack_external("external32", di, 2, MPI_DOUBLE_INT, buf, 24, &pos));
        CHECK(memcmp(buf, e, 24) == 0, "MPI_DOUBLE_INT: external32 bytes differ");
        struct {
            double v;
            int i;
        } back[2];
        memset(back, 0, sizeof back);
        pos = 0;
        CHECK_SUCCESS(MPI_Unpack_external("external32", buf, 24, &pos, back, 2, MPI_DOUBLE_INT));
        CHECK(back[0].v == 2.5 && back[0].i == 7 && back[1].v == -1.0 && back[1].i == -3,
              "MPI_DOUBLE_INT: unpacked (%g,%d) (%g,%d)", back[0].v, back[0].i, back[1].v,
              back[1].i);
        struct {
            short v;
            int i;
        } si = {-9, 11};
        unsigned char es[6];
        be((uint64_t)(int64_t)si.v, 2, es);
        be(11, 4, es + 2);
        pos = 0;
        CHECK_SUCCESS(MPI_Pack_external("external32", &si, 1, MPI_SHORT_INT, buf, 24, &pos));
        CHECK(pos == 6 && memcmp(buf, es, 6) == 0, "MPI_SHORT_INT: %ld bytes, differ", (long)pos);
        struct {
            long v;
            int i;
        } li = {-5, 2};
        unsigned char el[8] = {0xff, 0xff, 0xff, 0xfb, 0, 0, 0, 2};
        pos = 0;
        CHECK_SUCCESS(MPI_Pack_external("external32", &li, 1, MPI_LONG_INT, buf, 24, &pos));
        CHECK(pos == 8 && memcmp(buf, el, 8) == 0, "MPI_LONG_INT: %ld bytes, differ", (long)pos);
        const struct {
            MPI_Datatype t;
            int size;
        } sizes[] = {{MPI_FLOAT_INT, 8}, {MPI_LONG_DOUBLE_INT, 20},
                     {MPI_2INT, 8},      {MPI_2INTEGER, 8},
                     {MPI_2REAL, 8},     {MPI_2DOUBLE_PRECISION, 16},
                     {MPI_REAL16, 16},   {MPI_COMPLEX32, 32},
                     {MPI_LB, 0},        {MPI_UB, 0}};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
            MPI_Pack_external_size("external32", 1, sizes[k].t, &size);
            CHECK(size == sizes[k].size, "pair/other type %zu: size %ld, expected %d", k,
                  (long)size, sizes[k].size);
        }
    }
}

/* A struct with padding, a vector of shorts inside: one instance packs to
 * 4 (int) + 8 (double) + 1 (char) + 3 * 2 (shorts) = 19 bytes. */
typedef struct {
    int i;
    double d;
    char c;
    short s[6];
} Rec;

static MPI_Datatype rec_type(void)
{
    MPI_Datatype every_other, t, resized;
    MPI_Type_vector(3, 1, 2, MPI_SHORT, &every_other);
    int bl[4] = {1, 1, 1, 1};
    MPI_Aint disp[4] = {offsetof(Rec, i), offsetof(Rec, d), offsetof(Rec, c), offsetof(Rec, s)};
    MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, every_other};
    MPI_Type_create_struct(4, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(Rec), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_free(&t);
    MPI_Type_free(&every_other);
    return resized;
}

static void rec_bytes(const Rec *r, unsigned char *out)
{
    be((uint64_t)(int64_t)r->i, 4, out);
    be(double_bits(r->d), 8, out + 4);
    out[12] = (unsigned char)r->c;
    for (int k = 0; k < 3; ++k)
        be((uint64_t)(int64_t)r->s[2 * k], 2, out + 13 + 2 * k);
}

static void fill_rec(Rec *r, int seed)
{
    r->i = -seed * 1000 - 1;
    r->d = seed + 0.125;
    r->c = (char)('a' + seed % 26);
    for (int k = 0; k < 6; ++k)
        r->s[k] = (short)(k % 2 ? -1 : seed * 10 + k);
}

static void check_derived(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t = rec_type();
    enum { N = 5 };
    Rec recs[N];
    for (int k = 0; k < N; ++k)
        fill_rec(&recs[k], rank * N + k);
    MPI_Aint bytes = 0;
    CHECK_SUCCESS(MPI_Pack_external_size("external32", N, t, &bytes));
    CHECK_INT((long)bytes, 19 * N);
    unsigned char buf[19 * N], expect[19 * N];
    MPI_Aint pos = 0;
    CHECK_SUCCESS(MPI_Pack_external("external32", recs, N, t, buf, sizeof buf, &pos));
    CHECK_INT((long)pos, 19 * N);
    for (int k = 0; k < N; ++k)
        rec_bytes(&recs[k], expect + 19 * k);
    CHECK(memcmp(buf, expect, sizeof buf) == 0, "struct: external32 bytes differ");

    /* To the next rank as bytes; it checks the bytes, then unpacks them. */
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    unsigned char in[19 * N];
    MPI_Sendrecv(buf, (int)pos, MPI_BYTE, next, 3, in, sizeof in, MPI_BYTE, prev, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    Rec theirs[N];
    for (int k = 0; k < N; ++k)
        fill_rec(&theirs[k], prev * N + k);
    for (int k = 0; k < N; ++k)
        rec_bytes(&theirs[k], expect + 19 * k);
    for (int b = 0; b < 19 * N; ++b)
        CHECK(in[b] == expect[b], "from rank %d: byte %d is 0x%02x, expected 0x%02x", prev, b,
              in[b], expect[b]);
    Rec got[N];
    memset(got, 0x55, sizeof got);
    pos = 0;
    CHECK_SUCCESS(MPI_Unpack_external("external32", in, sizeof in, &pos, got, N, t));
    for (int k = 0; k < N; ++k) {
        CHECK(got[k].i == theirs[k].i && got[k].d == theirs[k].d && got[k].c == theirs[k].c,
              "record %d from rank %d: (%d, %g, %c)", k, prev, got[k].i, got[k].d, got[k].c);
        for (int s = 0; s < 6; s += 2)
            CHECK_INT(got[k].s[s], theirs[k].s[s]);
        for (int s = 1; s < 6; s += 2) /* the gaps of the vector are left alone */
            CHECK_INT(got[k].s[s], 0x5555);
    }
    /* Packing continues at *position: two calls equal one. */
    pos = 0;
    CHECK_SUCCESS(MPI_Pack_external("external32", recs, 2, t, buf, sizeof buf, &pos));
    CHECK_SUCCESS(MPI_Pack_external("external32", recs + 2, N - 2, t, buf, sizeof buf, &pos));
    for (int k = 0; k < N; ++k)
        rec_bytes(&recs[k], expect + 19 * k);
    CHECK(pos == 19 * N && memcmp(buf, expect, sizeof buf) == 0, "packing in two calls differs");
    MPI_Type_free(&t);

    /* A subarray (2x2 at (1,1) of a 4x4 array of int) packs its 4 elements. */
    int grid[16], sizes[2] = {4, 4}, subs[2] = {2, 2}, starts[2] = {1, 1};
    for (int k = 0; k < 16; ++k)
        grid[k] = (rank + 1) * 100 + k;
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    unsigned char sbuf[16], sexp[16];
    const int picked[4] = {5, 6, 9, 10};
    for (int k = 0; k < 4; ++k)
        be((uint64_t)(int64_t)grid[picked[k]], 4, sexp + 4 * k);
    pos = 0;
    CHECK_SUCCESS(MPI_Pack_external("external32", grid, 1, sub, sbuf, sizeof sbuf, &pos));
    CHECK(pos == 16 && memcmp(sbuf, sexp, 16) == 0, "subarray: %ld bytes, differ", (long)pos);
    MPI_Type_free(&sub);

    /* A large vector (more than one conversion chunk) round-trips. */
    const int M = 300000;
    int *big = malloc(sizeof(int) * 2 * M), *back = calloc(2 * (size_t)M, sizeof(int));
    unsigned char *ext = malloc(4 * (size_t)M);
    for (int k = 0; k < 2 * M; ++k)
        big[k] = k * 7 - rank;
    MPI_Datatype strided;
    MPI_Type_vector(M, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    pos = 0;
    CHECK_SUCCESS(MPI_Pack_external("external32", big, 1, strided, ext, 4 * (MPI_Aint)M, &pos));
    int bad = 0;
    for (int k = 0; k < M && bad < 5; ++k) {
        unsigned char e[4];
        be((uint64_t)(int64_t)big[2 * k], 4, e);
        if (memcmp(ext + 4 * k, e, 4) != 0) {
            ++bad;
            CHECK(0, "strided element %d differs", k);
        }
    }
    pos = 0;
    CHECK_SUCCESS(MPI_Unpack_external("external32", ext, 4 * (MPI_Aint)M, &pos, back, 1, strided));
    for (int k = 0; k < 2 * M && bad < 10; ++k)
        if (back[k] != (k % 2 ? 0 : big[k])) {
            ++bad;
            CHECK(0, "unpacked strided %d is %d", k, back[k]);
        }
    MPI_Type_free(&strided);
    free(big);
    free(back);
    free(ext);
}

static void check_errors(void)
{
    int v[4] = {1, 2, 3, 4};
    unsigned char buf[64];
    MPI_Aint pos = 0, size = 0;
    int rc = MPI_Pack_external("native", v, 4, MPI_INT, buf, sizeof buf, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_ERR_STRING(rc, "native");
    rc = MPI_Pack_external_size("internal", 1, MPI_INT, &size);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_DATAREP);
    rc = MPI_Unpack_external("External32", buf, sizeof buf, &pos, v, 1, MPI_INT);
    CHECK_ERR_CLASS(rc, MPI_ERR_UNSUPPORTED_DATAREP);
    pos = 0;
    rc = MPI_Pack_external("external32", v, 4, MPI_INT, buf, 15, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
    CHECK_INT((long)pos, 0);
    pos = 8;
    rc = MPI_Unpack_external("external32", buf, 12, &pos, v, 2, MPI_INT);
    CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
    pos = 0;
    rc = MPI_Pack_external("external32", v, -1, MPI_INT, buf, sizeof buf, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    rc = MPI_Pack_external_size("external32", -2, MPI_INT, &size);
    CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    pos = -1;
    rc = MPI_Pack_external("external32", v, 1, MPI_INT, buf, sizeof buf, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    pos = 0;
    rc = MPI_Pack_external("external32", v, 1, uncommitted, buf, sizeof buf, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    MPI_Type_free(&uncommitted);
    rc = MPI_Pack_external("external32", v, 1, MPI_DATATYPE_NULL, buf, sizeof buf, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    /* a long beyond 32 bits has no external32 form */
    long wide[2] = {5, 1L << 40};
    pos = 0;
    rc = MPI_Pack_external("external32", wide, 2, MPI_LONG, buf, sizeof buf, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_CONVERSION);
    CHECK_ERR_STRING(rc, "1099511627776");
    unsigned long uwide = 1UL << 33;
    pos = 0;
    rc = MPI_Pack_external("external32", &uwide, 1, MPI_UNSIGNED_LONG, buf, sizeof buf, &pos);
    CHECK_ERR_CLASS(rc, MPI_ERR_CONVERSION);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    check_predefined();
    check_derived();
    check_errors();
    return mtest_finish();
}
