/* Blocking send/recv of every common predefined datatype in both directions
 * between ranks 0 and 1, with rank-dependent values; checks every element,
 * MPI_Get_count and MPI_Get_elements. */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#include "mtest.h"

#define N 37

static int rank, peer;

/* value of element i sent by rank r, as a small integer that fits every type */
static long long val(int r, int i, int salt)
{
    return (long long)((r * 53 + i * 7 + salt * 13) % 120) + 1;
}

static void check_status(MPI_Status *st, MPI_Datatype type, const char *name, int count,
                         int elements)
{
    int c = -1, e = -1;
    CHECK(st->MPI_SOURCE == peer && st->MPI_TAG == 17, "%s: source %d tag %d", name, st->MPI_SOURCE,
          st->MPI_TAG);
    MPI_Get_count(st, type, &c);
    MPI_Get_elements(st, type, &e);
    CHECK(c == count, "%s: MPI_Get_count %d, expected %d", name, c, count);
    CHECK(e == elements, "%s: MPI_Get_elements %d, expected %d", name, e, elements);
}

/* exchange: rank 0 sends first, rank 1 receives first */
static void exchange(void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Status *st)
{
    if (rank == 0) {
        CHECK_SUCCESS(MPI_Send(sbuf, count, type, peer, 17, MPI_COMM_WORLD));
        CHECK_SUCCESS(MPI_Recv(rbuf, count, type, peer, 17, MPI_COMM_WORLD, st));
    } else {
        CHECK_SUCCESS(MPI_Recv(rbuf, count, type, peer, 17, MPI_COMM_WORLD, st));
        CHECK_SUCCESS(MPI_Send(sbuf, count, type, peer, 17, MPI_COMM_WORLD));
    }
}

