/* Collectives on an intercommunicator between the even (group A) and odd
 * (group B) ranks of MPI_COMM_WORLD (sizes may differ): MPI_ROOT /
 * MPI_PROC_NULL / remote-rank roots, data checked against what the remote
 * group provided, a non-commutative op (remote ranks combined in order),
 * blocking, nonblocking and persistent forms; Scan is refused. */
#include "mtest.h"

#define MOD 10007
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
static void aval(int g, int r, int i, int *o)
{
    o[0] = (g * 7 + r * 3 + i) % 97 + 2;
    o[1] = (g * 11 + r * 31 + i * 5) % 1000;
}
static void afold(int g, int n, int i, int *o)
{
    o[0] = 1;
    o[1] = 0;
    for (int r = 0; r < n; r++) {
        int v[2];
        aval(g, r, i, v);
        int a = (int)((long)o[0] * v[0] % MOD), b = (int)(((long)o[1] * v[0] + v[1]) % MOD);
        o[0] = a;
        o[1] = b;
    }
}
static int val(int g, int r, int i) { return g * 100000 + r * 1000 + i; }

static MPI_Comm inter;
static int group, lrank, lsize, rsize;

static void finish(MPI_Request *req, int mode)
{
    if (mode == 1)
        CHECK_SUCCESS(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (mode == 2) {
        CHECK_SUCCESS(MPI_Start(req));
        CHECK_SUCCESS(MPI_Wait(req, MPI_STATUS_IGNORE));
        CHECK_SUCCESS(MPI_Start(req));
        CHECK_SUCCESS(MPI_Wait(req, MPI_STATUS_IGNORE));
        CHECK_SUCCESS(MPI_Request_free(req));
    }
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2)
        return mtest_finish();
    MPI_Comm local;
    group = wrank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, group, wrank, &local);
    CHECK_SUCCESS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, group ? 0 : 1, 42, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    int other = 1 - group;
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(affine, 0, &op);
    enum { N = 5 };
    int a[64 * N], b[64 * N];
    MPI_Request req;

    for (int mode = 0; mode < 3; mode++) {
        /* Barrier */
        if (mode == 0)
            CHECK_SUCCESS(MPI_Barrier(inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Ibarrier(inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Barrier_init(inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }

        /* Bcast from A's rank 0 to B */
        int root = group == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        for (int i = 0; i < N; i++)
            a[i] = group == 0 ? val(0, 0, i) : -1;
        if (mode == 0)
            CHECK_SUCCESS(MPI_Bcast(a, N, MPI_INT, root, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Ibcast(a, N, MPI_INT, root, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Bcast_init(a, N, MPI_INT, root, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        if (group == 1)
            for (int i = 0; i < N; i++)
                CHECK_INT(a[i], val(0, 0, i));

        /* Reduce of A's data to B's last rank, non-commutative */
        int broot = rsize - 1; /* seen from A: remote rank; B's root is local rank lsize-1 */
        root = group == 0 ? broot : (lrank == lsize - 1 ? MPI_ROOT : MPI_PROC_NULL);
        for (int i = 0; i < N; i++)
            aval(group, lrank, i, a + 2 * i);
        for (int i = 0; i < 2 * N; i++)
            b[i] = -1;
        if (mode == 0)
            CHECK_SUCCESS(MPI_Reduce(a, b, N, pair, op, root, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Ireduce(a, b, N, pair, op, root, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Reduce_init(a, b, N, pair, op, root, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        if (root == MPI_ROOT)
            for (int i = 0; i < N; i++) {
                int w[2];
                afold(0, rsize, i, w);
                CHECK(b[2 * i] == w[0] && b[2 * i + 1] == w[1], "inter reduce [%d]", i);
            }

        /* Allreduce: each gets the fold of the remote group */
        if (mode == 0)
            CHECK_SUCCESS(MPI_Allreduce(a, b, N, pair, op, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Iallreduce(a, b, N, pair, op, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Allreduce_init(a, b, N, pair, op, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        for (int i = 0; i < N; i++) {
            int w[2];
            afold(other, rsize, i, w);
            CHECK(b[2 * i] == w[0] && b[2 * i + 1] == w[1], "inter allreduce [%d]", i);
        }

        /* Gather B's data at A's rank 0; Gatherv likewise */
        root = group == 1 ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
        for (int i = 0; i < N; i++)
            a[i] = val(group, lrank, i);
        for (int i = 0; i < N * rsize; i++)
            b[i] = -1;
        if (mode == 0)
            CHECK_SUCCESS(MPI_Gather(a, N, MPI_INT, b, N, MPI_INT, root, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Igather(a, N, MPI_INT, b, N, MPI_INT, root, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(
                MPI_Gather_init(a, N, MPI_INT, b, N, MPI_INT, root, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        if (root == MPI_ROOT)
            for (int r = 0; r < rsize; r++)
                for (int i = 0; i < N; i++)
                    CHECK_INT(b[r * N + i], val(1, r, i));
        int cnt[64], dsp[64];
        for (int r = 0; r < rsize; r++) {
            cnt[r] = N;
            dsp[r] = (rsize - 1 - r) * N;
        }
        if (mode == 0)
            CHECK_SUCCESS(MPI_Gatherv(a, N, MPI_INT, b, cnt, dsp, MPI_INT, root, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Igatherv(a, N, MPI_INT, b, cnt, dsp, MPI_INT, root, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Gatherv_init(a, N, MPI_INT, b, cnt, dsp, MPI_INT, root, inter,
                                           MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        if (root == MPI_ROOT)
            for (int r = 0; r < rsize; r++)
                for (int i = 0; i < N; i++)
                    CHECK_INT(b[dsp[r] + i], val(1, r, i));

        /* Scatter from B's rank 0 to A */
        root = group == 0 ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                b[r * N + i] = val(9, r, i);
        for (int i = 0; i < N; i++)
            a[i] = -1;
        if (mode == 0)
            CHECK_SUCCESS(MPI_Scatter(b, N, MPI_INT, a, N, MPI_INT, root, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Iscatter(b, N, MPI_INT, a, N, MPI_INT, root, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(
                MPI_Scatter_init(b, N, MPI_INT, a, N, MPI_INT, root, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        if (group == 0)
            for (int i = 0; i < N; i++)
                CHECK_INT(a[i], val(9, lrank, i));
        for (int r = 0; r < rsize; r++) {
            cnt[r] = N;
            dsp[r] = r * N;
        }
        if (mode == 0)
            CHECK_SUCCESS(MPI_Scatterv(b, cnt, dsp, MPI_INT, a, N, MPI_INT, root, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Iscatterv(b, cnt, dsp, MPI_INT, a, N, MPI_INT, root, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Scatterv_init(b, cnt, dsp, MPI_INT, a, N, MPI_INT, root, inter,
                                            MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        if (group == 0)
            for (int i = 0; i < N; i++)
                CHECK_INT(a[i], val(9, lrank, i));

        /* Allgather(v): the remote group's blocks */
        for (int i = 0; i < N; i++)
            a[i] = val(group, lrank, i);
        for (int r = 0; r < rsize; r++) {
            cnt[r] = N;
            dsp[r] = (rsize - 1 - r) * N;
        }
        if (mode == 0)
            CHECK_SUCCESS(MPI_Allgather(a, N, MPI_INT, b, N, MPI_INT, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Iallgather(a, N, MPI_INT, b, N, MPI_INT, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(
                MPI_Allgather_init(a, N, MPI_INT, b, N, MPI_INT, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                CHECK_INT(b[r * N + i], val(other, r, i));
        if (mode == 0)
            CHECK_SUCCESS(MPI_Allgatherv(a, N, MPI_INT, b, cnt, dsp, MPI_INT, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Iallgatherv(a, N, MPI_INT, b, cnt, dsp, MPI_INT, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Allgatherv_init(a, N, MPI_INT, b, cnt, dsp, MPI_INT, inter,
                                              MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                CHECK_INT(b[dsp[r] + i], val(other, r, i));

        /* Alltoall(v,w) */
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                a[r * N + i] = val(group, lrank, r * 10 + i);
        if (mode == 0)
            CHECK_SUCCESS(MPI_Alltoall(a, N, MPI_INT, b, N, MPI_INT, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Ialltoall(a, N, MPI_INT, b, N, MPI_INT, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(
                MPI_Alltoall_init(a, N, MPI_INT, b, N, MPI_INT, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                CHECK_INT(b[r * N + i], val(other, r, lrank * 10 + i));
        int bd[64];
        MPI_Datatype ty[64];
        for (int r = 0; r < rsize; r++) {
            cnt[r] = N;
            dsp[r] = r * N;
            bd[r] = r * N * (int)sizeof(int);
            ty[r] = MPI_INT;
        }
        for (int i = 0; i < N * rsize; i++)
            b[i] = -1;
        if (mode == 0)
            CHECK_SUCCESS(MPI_Alltoallw(a, cnt, bd, ty, b, cnt, bd, ty, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Ialltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(
                MPI_Alltoallw_init(a, cnt, bd, ty, b, cnt, bd, ty, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        for (int r = 0; r < rsize; r++)
            for (int i = 0; i < N; i++)
                CHECK_INT(b[r * N + i], val(other, r, lrank * 10 + i));

        /* Reduce_scatter(_block): total 6 pairs in both groups */
        int total = 6;
        for (int i = 0; i < total; i++)
            aval(group, lrank, i, a + 2 * i);
        int rc[64];
        for (int r = 0; r < lsize; r++)
            rc[r] = total / lsize + (r < total % lsize);
        int first = 0;
        for (int r = 0; r < lrank; r++)
            first += rc[r];
        if (mode == 0)
            CHECK_SUCCESS(MPI_Reduce_scatter(a, b, rc, pair, op, inter));
        else if (mode == 1) {
            CHECK_SUCCESS(MPI_Ireduce_scatter(a, b, rc, pair, op, inter, &req));
            finish(&req, 1);
        } else {
            CHECK_SUCCESS(MPI_Reduce_scatter_init(a, b, rc, pair, op, inter, MPI_INFO_NULL, &req));
            finish(&req, 2);
        }
        for (int i = 0; i < rc[lrank]; i++) {
            int w[2];
            afold(other, rsize, first + i, w);
            CHECK(b[2 * i] == w[0] && b[2 * i + 1] == w[1], "inter reduce_scatter [%d]", i);
        }
        if (total % lsize == 0 && total % rsize == 0) {
            int k = total / lsize;
            if (mode == 0)
                CHECK_SUCCESS(MPI_Reduce_scatter_block(a, b, k, pair, op, inter));
            else if (mode == 1) {
                CHECK_SUCCESS(MPI_Ireduce_scatter_block(a, b, k, pair, op, inter, &req));
                finish(&req, 1);
            } else {
                CHECK_SUCCESS(
                    MPI_Reduce_scatter_block_init(a, b, k, pair, op, inter, MPI_INFO_NULL, &req));
                finish(&req, 2);
            }
            for (int i = 0; i < k; i++) {
                int w[2];
                afold(other, rsize, lrank * k + i, w);
                CHECK(b[2 * i] == w[0] && b[2 * i + 1] == w[1], "inter reduce_scatter_block [%d]",
                      i);
            }
        }
    }
    int rcs = MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, inter);
    CHECK_ERR_CLASS(rcs, MPI_ERR_COMM);
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mtest_finish();
}
