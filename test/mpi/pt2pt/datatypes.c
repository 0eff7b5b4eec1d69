/* Derived datatypes in point-to-point: vector, indexed, struct (resized),
 * hvector, sent and received noncontiguous on both sides, a
 * vector received as contiguous ints and the reverse, a partial message
 * (MPI_Get_count MPI_UNDEFINED, MPI_Get_elements exact), gaps untouched. */
#include <stddef.h>
#include "mtest.h"

static int rank, peer;

struct rec {
    int a;
    double b[2];
    char c[3];
};

/* position of the k-th int of a vector(count=VC, blocklen=VB, stride=VS) sequence */
#define VC 5
#define VB 3
#define VS 7
static long vec_pos(long k)
{
    long per = VC * VB;
    long item = k / per, in = k % per;
    long ext = (VC - 1) * VS + VB;
    return item * ext + (in / VB) * VS + in % VB;
}

static void send_or_recv(int sender, void *buf, int count, MPI_Datatype type, int tag,
                         MPI_Status *st)
{
    if (rank == sender)
        CHECK_SUCCESS(MPI_Send(buf, count, type, peer, tag, MPI_COMM_WORLD));
    else
        CHECK_SUCCESS(MPI_Recv(buf, count, type, peer, tag, MPI_COMM_WORLD, st));
}

static void counts(MPI_Status *st, MPI_Datatype type, int count, int elements, const char *what)
{
    int c = -2, e = -2;
    CHECK_SUCCESS(MPI_Get_count(st, type, &c));
    CHECK_SUCCESS(MPI_Get_elements(st, type, &e));
    CHECK(c == count, "%s: MPI_Get_count %d, expected %d", what, c, count);
    CHECK(e == elements, "%s: MPI_Get_elements %d, expected %d", what, e, elements);
    MPI_Count ex = -2;
    CHECK_SUCCESS(MPI_Get_elements_x(st, type, &ex));
    CHECK(ex == elements, "%s: MPI_Get_elements_x %lld, expected %d", what, (long long)ex,
          elements);
}