#define TEST_SCALAR(T, MPIT, SALT)                                                               \
    do {                                                                                         \
        T s[N], r[N];                                                                            \
        MPI_Status st;                                                                           \
        int tsize = -1;                                                                          \
        MPI_Type_size(MPIT, &tsize);                                                             \
        CHECK(tsize == (int)sizeof(T), #MPIT ": MPI_Type_size %d, sizeof %d", tsize,             \
              (int)sizeof(T));                                                                   \
        for (int i = 0; i < N; i++) {                                                            \
            s[i] = (T)val(rank, i, SALT);                                                        \
            r[i] = (T)0;                                                                         \
        }                                                                                        \
        exchange(s, r, N, MPIT, &st);                                                            \
        for (int i = 0; i < N; i++)                                                              \
            CHECK(r[i] == (T)val(peer, i, SALT), #MPIT ": element %d is %lld, expected %lld", i, \
                  (long long)r[i], val(peer, i, SALT));                                          \
        check_status(&st, MPIT, #MPIT, N, N);                                                    \
    } while (0)

#define TEST_PAIR(TA, TB, MPIT, SALT)                                                              \
    do {                                                                                           \
        struct {                                                                                   \
            TA a;                                                                                  \
            TB b;                                                                                  \
        } s[N], r[N];                                                                              \
        MPI_Status st;                                                                             \
        for (int i = 0; i < N; i++) {                                                              \
            memset(&s[i], 0, sizeof s[i]);                                                         \
            s[i].a = (TA)val(rank, i, SALT);                                                       \
            s[i].b = (TB)(val(rank, i, SALT + 1) - 60);                                            \
            r[i].a = (TA)0;                                                                        \
            r[i].b = (TB)0;                                                                        \
        }                                                                                          \
        exchange(s, r, N, MPIT, &st);                                                              \
        for (int i = 0; i < N; i++)                                                                \
            CHECK(r[i].a == (TA)val(peer, i, SALT) && r[i].b == (TB)(val(peer, i, SALT + 1) - 60), \
                  #MPIT ": element %d is (%lld,%lld), expected (%lld,%lld)", i, (long long)r[i].a, \
                  (long long)r[i].b, val(peer, i, SALT), val(peer, i, SALT + 1) - 60);             \
        MPI_Aint lb, ext;                                                                          \
        MPI_Type_get_extent(MPIT, &lb, &ext);                                                      \
        CHECK(ext == (MPI_Aint)sizeof(s[0]), #MPIT ": extent %ld, C struct %d", (long)ext,         \
              (int)sizeof(s[0]));                                                                  \
        check_status(&st, MPIT, #MPIT, N, 2 * N);                                                  \
    } while (0)

#define TEST_COMPLEX(T, MPIT, SALT)                                                             \
    do {                                                                                        \
        T s[N], r[N];                                                                           \
        MPI_Status st;                                                                          \
        for (int i = 0; i < N; i++) {                                                           \
            s[i] = (T)val(rank, i, SALT) + (T)val(rank, i, SALT + 5) * I;                       \
            r[i] = 0;                                                                           \
        }                                                                                       \
        exchange(s, r, N, MPIT, &st);                                                           \
        for (int i = 0; i < N; i++)                                                             \
            CHECK(creal(r[i]) == (double)val(peer, i, SALT) &&                                  \
                      cimag(r[i]) == (double)val(peer, i, SALT + 5),                            \
                  #MPIT ": element %d is %g%+gi", i, (double)creal(r[i]), (double)cimag(r[i])); \
        check_status(&st, MPIT, #MPIT, N, N);                                                   \
    } while (0)

int main(int argc, char **argv)
{
    int size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        CHECK(size >= 2, "needs 2 ranks, have %d", size);
        return mtest_finish();
    }
    if (rank < 2) {
        peer = 1 - rank;
        TEST_SCALAR(char, MPI_CHAR, 1);
        TEST_SCALAR(signed char, MPI_SIGNED_CHAR, 2);
        TEST_SCALAR(unsigned char, MPI_UNSIGNED_CHAR, 3);
        TEST_SCALAR(unsigned char, MPI_BYTE, 4);
        TEST_SCALAR(short, MPI_SHORT, 5);
        TEST_SCALAR(unsigned short, MPI_UNSIGNED_SHORT, 6);
        TEST_SCALAR(int, MPI_INT, 7);
        TEST_SCALAR(unsigned, MPI_UNSIGNED, 8);
        TEST_SCALAR(long, MPI_LONG, 9);
        TEST_SCALAR(unsigned long, MPI_UNSIGNED_LONG, 10);
        TEST_SCALAR(long long, MPI_LONG_LONG, 11);
        TEST_SCALAR(long long, MPI_LONG_LONG_INT, 12);
        TEST_SCALAR(unsigned long long, MPI_UNSIGNED_LONG_LONG, 13);
        TEST_SCALAR(float, MPI_FLOAT, 14);
        TEST_SCALAR(double, MPI_DOUBLE, 15);
        TEST_SCALAR(long double, MPI_LONG_DOUBLE, 16);
        TEST_SCALAR(wchar_t, MPI_WCHAR, 17);
        TEST_SCALAR(int8_t, MPI_INT8_T, 18);
        TEST_SCALAR(int16_t, MPI_INT16_T, 19);
        TEST_SCALAR(int32_t, MPI_INT32_T, 20);
        TEST_SCALAR(int64_t, MPI_INT64_T, 21);
        TEST_SCALAR(uint8_t, MPI_UINT8_T, 22);
        TEST_SCALAR(uint16_t, MPI_UINT16_T, 23);
        TEST_SCALAR(uint32_t, MPI_UINT32_T, 24);
        TEST_SCALAR(uint64_t, MPI_UINT64_T, 25);
        TEST_SCALAR(MPI_Aint, MPI_AINT, 26);
        TEST_SCALAR(MPI_Offset, MPI_OFFSET, 27);
        TEST_SCALAR(MPI_Count, MPI_COUNT, 28);
        TEST_COMPLEX(float _Complex, MPI_C_FLOAT_COMPLEX, 29);
        TEST_COMPLEX(double _Complex, MPI_C_DOUBLE_COMPLEX, 30);
        TEST_COMPLEX(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, 31);
        TEST_PAIR(float, int, MPI_FLOAT_INT, 32);
        TEST_PAIR(double, int, MPI_DOUBLE_INT, 33);
        TEST_PAIR(long, int, MPI_LONG_INT, 34);
        TEST_PAIR(int, int, MPI_2INT, 35);
        TEST_PAIR(short, int, MPI_SHORT_INT, 36);
        TEST_PAIR(long double, int, MPI_LONG_DOUBLE_INT, 37);

        /* MPI_C_BOOL: alternating true/false */
        {
            bool s[N], r[N];
            MPI_Status st;
            for (int i = 0; i < N; i++) {
                s[i] = ((i + rank) % 3) == 0;
                r[i] = !s[i];
            }
            exchange(s, r, N, MPI_C_BOOL, &st);
            for (int i = 0; i < N; i++)
                CHECK(r[i] == (((i + peer) % 3) == 0), "MPI_C_BOOL: element %d is %d", i,
                      (int)r[i]);
            check_status(&st, MPI_C_BOOL, "MPI_C_BOOL", N, N);
        }
        /* MPI_PACKED: data packed with MPI_Pack, received as MPI_PACKED */
        {
            char packed[512], rpacked[512];
            int pos = 0, ivals[5], outi[5];
            double dvals[3], outd[3];
            for (int i = 0; i < 5; i++)
                ivals[i] = rank * 100 + i;
            for (int i = 0; i < 3; i++)
                dvals[i] = rank + i * 0.25;
            CHECK_SUCCESS(MPI_Pack(ivals, 5, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD));
            CHECK_SUCCESS(
                MPI_Pack(dvals, 3, MPI_DOUBLE, packed, sizeof packed, &pos, MPI_COMM_WORLD));
            MPI_Status st;
            int packed_len = pos;
            if (rank == 0) {
                MPI_Send(packed, packed_len, MPI_PACKED, peer, 17, MPI_COMM_WORLD);
                MPI_Recv(rpacked, sizeof rpacked, MPI_PACKED, peer, 17, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(rpacked, sizeof rpacked, MPI_PACKED, peer, 17, MPI_COMM_WORLD, &st);
                MPI_Send(packed, packed_len, MPI_PACKED, peer, 17, MPI_COMM_WORLD);
            }
            int c = -1;
            MPI_Get_count(&st, MPI_PACKED, &c);
            CHECK_INT(c, packed_len);
            pos = 0;
            CHECK_SUCCESS(MPI_Unpack(rpacked, c, &pos, outi, 5, MPI_INT, MPI_COMM_WORLD));
            CHECK_SUCCESS(MPI_Unpack(rpacked, c, &pos, outd, 3, MPI_DOUBLE, MPI_COMM_WORLD));
            for (int i = 0; i < 5; i++)
                CHECK_INT(outi[i], peer * 100 + i);
            for (int i = 0; i < 3; i++)
                CHECK(outd[i] == peer + i * 0.25, "MPI_PACKED double %d is %g", i, outd[i]);
        }
        /* Full-range values survive: extremes of the integer types */
        {
            long long s[4] = {LLONG_MIN, LLONG_MAX, -1, 0x0123456789abcdefLL}, r[4] = {0, 0, 0, 0};
            MPI_Status st;
            exchange(s, r, 4, MPI_LONG_LONG, &st);
            for (int i = 0; i < 4; i++)
                CHECK(r[i] == s[i], "extreme %d: %lld, expected %lld", i, r[i], s[i]);
            double ds[4] = {1e308, -1e-308, 0.1, -0.0}, dr[4] = {0, 0, 0, 0};
            exchange(ds, dr, 4, MPI_DOUBLE, &st);
            CHECK(memcmp(ds, dr, sizeof ds) == 0, "doubles differ bitwise: %g %g %g %g", dr[0],
                  dr[1], dr[2], dr[3]);
        }
    }
    return mtest_finish();
}
