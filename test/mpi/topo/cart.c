/* Cartesian topologies on every size: Cart_create with the grid from
 * Dims_create (1-3 dimensions, periodic or not, and a grid smaller than
 * the communicator), Cart_get/rank/coords/shift/sub/map, Cartdim_get,
 * Topo_test, Comm_dup keeping the topology, all against row-major
 * arithmetic computed here; and the error paths. */
#include "mtest.h"

static int rank, size;

static void coords_of(int r, int nd, const int *dims, int *c)
{
    for (int i = nd - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int rank_of(int nd, const int *dims, const int *c)
{
    int r = 0;
    for (int i = 0; i < nd; i++)
        r = r * dims[i] + c[i];
    return r;
}

static void test_grid(int nd, const int *dims, const int *periods, int expect_size)
{
    MPI_Comm cart;
    CHECK_SUCCESS(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 1, &cart));
    if (rank >= expect_size) {
        CHECK(cart == MPI_COMM_NULL, "rank %d outside the grid got a communicator", rank);
        return;
    }
    CHECK(cart != MPI_COMM_NULL, "rank %d inside the grid got MPI_COMM_NULL", rank);
    int status = -1, ndims = -1, csize, crank;
    CHECK_SUCCESS(MPI_Topo_test(cart, &status));
    CHECK_INT(status, MPI_CART);
    CHECK_SUCCESS(MPI_Cartdim_get(cart, &ndims));
    CHECK_INT(ndims, nd);
    MPI_Comm_size(cart, &csize);
    MPI_Comm_rank(cart, &crank);
    CHECK_INT(csize, expect_size);
    CHECK_INT(crank, rank); /* reorder keeps the identity */
    int gd[4], gp[4], gc[4], want[4];
    CHECK_SUCCESS(MPI_Cart_get(cart, 4, gd, gp, gc));
    coords_of(rank, nd, dims, want);
    for (int i = 0; i < nd; i++) {
        CHECK_INT(gd[i], dims[i]);
        CHECK_INT(gp[i], periods[i] ? 1 : 0);
        CHECK_INT(gc[i], want[i]);
    }
    for (int r = 0; r < csize; r++) {
        int c[4], back = -1;
        CHECK_SUCCESS(MPI_Cart_coords(cart, r, nd, c));
        coords_of(r, nd, dims, want);
        for (int i = 0; i < nd; i++)
            CHECK_INT(c[i], want[i]);
        CHECK_SUCCESS(MPI_Cart_rank(cart, c, &back));
        CHECK_INT(back, r);
    }
    /* Shifts by -2..2 in every direction */
    for (int d = 0; d < nd; d++)
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst, c[4];
            CHECK_SUCCESS(MPI_Cart_shift(cart, d, disp, &src, &dst));
            for (int sign = -1; sign <= 1; sign += 2) {
                coords_of(rank, nd, dims, c);
                int pos = c[d] + sign * disp, expect;
                if (pos < 0 || pos >= dims[d]) {
                    if (!periods[d])
                        expect = MPI_PROC_NULL;
                    else {
                        c[d] = ((pos % dims[d]) + dims[d]) % dims[d];
                        expect = rank_of(nd, dims, c);
                    }
                } else {
                    c[d] = pos;
                    expect = rank_of(nd, dims, c);
                }
                CHECK_INT(sign > 0 ? dst : src, expect);
            }
        }
    /* Periodic coordinates wrap in Cart_rank; non-periodic ones are errors */
    if (nd > 0) {
        int c[4];
        coords_of(rank, nd, dims, c);
        c[0] += dims[0];
        int r = -1;
        if (periods[0]) {
            CHECK_SUCCESS(MPI_Cart_rank(cart, c, &r));
            CHECK_INT(r, rank);
        } else {
            CHECK_ERR_CLASS(MPI_Cart_rank(cart, c, &r), MPI_ERR_ARG);
        }
    }
    /* Cart_sub keeping each single dimension, and keeping none */
    for (int keep = 0; keep < nd; keep++) {
        int remain[4] = {0, 0, 0, 0};
        remain[keep] = 1;
        MPI_Comm sub;
        CHECK_SUCCESS(MPI_Cart_sub(cart, remain, &sub));
        int ssize, srank, snd = -1, sd[1], sp[1], sc[1];
        MPI_Comm_size(sub, &ssize);
        MPI_Comm_rank(sub, &srank);
        coords_of(rank, nd, dims, want);
        CHECK_INT(ssize, dims[keep]);
        CHECK_INT(srank, want[keep]);
        CHECK_SUCCESS(MPI_Cartdim_get(sub, &snd));
        CHECK_INT(snd, 1);
        CHECK_SUCCESS(MPI_Cart_get(sub, 1, sd, sp, sc));
        CHECK_INT(sd[0], dims[keep]);
        CHECK_INT(sp[0], periods[keep] ? 1 : 0);
        CHECK_INT(sc[0], want[keep]);
        /* the members of my row: sum of their cart ranks */
        int sum = -1, expect = 0;
        for (int v = 0; v < dims[keep]; v++) {
            int c[4];
            coords_of(rank, nd, dims, c);
            c[keep] = v;
            expect += rank_of(nd, dims, c);
        }
        CHECK_SUCCESS(MPI_Allreduce(&crank, &sum, 1, MPI_INT, MPI_SUM, sub));
        CHECK_INT(sum, expect);
        MPI_Comm_free(&sub);
    }
    {
        int remain[4] = {0, 0, 0, 0};
        MPI_Comm sub;
        CHECK_SUCCESS(MPI_Cart_sub(cart, remain, &sub));
        int ssize = -1, snd = -1;
        MPI_Comm_size(sub, &ssize);
        CHECK_INT(ssize, 1);
        CHECK_SUCCESS(MPI_Cartdim_get(sub, &snd));
        CHECK_INT(snd, 0);
        MPI_Comm_free(&sub);
    }
    /* Dup keeps the topology; the original can be freed first */
    MPI_Comm dup;
    CHECK_SUCCESS(MPI_Comm_dup(cart, &dup));
    CHECK_SUCCESS(MPI_Comm_free(&cart));
    CHECK_SUCCESS(MPI_Topo_test(dup, &status));
    CHECK_INT(status, MPI_CART);
    int dd[4], dp[4], dc[4];
    CHECK_SUCCESS(MPI_Cart_get(dup, 4, dd, dp, dc));
    for (int i = 0; i < nd; i++)
        CHECK_INT(dd[i], dims[i]);
    /* Errors on a Cartesian communicator */
    int src, dst, r, c[4];
    CHECK_ERR_CLASS(MPI_Cart_shift(dup, nd, 1, &src, &dst), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Cart_shift(dup, -1, 1, &src, &dst), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Cart_coords(dup, csize, 4, c), MPI_ERR_RANK);
    CHECK_ERR_CLASS(MPI_Cart_coords(dup, -1, 4, c), MPI_ERR_RANK);
    if (nd > 1)
        CHECK_ERR_CLASS(MPI_Cart_get(dup, nd - 1, dd, dp, dc), MPI_ERR_ARG);
    int nn, ne;
    CHECK_ERR_CLASS(MPI_Graphdims_get(dup, &nn, &ne), MPI_ERR_TOPOLOGY);
    (void)r;
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int nd = 1; nd <= 3; nd++) {
        int dims[3] = {0, 0, 0};
        MPI_Dims_create(size, nd, dims);
        int per0[3] = {0, 0, 0}, per1[3] = {1, 1, 1}, permix[3] = {1, 0, 1};
        test_grid(nd, dims, per0, size);
        test_grid(nd, dims, per1, size);
        test_grid(nd, dims, permix, size);
    }
    if (size > 2) { /* a grid smaller than the communicator */
        int dims[2] = {size - 1, 1}, per[2] = {1, 0};
        test_grid(2, dims, per, size - 1);
    }
    { /* zero dimensions: rank 0 alone */
        MPI_Comm cart;
        CHECK_SUCCESS(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
        if (rank == 0) {
            int s = -1, nd = -1;
            CHECK(cart != MPI_COMM_NULL, "0-d grid: rank 0 got MPI_COMM_NULL");
            MPI_Comm_size(cart, &s);
            CHECK_INT(s, 1);
            CHECK_SUCCESS(MPI_Cartdim_get(cart, &nd));
            CHECK_INT(nd, 0);
            MPI_Comm_free(&cart);
        } else {
            CHECK(cart == MPI_COMM_NULL, "0-d grid: rank %d got a communicator", rank);
        }
    }
    /* Cart_map */
    {
        int dims[1] = {size}, per[1] = {0}, nr = -5;
        CHECK_SUCCESS(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, per, &nr));
        CHECK_INT(nr, rank);
        if (size > 1) {
            dims[0] = size - 1;
            CHECK_SUCCESS(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, per, &nr));
            CHECK_INT(nr, rank < size - 1 ? rank : MPI_UNDEFINED);
        }
    }
    /* Errors */
    {
        MPI_Comm cart = MPI_COMM_NULL;
        int dims[2] = {size + 1, 1}, per[2] = {0, 0};
        CHECK_ERR_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart), MPI_ERR_TOPOLOGY);
        int zero[2] = {0, 1};
        CHECK_ERR_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, per, 0, &cart), MPI_ERR_DIMS);
        int negd[2] = {-2, 1};
        CHECK_ERR_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, negd, per, 0, &cart), MPI_ERR_DIMS);
        CHECK_ERR_CLASS(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, per, 0, &cart), MPI_ERR_DIMS);
        int status = -1, nd, src, dst, c[2], r;
        CHECK_SUCCESS(MPI_Topo_test(MPI_COMM_WORLD, &status));
        CHECK_INT(status, MPI_UNDEFINED);
        CHECK_ERR_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
        CHECK_ERR_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
        CHECK_ERR_CLASS(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c), MPI_ERR_TOPOLOGY);
        CHECK_ERR_CLASS(MPI_Cart_rank(MPI_COMM_WORLD, c, &r), MPI_ERR_TOPOLOGY);
        int remain[1] = {1};
        MPI_Comm sub;
        CHECK_ERR_CLASS(MPI_Cart_sub(MPI_COMM_WORLD, remain, &sub), MPI_ERR_TOPOLOGY);
        CHECK_ERR_CLASS(MPI_Cart_create(MPI_COMM_NULL, 1, dims, per, 0, &cart), MPI_ERR_COMM);
    }
    return mtest_finish();
}
