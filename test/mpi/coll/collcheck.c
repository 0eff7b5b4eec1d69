/* Every intracommunicator collective in its blocking, nonblocking (MPI_I*,
 * completed by MPI_Wait or by polling MPI_Test) and persistent (*_init,
 * started twice) forms, checked against a serial computation of the
 * expected result: non-zero roots, MPI_IN_PLACE, a derived datatype with
 * holes (which must stay untouched), MPI_SUM and a non-commutative user
 * op (composition of affine maps), several message sizes.
 *
 * args: the collectives to run (bcast reduce allreduce gather scatter
 * allgather alltoall reduce_scatter scan barrier), default all. The
 * algorithm under test is chosen by STMPI_COLL_*_ALGORITHM in testlist. */
#include "mtest.h"

enum { BLOCKING, NONBLOCKING, PERSISTENT, NMODES };
static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};
static int rank, size;
static MPI_Op affine_op;
static MPI_Datatype pair_type;  /* two ints (a, b): the map x -> a x + b */
static MPI_Datatype holey_type; /* 2 ints, stride 2: int, hole, int */
#define MOD 10007
#define HOLE (-777)

/* inout = in o inout, with `in` from the lower ranks: apply in first. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        int a1 = x[2 * i], b1 = x[2 * i + 1], a2 = y[2 * i], b2 = y[2 * i + 1];
        y[2 * i] = (int)((long)a1 * a2 % MOD);
        y[2 * i + 1] = (int)(((long)b1 * a2 + b2) % MOD);
    }
}

static void affine_value(int r, int i, int *out)
{
    out[0] = (r * 3 + i) % 97 + 2;
    out[1] = (r * 31 + i * 7) % 1000;
}

/* Serial composition of ranks [lo, hi) for element i into out (identity if empty). */
static void affine_fold(int lo, int hi, int i, int *out)
{
    out[0] = 1;
    out[1] = 0;
    for (int r = lo; r < hi; r++) {
        int v[2];
        affine_value(r, i, v);
        int a = (int)((long)out[0] * v[0] % MOD), b = (int)(((long)out[1] * v[0] + v[1]) % MOD);
        out[0] = a;
        out[1] = b;
    }
}

static int sum_value(int r, int i) { return r * 1000 + i % 1000; }