int main(int argc, char **argv)
{
    int size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || rank >= 2)
        return mtest_finish();
    peer = 1 - rank;
    MPI_Status st;

    MPI_Datatype vec;
    CHECK_SUCCESS(MPI_Type_vector(VC, VB, VS, MPI_INT, &vec));
    CHECK_SUCCESS(MPI_Type_commit(&vec));
    const int nvec = 4, nints = nvec * VC * VB;
    const long vext = (VC - 1) * VS + VB;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(vec, &lb, &ext);
    CHECK(lb == 0 && ext == vext * (long)sizeof(int), "vector extent %ld", (long)ext);
    int tsize;
    MPI_Type_size(vec, &tsize);
    CHECK_INT(tsize, VC * VB * (int)sizeof(int));

    for (int dir = 0; dir < 2; dir++) {
        int sender = dir; /* both directions */
        int src = sender;
        /* 1. vector -> vector */
        {
            long span = vext * nvec;
            int *b = malloc(span * sizeof(int));
            if (rank == sender) {
                for (long i = 0; i < span; i++)
                    b[i] = -5;
                for (long k = 0; k < nints; k++)
                    b[vec_pos(k)] = mtest_pattern(src, 1, k);
            } else {
                for (long i = 0; i < span; i++)
                    b[i] = -9;
            }
            send_or_recv(sender, b, nvec, vec, 1, &st);
            if (rank != sender) {
                counts(&st, vec, nvec, nints, "vector->vector");
                long k = 0;
                for (long i = 0; i < span; i++) {
                    if (k < nints && vec_pos(k) == i) {
                        CHECK(b[i] == mtest_pattern(src, 1, k),
                              "vector->vector: int %ld (pos %ld) is %d", k, i, b[i]);
                        k++;
                    } else {
                        CHECK(b[i] == -9, "vector->vector: gap at %ld overwritten with %d", i,
                              b[i]);
                    }
                }
            }
            free(b);
        }
        /* 2. vector -> contiguous MPI_INT, and 3. contiguous -> vector */
        {
            long span = vext * nvec;
            int *v = malloc(span * sizeof(int)), *c = malloc((nints + 1) * sizeof(int));
            for (long i = 0; i < span; i++)
                v[i] = -9;
            if (rank == sender) {
                for (long k = 0; k < nints; k++)
                    v[vec_pos(k)] = mtest_pattern(src, 2, k);
                CHECK_SUCCESS(MPI_Send(v, nvec, vec, peer, 2, MPI_COMM_WORLD));
                for (long k = 0; k < nints; k++)
                    c[k] = mtest_pattern(src, 3, k);
                CHECK_SUCCESS(MPI_Send(c, nints, MPI_INT, peer, 3, MPI_COMM_WORLD));
            } else {
                for (long k = 0; k <= nints; k++)
                    c[k] = -9;
                CHECK_SUCCESS(MPI_Recv(c, nints + 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &st));
                counts(&st, MPI_INT, nints, nints, "vector->int");
                for (long k = 0; k < nints; k++)
                    CHECK(c[k] == mtest_pattern(src, 2, k), "vector->int: element %ld is %d", k,
                          c[k]);
                CHECK(c[nints] == -9, "vector->int: wrote past the message");
                CHECK_SUCCESS(MPI_Recv(v, nvec, vec, peer, 3, MPI_COMM_WORLD, &st));
                counts(&st, vec, nvec, nints, "int->vector");
                long k = 0;
                for (long i = 0; i < span; i++) {
                    if (k < nints && vec_pos(k) == i) {
                        CHECK(v[i] == mtest_pattern(src, 3, k), "int->vector: int %ld is %d", k,
                              v[i]);
                        k++;
                    } else {
                        CHECK(v[i] == -9, "int->vector: gap at %ld overwritten with %d", i, v[i]);
                    }
                }
            }
            free(v);
            free(c);
        }
        /* 4. partial: 23 ints into 2 vectors (30 ints of room) */
        {
            long span = vext * 2;
            int *v = malloc(span * sizeof(int)), c[23];
            if (rank == sender) {
                for (int k = 0; k < 23; k++)
                    c[k] = mtest_pattern(src, 4, k);
                CHECK_SUCCESS(MPI_Send(c, 23, MPI_INT, peer, 4, MPI_COMM_WORLD));
            } else {
                for (long i = 0; i < span; i++)
                    v[i] = -9;
                CHECK_SUCCESS(MPI_Recv(v, 2, vec, peer, 4, MPI_COMM_WORLD, &st));
                counts(&st, vec, MPI_UNDEFINED, 23, "partial vector");
                long k = 0;
                for (long i = 0; i < span; i++) {
                    if (k < 23 && vec_pos(k) == i) {
                        CHECK(v[i] == mtest_pattern(src, 4, k), "partial: int %ld is %d", k, v[i]);
                        k++;
                    } else {
                        CHECK(v[i] == -9, "partial: position %ld overwritten with %d", i, v[i]);
                    }
                }
            }
            free(v);
        }
        /* 5. indexed doubles, different layouts on each side */
        {
            int bl_s[3] = {1, 3, 2}, dp_s[3] = {0, 4, 10};
            int bl_r[2] = {4, 2}, dp_r[2] = {1, 8};
            MPI_Datatype ts, tr;
            CHECK_SUCCESS(MPI_Type_indexed(3, bl_s, dp_s, MPI_DOUBLE, &ts));
            CHECK_SUCCESS(MPI_Type_indexed(2, bl_r, dp_r, MPI_DOUBLE, &tr));
            MPI_Type_commit(&ts);
            MPI_Type_commit(&tr);
            const int n = 3;
            /* send extent 12 doubles, receive extent 10 doubles */
            double *sb = malloc(12 * n * sizeof(double)), *rb = malloc(10 * n * sizeof(double));
            int spos[6] = {0, 4, 5, 6, 10, 11}, rpos[6] = {1, 2, 3, 4, 8, 9};
            if (rank == sender) {
                for (int i = 0; i < 12 * n; i++)
                    sb[i] = -1.5;
                for (int j = 0; j < n; j++)
                    for (int k = 0; k < 6; k++)
                        sb[j * 12 + spos[k]] = src * 1000 + j * 10 + k + 0.25;
                CHECK_SUCCESS(MPI_Send(sb, n, ts, peer, 5, MPI_COMM_WORLD));
            } else {
                for (int i = 0; i < 10 * n; i++)
                    rb[i] = -2.5;
                CHECK_SUCCESS(MPI_Recv(rb, n, tr, peer, 5, MPI_COMM_WORLD, &st));
                counts(&st, tr, n, 6 * n, "indexed");
                /* the receive type spans doubles 1..9: lb 1, extent 9 */
                MPI_Aint rlb, rext;
                MPI_Type_get_extent(tr, &rlb, &rext);
                CHECK(rlb == (MPI_Aint)sizeof(double) && rext == 9 * (MPI_Aint)sizeof(double),
                      "indexed: lb %ld extent %ld", (long)rlb, (long)rext);
                double want[30];
                for (int i = 0; i < 10 * n; i++)
                    want[i] = -2.5;
                for (int j = 0; j < n; j++)
                    for (int k = 0; k < 6; k++)
                        want[j * 9 + rpos[k]] = src * 1000 + j * 10 + k + 0.25;
                for (int i = 0; i < 10 * n; i++)
                    CHECK(rb[i] == want[i], "indexed: slot %d is %g, expected %g", i, rb[i],
                          want[i]);
            }
            free(sb);
            free(rb);
            MPI_Type_free(&ts);
            MPI_Type_free(&tr);
        }
        /* 6. struct, resized to the C struct, both sides */
        {
            int bl[3] = {1, 2, 3};
            MPI_Aint dp[3] = {offsetof(struct rec, a), offsetof(struct rec, b),
                              offsetof(struct rec, c)};
            MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t0, t;
            CHECK_SUCCESS(MPI_Type_create_struct(3, bl, dp, types, &t0));
            CHECK_SUCCESS(MPI_Type_create_resized(t0, 0, sizeof(struct rec), &t));
            CHECK_SUCCESS(MPI_Type_commit(&t));
            MPI_Type_free(&t0);
            int tsz;
            MPI_Type_size(t, &tsz);
            CHECK_INT(tsz, sizeof(int) + 2 * sizeof(double) + 3);
            const int n = 11;
            struct rec r[11];
            if (rank == sender) {
                memset(r, 0x7f, sizeof r);
                for (int i = 0; i < n; i++) {
                    r[i].a = src * 100 + i;
                    r[i].b[0] = i * 0.5;
                    r[i].b[1] = -i * 0.25 - src;
                    r[i].c[0] = (char)('a' + i);
                    r[i].c[1] = (char)('A' + src);
                    r[i].c[2] = (char)i;
                }
                CHECK_SUCCESS(MPI_Send(r, n, t, peer, 6, MPI_COMM_WORLD));
            } else {
                memset(r, 0, sizeof r);
                CHECK_SUCCESS(MPI_Recv(r, n, t, peer, 6, MPI_COMM_WORLD, &st));
                counts(&st, t, n, 6 * n, "struct");
                for (int i = 0; i < n; i++)
                    CHECK(r[i].a == src * 100 + i && r[i].b[0] == i * 0.5 &&
                              r[i].b[1] == -i * 0.25 - src && r[i].c[0] == (char)('a' + i) &&
                              r[i].c[1] == (char)('A' + src) && r[i].c[2] == (char)i,
                          "struct %d: a=%d b=%g,%g c=%d,%d,%d", i, r[i].a, r[i].b[0], r[i].b[1],
                          r[i].c[0], r[i].c[1], r[i].c[2]);
                /* padding after c[] is not written */
                const unsigned char *raw = (const unsigned char *)r;
                size_t pad0 = offsetof(struct rec, c) + 3;
                for (int i = 0; i < n; i++)
                    for (size_t p = pad0; p < sizeof(struct rec); p++)
                        CHECK(raw[i * sizeof(struct rec) + p] == 0,
                              "struct %d: padding byte %zu written", i, p);
            }
            MPI_Type_free(&t);
        }
        /* 7. a 3x4 block of a 6x8 int matrix (vector from element [2][3]) received as hvector */
        {
            MPI_Datatype sub, hv;
            CHECK_SUCCESS(MPI_Type_vector(3, 4, 8, MPI_INT, &sub));
            CHECK_SUCCESS(MPI_Type_create_hvector(3, 4, 5 * sizeof(int), MPI_INT, &hv));
            MPI_Type_commit(&sub);
            MPI_Type_commit(&hv);
            int m[48], h[15];
            if (rank == sender) {
                for (int i = 0; i < 48; i++)
                    m[i] = src * 1000 + i;
                CHECK_SUCCESS(MPI_Send(m + 2 * 8 + 3, 1, sub, peer, 7, MPI_COMM_WORLD));
            } else {
                for (int i = 0; i < 15; i++)
                    h[i] = -9;
                CHECK_SUCCESS(MPI_Recv(h, 1, hv, peer, 7, MPI_COMM_WORLD, &st));
                counts(&st, hv, 1, 12, "block->hvector");
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 5; c++) {
                        int want = c < 4 ? src * 1000 + (2 + r) * 8 + 3 + c : -9;
                        if (r == 2 && c == 4)
                            continue; /* beyond the type's true extent */
                        CHECK(h[r * 5 + c] == want, "block->hvector: [%d][%d] is %d, expected %d",
                              r, c, h[r * 5 + c], want);
                    }
            }
            MPI_Type_free(&sub);
            MPI_Type_free(&hv);
        }
        /* 9. partial struct: (int, double, int) received as 2 x (int, double) */
        {
            struct id {
                int i;
                double d;
            } rr[2];
            struct idi {
                int i;
                double d;
                int j;
            } ss;
            MPI_Datatype tid, tid0, tidi;
            int bl[3] = {1, 1, 1};
            MPI_Aint dp2[2] = {offsetof(struct id, i), offsetof(struct id, d)};
            MPI_Aint dp3[3] = {offsetof(struct idi, i), offsetof(struct idi, d),
                               offsetof(struct idi, j)};
            MPI_Datatype ty2[2] = {MPI_INT, MPI_DOUBLE}, ty3[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
            MPI_Type_create_struct(2, bl, dp2, ty2, &tid0);
            MPI_Type_create_resized(tid0, 0, sizeof(struct id), &tid);
            MPI_Type_free(&tid0);
            MPI_Type_create_struct(3, bl, dp3, ty3, &tidi);
            MPI_Type_commit(&tid);
            MPI_Type_commit(&tidi);
            if (rank == sender) {
                ss.i = src + 5;
                ss.d = src + 0.125;
                ss.j = src - 9;
                CHECK_SUCCESS(MPI_Send(&ss, 1, tidi, peer, 9, MPI_COMM_WORLD));
            } else {
                memset(rr, 0, sizeof rr);
                rr[1].d = -4.0;
                CHECK_SUCCESS(MPI_Recv(rr, 2, tid, peer, 9, MPI_COMM_WORLD, &st));
                counts(&st, tid, MPI_UNDEFINED, 3, "partial struct");
                CHECK(rr[0].i == src + 5 && rr[0].d == src + 0.125 && rr[1].i == src - 9 &&
                          rr[1].d == -4.0,
                      "partial struct: (%d, %g), (%d, %g)", rr[0].i, rr[0].d, rr[1].i, rr[1].d);
            }
            MPI_Type_free(&tid);
            MPI_Type_free(&tidi);
        }
        /* 10. Sendrecv_replace with a noncontiguous type, both ranks at once */
        {
            int m[3 * 7];
            for (int i = 0; i < 21; i++)
                m[i] = rank * 1000 + i;
            MPI_Datatype col;
            MPI_Type_vector(3, 2, 7, MPI_INT, &col); /* 2 ints from each row of 3x7 */
            MPI_Type_commit(&col);
            CHECK_SUCCESS(MPI_Sendrecv_replace(m + 1, 1, col, peer, 10 + dir, peer, 10 + dir,
                                               MPI_COMM_WORLD, &st));
            counts(&st, col, 1, 6, "Sendrecv_replace(vector)");
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 7; c++) {
                    int inside = c == 1 || c == 2;
                    int want = (inside ? peer : rank) * 1000 + r * 7 + c;
                    CHECK(m[r * 7 + c] == want,
                          "Sendrecv_replace(vector): [%d][%d] is %d, expected %d", r, c,
                          m[r * 7 + c], want);
                }
            MPI_Type_free(&col);
        }
        /* 11. a datatype of size zero: the message is empty, the count is 0 */
        {
            MPI_Datatype z;
            MPI_Type_contiguous(0, MPI_INT, &z);
            MPI_Type_commit(&z);
            int zb[4] = {-9, -9, -9, -9};
            if (rank == sender) {
                CHECK_SUCCESS(MPI_Send(zb, 5, z, peer, 11, MPI_COMM_WORLD));
                CHECK_SUCCESS(MPI_Send(zb, 5, z, peer, 12, MPI_COMM_WORLD));
            } else {
                CHECK_SUCCESS(MPI_Recv(zb, 5, z, peer, 11, MPI_COMM_WORLD, &st));
                int c = -2, e = -2;
                CHECK_SUCCESS(MPI_Get_count(&st, z, &c));
                CHECK_SUCCESS(MPI_Get_elements(&st, z, &e));
                CHECK(c == 0 && e == 0, "zero-size type: count %d elements %d, expected 0 0", c, e);
                CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 11, "zero-size: source %d tag %d",
                      st.MPI_SOURCE, st.MPI_TAG);
                CHECK_SUCCESS(MPI_Recv(zb, 4, MPI_INT, peer, 12, MPI_COMM_WORLD, &st));
                CHECK_SUCCESS(MPI_Get_count(&st, MPI_INT, &c));
                CHECK(c == 0, "zero-size message received as ints: count %d", c);
                for (int i = 0; i < 4; i++)
                    CHECK(zb[i] == -9, "zero-size message wrote element %d", i);
            }
            MPI_Type_free(&z);
        }
        /* 8. a nonblocking noncontiguous receive completes correctly, large */
        {
            MPI_Datatype col;
            const int rows = 3000, cols = 3;
            CHECK_SUCCESS(MPI_Type_vector(rows, 1, cols, MPI_INT, &col));
            MPI_Type_commit(&col);
            int *mtx = malloc(rows * cols * sizeof(int));
            if (rank == sender) {
                for (int i = 0; i < rows * cols; i++)
                    mtx[i] = mtest_pattern(src, 8, i);
                MPI_Request r;
                CHECK_SUCCESS(MPI_Isend(mtx + 1, 1, col, peer, 8, MPI_COMM_WORLD, &r));
                CHECK_SUCCESS(MPI_Wait(&r, MPI_STATUS_IGNORE));
            } else {
                for (int i = 0; i < rows * cols; i++)
                    mtx[i] = -9;
                MPI_Request r;
                CHECK_SUCCESS(MPI_Irecv(mtx + 2, 1, col, peer, 8, MPI_COMM_WORLD, &r));
                CHECK_SUCCESS(MPI_Wait(&r, &st));
                counts(&st, col, 1, rows, "column");
                for (int i = 0; i < rows; i++) {
                    CHECK(mtx[i * cols + 2] == mtest_pattern(src, 8, i * cols + 1),
                          "column: row %d is %d", i, mtx[i * cols + 2]);
                    CHECK(mtx[i * cols] == -9 && mtx[i * cols + 1] == -9,
                          "column: row %d other columns written", i);
                    if (mtest_errors > 10)
                        break;
                }
            }
            free(mtx);
            MPI_Type_free(&col);
        }
    }
    MPI_Type_free(&vec);
    return mtest_finish();
}