static void complete(MPI_Request *req, int k)
{
    if (k % 2 == 0) {
        CHECK_SUCCESS(MPI_Wait(req, MPI_STATUS_IGNORE));
    } else {
        int flag = 0;
        while (!flag)
            CHECK_SUCCESS(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    }
    CHECK(*req == MPI_REQUEST_NULL, "request not freed by completion");
}

/* Runs a persistent request twice (replay) and frees it. */
static void run_persistent(MPI_Request *req, int twice)
{
    for (int k = 0; k < (twice ? 2 : 1); k++) {
        CHECK_SUCCESS(MPI_Start(req));
        int flag = 0;
        if (k == 0) {
            CHECK_SUCCESS(MPI_Wait(req, MPI_STATUS_IGNORE));
        } else {
            while (!flag)
                CHECK_SUCCESS(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
        }
        CHECK(*req != MPI_REQUEST_NULL, "persistent request freed by completion");
    }
    CHECK_SUCCESS(MPI_Request_free(req));
}

static const int counts[] = {1, 7, 300, 20000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

/* ---- bcast ---- */
static void test_bcast(int mode)
{
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int root = 0; root < size; root += (size > 2 ? size - 2 : 1)) {
            int *buf = malloc(sizeof(int) * 2 * n + 8);
            for (int i = 0; i < 2 * n; i++)
                buf[i] = rank == root ? sum_value(root, i) : -1;
            /* first n ints plain, then n pairs in the holey type (only even ints move) */
            MPI_Request req;
            if (mode == BLOCKING) {
                CHECK_SUCCESS(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
            } else if (mode == NONBLOCKING) {
                CHECK_SUCCESS(MPI_Ibcast(buf, n, MPI_INT, root, MPI_COMM_WORLD, &req));
                complete(&req, c);
            } else {
                CHECK_SUCCESS(
                    MPI_Bcast_init(buf, n, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                run_persistent(&req, 1);
            }
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == sum_value(root, i), "%s bcast n=%d root=%d buf[%d]=%d",
                      mode_name[mode], n, root, i, buf[i]);
            /* derived: n/2 holey elements, holes must not change */
            int m = n / 2 > 0 ? n / 2 : 1;
            for (int i = 0; i < 2 * n && i < 4 * m; i++)
                buf[i] = (i % 2) ? HOLE : (rank == root ? sum_value(root, i) : -1);
            if (4 * m <= 2 * n) {
                if (mode == NONBLOCKING) {
                    CHECK_SUCCESS(MPI_Ibcast(buf, m, holey_type, root, MPI_COMM_WORLD, &req));
                    complete(&req, c + 1);
                } else {
                    CHECK_SUCCESS(MPI_Bcast(buf, m, holey_type, root, MPI_COMM_WORLD));
                }
                for (int i = 0; i < 4 * m; i++) {
                    int want = (i % 2) ? HOLE : sum_value(root, i);
                    CHECK(buf[i] == want, "%s bcast holey m=%d root=%d buf[%d]=%d want %d",
                          mode_name[mode], m, root, i, buf[i], want);
                }
            }
            free(buf);
        }
    }
}

/* ---- reduce / allreduce ---- */
static void check_sum(const int *got, int n, int lo, int hi, const char *what, int extra)
{
    for (int i = 0; i < n; i++) {
        long want = 0;
        for (int r = lo; r < hi; r++)
            want += sum_value(r, i);
        CHECK(got[i] == want, "%s (%d) [%d]=%d want %ld", what, extra, i, got[i], want);
    }
}

static void check_affine(const int *got, int n, int lo, int hi, const char *what, int extra)
{
    for (int i = 0; i < n; i++) {
        int want[2];
        affine_fold(lo, hi, i, want);
        CHECK(got[2 * i] == want[0] && got[2 * i + 1] == want[1],
              "%s (%d) [%d]=(%d,%d) want (%d,%d)", what, extra, i, got[2 * i], got[2 * i + 1],
              want[0], want[1]);
    }
}

static void fill_sum(int *buf, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = sum_value(rank, i);
}
static void fill_affine(int *buf, int n)
{
    for (int i = 0; i < n; i++)
        affine_value(rank, i, buf + 2 * i);
}

/* An in-place call is started once only (it consumes its input). */
static void do_reduce(int kind, const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root,
                      int mode, int k, int inplace)
{
    MPI_Request req;
    MPI_Comm w = MPI_COMM_WORLD;
    int twice = !inplace;
    if (kind == 0) {
        if (mode == BLOCKING)
            CHECK_SUCCESS(MPI_Reduce(s, r, n, t, op, root, w));
        else if (mode == NONBLOCKING) {
            CHECK_SUCCESS(MPI_Ireduce(s, r, n, t, op, root, w, &req));
            complete(&req, k);
        } else {
            CHECK_SUCCESS(MPI_Reduce_init(s, r, n, t, op, root, w, MPI_INFO_NULL, &req));
            run_persistent(&req, twice);
        }
    } else {
        if (mode == BLOCKING)
            CHECK_SUCCESS(MPI_Allreduce(s, r, n, t, op, w));
        else if (mode == NONBLOCKING) {
            CHECK_SUCCESS(MPI_Iallreduce(s, r, n, t, op, w, &req));
            complete(&req, k);
        } else {
            CHECK_SUCCESS(MPI_Allreduce_init(s, r, n, t, op, w, MPI_INFO_NULL, &req));
            run_persistent(&req, twice);
        }
    }
}

static void test_reduce_family(int kind, int mode)
{
    const char *name = kind == 0 ? "reduce" : "allreduce";
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        int *in = malloc(sizeof(int) * 4 * n), *out = malloc(sizeof(int) * 4 * n);
        for (int root = 0; root < size; root += (size > 2 ? size - 2 : 1)) {
            int me_root = kind == 1 || rank == root;
            /* MPI_SUM on ints */
            fill_sum(in, n);
            do_reduce(kind, in, out, n, MPI_INT, MPI_SUM, root, mode, c, 0);
            if (me_root)
                check_sum(out, n, 0, size, name, n);
            /* in place */
            fill_sum(out, n);
            const void *src = (kind == 1 || rank == root) ? MPI_IN_PLACE : out;
            do_reduce(kind, src, out, n, MPI_INT, MPI_SUM, root, mode, c + 1, 1);
            if (me_root)
                check_sum(out, n, 0, size, "in-place", n);
            /* non-commutative user op */
            fill_affine(in, n);
            do_reduce(kind, in, out, n, pair_type, affine_op, root, mode, c, 0);
            if (me_root)
                check_affine(out, n, 0, size, name, n);
            fill_affine(out, n);
            src = (kind == 1 || rank == root) ? MPI_IN_PLACE : out;
            do_reduce(kind, src, out, n, pair_type, affine_op, root, mode, c + 1, 1);
            if (me_root)
                check_affine(out, n, 0, size, "in-place affine", n);
            /* derived type with holes, MPI_SUM */
            for (int i = 0; i < 2 * n; i++) {
                in[i] = (i % 2) ? HOLE : sum_value(rank, i / 2);
                out[i] = HOLE;
            }
            if (n % 2 == 0) {
                do_reduce(kind, in, out, n / 2, holey_type, MPI_SUM, root, mode, c, 0);
                if (me_root) {
                    for (int i = 0; i < 2 * n; i++) {
                        long want = HOLE;
                        if (i % 2 == 0) {
                            want = 0;
                            for (int r = 0; r < size; r++)
                                want += sum_value(r, i / 2);
                        }
                        CHECK(out[i] == want, "%s holey [%d]=%d want %ld", name, i, out[i], want);
                    }
                }
            }
            if (kind == 1)
                break;
        }
        free(in);
        free(out);
    }
}

/* ---- gather / scatter (and v) ---- */
static void test_gather(int mode)
{
    const int sizes[] = {1, 5, 3000};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        for (int root = 0; root < size; root += (size > 2 ? size - 2 : 1)) {
            for (int v = 0; v < 2; v++) {
                for (int inplace = 0; inplace < 2; inplace++) {
                    int *mine = malloc(sizeof(int) * n),
                        *all = malloc(sizeof(int) * n * size * 2 + 4);
                    int *rc = malloc(sizeof(int) * size), *disp = malloc(sizeof(int) * size);
                    for (int r = 0; r < size; r++) {
                        rc[r] = n;
                        disp[r] = (size - 1 - r) * n;
                    }
                    for (int i = 0; i < n; i++)
                        mine[i] = sum_value(rank, i);
                    for (int i = 0; i < n * size; i++)
                        all[i] = -1;
                    if (inplace && rank == root) {
                        int at = v ? disp[root] : root * n;
                        for (int i = 0; i < n; i++)
                            all[at + i] = mine[i];
                    }
                    const void *s = (inplace && rank == root) ? MPI_IN_PLACE : mine;
                    MPI_Request req;
                    MPI_Comm w = MPI_COMM_WORLD;
                    if (!v) {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(MPI_Gather(s, n, MPI_INT, all, n, MPI_INT, root, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(
                                MPI_Igather(s, n, MPI_INT, all, n, MPI_INT, root, w, &req));
                            complete(&req, c);
                        } else {
                            CHECK_SUCCESS(MPI_Gather_init(s, n, MPI_INT, all, n, MPI_INT, root, w,
                                                          MPI_INFO_NULL, &req));
                            run_persistent(&req, 1);
                        }
                    } else {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(
                                MPI_Gatherv(s, n, MPI_INT, all, rc, disp, MPI_INT, root, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(
                                MPI_Igatherv(s, n, MPI_INT, all, rc, disp, MPI_INT, root, w, &req));
                            complete(&req, c);
                        } else {
                            CHECK_SUCCESS(MPI_Gatherv_init(s, n, MPI_INT, all, rc, disp, MPI_INT,
                                                           root, w, MPI_INFO_NULL, &req));
                            run_persistent(&req, 1);
                        }
                    }
                    if (rank == root)
                        for (int r = 0; r < size; r++)
                            for (int i = 0; i < n; i++) {
                                int at = (v ? disp[r] : r * n) + i;
                                CHECK(all[at] == sum_value(r, i),
                                      "%s gather%s n=%d root=%d inplace=%d from %d [%d]=%d",
                                      mode_name[mode], v ? "v" : "", n, root, inplace, r, i,
                                      all[at]);
                            }
                    /* scatter back */
                    for (int i = 0; i < n; i++)
                        mine[i] = -1;
                    if (rank == root)
                        for (int r = 0; r < size; r++)
                            for (int i = 0; i < n; i++)
                                all[(v ? disp[r] : r * n) + i] = sum_value(r, i) + 7;
                    void *rb = (inplace && rank == root) ? MPI_IN_PLACE : mine;
                    if (!v) {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(MPI_Scatter(all, n, MPI_INT, rb, n, MPI_INT, root, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(
                                MPI_Iscatter(all, n, MPI_INT, rb, n, MPI_INT, root, w, &req));
                            complete(&req, c + 1);
                        } else {
                            CHECK_SUCCESS(MPI_Scatter_init(all, n, MPI_INT, rb, n, MPI_INT, root, w,
                                                           MPI_INFO_NULL, &req));
                            run_persistent(&req, 1);
                        }
                    } else {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(
                                MPI_Scatterv(all, rc, disp, MPI_INT, rb, n, MPI_INT, root, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(MPI_Iscatterv(all, rc, disp, MPI_INT, rb, n, MPI_INT,
                                                        root, w, &req));
                            complete(&req, c + 1);
                        } else {
                            CHECK_SUCCESS(MPI_Scatterv_init(all, rc, disp, MPI_INT, rb, n, MPI_INT,
                                                            root, w, MPI_INFO_NULL, &req));
                            run_persistent(&req, 1);
                        }
                    }
                    if (!(inplace && rank == root))
                        for (int i = 0; i < n; i++)
                            CHECK(mine[i] == sum_value(rank, i) + 7,
                                  "%s scatter%s n=%d root=%d [%d]=%d", mode_name[mode],
                                  v ? "v" : "", n, root, i, mine[i]);
                    free(mine);
                    free(all);
                    free(rc);
                    free(disp);
                }
            }
        }
    }
    /* derived types: gather holey pairs into plain ints at the root */
    int mine[4] = {sum_value(rank, 0), HOLE, sum_value(rank, 1), HOLE};
    int *all = malloc(sizeof(int) * 2 * size);
    CHECK_SUCCESS(MPI_Gather(mine, 1, holey_type, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int r = 0; r < size; r++)
            CHECK(all[2 * r] == sum_value(r, 0) && all[2 * r + 1] == sum_value(r, 1),
                  "holey gather from %d", r);
    free(all);
}

/* ---- allgather(v) ---- */
static void test_allgather(int mode)
{
    const int sizes[] = {1, 6, 5000};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        for (int v = 0; v < 2; v++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int *mine = malloc(sizeof(int) * n), *all = malloc(sizeof(int) * (n + 1) * size);
                int *rc = malloc(sizeof(int) * size), *disp = malloc(sizeof(int) * size);
                int off = 0;
                for (int r = 0; r < size; r++) {
                    rc[r] = v ? n + (r % 2) : n;
                    disp[r] = off;
                    off += rc[r];
                }
                int mycount = rc[rank];
                int *src = malloc(sizeof(int) * (n + 1));
                for (int i = 0; i < mycount; i++)
                    src[i] = sum_value(rank, i);
                for (int i = 0; i < off; i++)
                    all[i] = -1;
                if (inplace)
                    for (int i = 0; i < mycount; i++)
                        all[(v ? disp[rank] : rank * n) + i] = src[i];
                const void *s = inplace ? MPI_IN_PLACE : src;
                MPI_Request req;
                MPI_Comm w = MPI_COMM_WORLD;
                if (!v) {
                    if (mode == BLOCKING)
                        CHECK_SUCCESS(MPI_Allgather(s, n, MPI_INT, all, n, MPI_INT, w));
                    else if (mode == NONBLOCKING) {
                        CHECK_SUCCESS(MPI_Iallgather(s, n, MPI_INT, all, n, MPI_INT, w, &req));
                        complete(&req, c);
                    } else {
                        CHECK_SUCCESS(MPI_Allgather_init(s, n, MPI_INT, all, n, MPI_INT, w,
                                                         MPI_INFO_NULL, &req));
                        run_persistent(&req, 1);
                    }
                } else {
                    if (mode == BLOCKING)
                        CHECK_SUCCESS(
                            MPI_Allgatherv(s, mycount, MPI_INT, all, rc, disp, MPI_INT, w));
                    else if (mode == NONBLOCKING) {
                        CHECK_SUCCESS(
                            MPI_Iallgatherv(s, mycount, MPI_INT, all, rc, disp, MPI_INT, w, &req));
                        complete(&req, c);
                    } else {
                        CHECK_SUCCESS(MPI_Allgatherv_init(s, mycount, MPI_INT, all, rc, disp,
                                                          MPI_INT, w, MPI_INFO_NULL, &req));
                        run_persistent(&req, 1);
                    }
                }
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < rc[r]; i++) {
                        int at = (v ? disp[r] : r * n) + i;
                        CHECK(all[at] == sum_value(r, i),
                              "%s allgather%s n=%d inplace=%d from %d [%d]=%d", mode_name[mode],
                              v ? "v" : "", n, inplace, r, i, all[at]);
                    }
                free(mine);
                free(all);
                free(rc);
                free(disp);
                free(src);
            }
    }
    /* holey send type into plain ints */
    int mine[4] = {sum_value(rank, 0), HOLE, sum_value(rank, 1), HOLE};
    int *all = malloc(sizeof(int) * 2 * size);
    CHECK_SUCCESS(MPI_Allgather(mine, 1, holey_type, all, 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == sum_value(r, 0) && all[2 * r + 1] == sum_value(r, 1),
              "holey allgather from %d", r);
    free(all);
}

/* ---- alltoall(v,w) ---- */
static int a2a_value(int from, int to, int i) { return from * 100000 + to * 1000 + i % 1000; }

static void test_alltoall(int mode)
{
    const int sizes[] = {1, 4, 3000};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        for (int kind = 0; kind < 3; kind++) /* alltoall, alltoallv, alltoallw */
            for (int inplace = 0; inplace < 2; inplace++) {
                int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
                int *rcn = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
                MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * size);
                /* v: block to r has n + (rank + r) % 3 ints, blocks reversed in the buffer */
                int soff = 0, roff = 0;
                for (int r = 0; r < size; r++) {
                    int cnt_s = kind ? n + (rank + r) % 3 : n,
                        cnt_r = kind ? n + (r + rank) % 3 : n;
                    sc[r] = cnt_s;
                    rcn[r] = cnt_r;
                    ty[r] = MPI_INT;
                }
                for (int r = size - 1; r >= 0; r--) {
                    sd[r] = soff;
                    soff += sc[r];
                    rd[r] = roff;
                    roff += rcn[r];
                }
                if (!kind)
                    for (int r = 0; r < size; r++) {
                        sd[r] = r * n;
                        rd[r] = r * n;
                    }
                int *sb = malloc(sizeof(int) * (soff + 1)), *rb = malloc(sizeof(int) * (roff + 1));
                int *sdb = malloc(sizeof(int) * size), *rdb = malloc(sizeof(int) * size);
                for (int r = 0; r < size; r++) {
                    sdb[r] = sd[r] * (int)sizeof(int);
                    rdb[r] = rd[r] * (int)sizeof(int);
                }
                int *fill = inplace ? rb : sb;
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < sc[r]; i++)
                        fill[(inplace ? rd[r] : sd[r]) + i] = a2a_value(rank, r, i);
                if (!inplace)
                    for (int i = 0; i < roff; i++)
                        rb[i] = -1;
                const void *s = inplace ? MPI_IN_PLACE : sb;
                MPI_Request req;
                MPI_Comm w = MPI_COMM_WORLD;
                if (kind == 0) {
                    if (mode == BLOCKING)
                        CHECK_SUCCESS(MPI_Alltoall(s, n, MPI_INT, rb, n, MPI_INT, w));
                    else if (mode == NONBLOCKING) {
                        CHECK_SUCCESS(MPI_Ialltoall(s, n, MPI_INT, rb, n, MPI_INT, w, &req));
                        complete(&req, c);
                    } else {
                        CHECK_SUCCESS(MPI_Alltoall_init(s, n, MPI_INT, rb, n, MPI_INT, w,
                                                        MPI_INFO_NULL, &req));
                        run_persistent(&req, !inplace);
                    }
                } else if (kind == 1) {
                    if (mode == BLOCKING)
                        CHECK_SUCCESS(MPI_Alltoallv(s, sc, sd, MPI_INT, rb, rcn, rd, MPI_INT, w));
                    else if (mode == NONBLOCKING) {
                        CHECK_SUCCESS(
                            MPI_Ialltoallv(s, sc, sd, MPI_INT, rb, rcn, rd, MPI_INT, w, &req));
                        complete(&req, c);
                    } else {
                        CHECK_SUCCESS(MPI_Alltoallv_init(s, sc, sd, MPI_INT, rb, rcn, rd, MPI_INT,
                                                         w, MPI_INFO_NULL, &req));
                        run_persistent(&req, !inplace);
                    }
                } else {
                    if (mode == BLOCKING)
                        CHECK_SUCCESS(MPI_Alltoallw(s, sc, sdb, ty, rb, rcn, rdb, ty, w));
                    else if (mode == NONBLOCKING) {
                        CHECK_SUCCESS(MPI_Ialltoallw(s, sc, sdb, ty, rb, rcn, rdb, ty, w, &req));
                        complete(&req, c);
                    } else {
                        CHECK_SUCCESS(MPI_Alltoallw_init(s, sc, sdb, ty, rb, rcn, rdb, ty, w,
                                                         MPI_INFO_NULL, &req));
                        run_persistent(&req, !inplace);
                    }
                }
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < rcn[r]; i++)
                        CHECK(rb[rd[r] + i] == a2a_value(r, rank, i),
                              "%s alltoall kind=%d n=%d inplace=%d from %d [%d]=%d",
                              mode_name[mode], kind, n, inplace, r, i, rb[rd[r] + i]);
                free(sc);
                free(sd);
                free(rcn);
                free(rd);
                free(ty);
                free(sb);
                free(rb);
                free(sdb);
                free(rdb);
            }
    }
    /* holey send type, plain receive */
    int *sb = malloc(sizeof(int) * 4 * size), *rb = malloc(sizeof(int) * 2 * size);
    for (int r = 0; r < size; r++) {
        sb[4 * r] = a2a_value(rank, r, 0);
        sb[4 * r + 1] = HOLE;
        sb[4 * r + 2] = a2a_value(rank, r, 1);
        sb[4 * r + 3] = HOLE;
    }
    CHECK_SUCCESS(MPI_Alltoall(sb, 1, holey_type, rb, 2, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CHECK(rb[2 * r] == a2a_value(r, rank, 0) && rb[2 * r + 1] == a2a_value(r, rank, 1),
              "holey alltoall from %d", r);
    free(sb);
    free(rb);
}

/* ---- reduce_scatter(_block) ---- */
static void test_reduce_scatter(int mode)
{
    const int sizes[] = {1, 3, 2000};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        for (int block = 0; block < 2; block++)
            for (int op = 0; op < 2; op++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    int *rc = malloc(sizeof(int) * size), total = 0;
                    for (int r = 0; r < size; r++) {
                        rc[r] = block ? n : n + r % 2;
                        total += rc[r];
                    }
                    int elem = op ? 2 : 1;
                    MPI_Datatype t = op ? pair_type : MPI_INT;
                    MPI_Op o = op ? affine_op : MPI_SUM;
                    int *in = malloc(sizeof(int) * elem * total),
                        *out = malloc(sizeof(int) * elem * total);
                    if (op)
                        fill_affine(inplace ? out : in, total);
                    else
                        fill_sum(inplace ? out : in, total);
                    const void *s = inplace ? MPI_IN_PLACE : in;
                    MPI_Request req;
                    MPI_Comm w = MPI_COMM_WORLD;
                    if (block) {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(MPI_Reduce_scatter_block(s, out, n, t, o, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(MPI_Ireduce_scatter_block(s, out, n, t, o, w, &req));
                            complete(&req, c);
                        } else {
                            CHECK_SUCCESS(MPI_Reduce_scatter_block_init(s, out, n, t, o, w,
                                                                        MPI_INFO_NULL, &req));
                            run_persistent(&req, !inplace);
                        }
                    } else {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(MPI_Reduce_scatter(s, out, rc, t, o, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(MPI_Ireduce_scatter(s, out, rc, t, o, w, &req));
                            complete(&req, c);
                        } else {
                            CHECK_SUCCESS(
                                MPI_Reduce_scatter_init(s, out, rc, t, o, w, MPI_INFO_NULL, &req));
                            run_persistent(&req, !inplace);
                        }
                    }
                    int first = 0;
                    for (int r = 0; r < rank; r++)
                        first += rc[r];
                    for (int i = 0; i < rc[rank]; i++) {
                        if (op) {
                            int want[2];
                            affine_fold(0, size, first + i, want);
                            CHECK(out[2 * i] == want[0] && out[2 * i + 1] == want[1],
                                  "%s reduce_scatter%s affine n=%d inplace=%d [%d]",
                                  mode_name[mode], block ? "_block" : "", n, inplace, i);
                        } else {
                            long want = 0;
                            for (int r = 0; r < size; r++)
                                want += sum_value(r, first + i);
                            CHECK(out[i] == want,
                                  "%s reduce_scatter%s n=%d inplace=%d [%d]=%d want %ld",
                                  mode_name[mode], block ? "_block" : "", n, inplace, i, out[i],
                                  want);
                        }
                    }
                    free(rc);
                    free(in);
                    free(out);
                }
    }
}

/* ---- scan / exscan ---- */
static void test_scan(int mode)
{
    const int sizes[] = {1, 9, 3000};
    for (int c = 0; c < 3; c++) {
        int n = sizes[c];
        for (int ex = 0; ex < 2; ex++)
            for (int op = 0; op < 2; op++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    int elem = op ? 2 : 1;
                    MPI_Datatype t = op ? pair_type : MPI_INT;
                    MPI_Op o = op ? affine_op : MPI_SUM;
                    int *in = malloc(sizeof(int) * elem * n), *out = malloc(sizeof(int) * elem * n);
                    if (op)
                        fill_affine(inplace ? out : in, n);
                    else
                        fill_sum(inplace ? out : in, n);
                    const void *s = inplace ? MPI_IN_PLACE : in;
                    MPI_Request req;
                    MPI_Comm w = MPI_COMM_WORLD;
                    if (ex) {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(MPI_Exscan(s, out, n, t, o, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(MPI_Iexscan(s, out, n, t, o, w, &req));
                            complete(&req, c);
                        } else {
                            CHECK_SUCCESS(MPI_Exscan_init(s, out, n, t, o, w, MPI_INFO_NULL, &req));
                            run_persistent(&req, !inplace);
                        }
                    } else {
                        if (mode == BLOCKING)
                            CHECK_SUCCESS(MPI_Scan(s, out, n, t, o, w));
                        else if (mode == NONBLOCKING) {
                            CHECK_SUCCESS(MPI_Iscan(s, out, n, t, o, w, &req));
                            complete(&req, c);
                        } else {
                            CHECK_SUCCESS(MPI_Scan_init(s, out, n, t, o, w, MPI_INFO_NULL, &req));
                            run_persistent(&req, !inplace);
                        }
                    }
                    int hi = ex ? rank : rank + 1;
                    if (ex && rank == 0) {
                        free(in);
                        free(out);
                        continue;
                    }
                    if (op)
                        check_affine(out, n, 0, hi, ex ? "exscan affine" : "scan affine", n);
                    else
                        check_sum(out, n, 0, hi, ex ? "exscan" : "scan", n);
                    free(in);
                    free(out);
                }
    }
}

/* ---- barrier: nobody leaves before the last one entered (rank 0 enters
 * 0.2 s late). The check compares each rank's exit time with rank 0's entry
 * time on MPI_Wtime, which all ranks of this suite share (one machine, one
 * CLOCK_MONOTONIC): a rank that was itself descheduled for a while after
 * the previous barrier waits less, without having left early. ---- */
static void test_barrier(int mode)
{
    double entered[2] = {0, 0}, left[2];
    for (int k = 0; k < 2; k++) {
        MPI_Request req;
        CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        if (rank == 0) {
            while (MPI_Wtime() - t0 < 0.2)
                ;
            entered[k] = MPI_Wtime();
        }
        if (mode == BLOCKING)
            CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
        else if (mode == NONBLOCKING) {
            CHECK_SUCCESS(MPI_Ibarrier(MPI_COMM_WORLD, &req));
            complete(&req, k);
        } else {
            CHECK_SUCCESS(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            run_persistent(&req, 1);
        }
        left[k] = MPI_Wtime();
    }
    MPI_Bcast(entered, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++)
        CHECK(left[k] >= entered[k], "%s barrier round %d left %.3f s before rank 0 entered",
              mode_name[mode], k, entered[k] - left[k]);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(2, MPI_INT, &pair_type);
    MPI_Type_commit(&pair_type);
    MPI_Type_vector(2, 1, 2, MPI_INT, &holey_type);
    MPI_Datatype resized;
    MPI_Type_create_resized(holey_type, 0, 4 * sizeof(int), &resized);
    MPI_Type_free(&holey_type);
    holey_type = resized;
    MPI_Type_commit(&holey_type);
    MPI_Op_create(affine, 0, &affine_op);

    const char *all[] = {"bcast",    "reduce",         "allreduce", "gather", "allgather",
                         "alltoall", "reduce_scatter", "scan",      "barrier"};
    int nall = sizeof all / sizeof all[0];
    const char **which = argc > 1 ? (const char **)argv + 1 : all;
    int nwhich = argc > 1 ? argc - 1 : nall;
    for (int w = 0; w < nwhich; w++)
        for (int mode = 0; mode < NMODES; mode++) {
            const char *c = which[w];
            if (!strcmp(c, "bcast"))
                test_bcast(mode);
            else if (!strcmp(c, "reduce"))
                test_reduce_family(0, mode);
            else if (!strcmp(c, "allreduce"))
                test_reduce_family(1, mode);
            else if (!strcmp(c, "gather") || !strcmp(c, "scatter"))
                test_gather(mode);
            else if (!strcmp(c, "allgather"))
                test_allgather(mode);
            else if (!strcmp(c, "alltoall"))
                test_alltoall(mode);
            else if (!strcmp(c, "reduce_scatter"))
                test_reduce_scatter(mode);
            else if (!strcmp(c, "scan"))
                test_scan(mode);
            else if (!strcmp(c, "barrier"))
                test_barrier(mode);
            else {
                CHECK(0, "unknown collective %s", c);
                break;
            }
        }
    MPI_Op_free(&affine_op);
    MPI_Type_free(&pair_type);
    MPI_Type_free(&holey_type);
    return mtest_finish();
}
