/* MPI_Type_create_darray(_c): block, cyclic, cyclic(k), block(k) and none,
 * C and Fortran order, 1 to 3 dimensions, checked against an explicit
 * computation of which global elements each process owns:
 *  - rank 0 sends every rank its part of a global array with that rank's
 *    darray type; the rank receives contiguous elements and checks each;
 *  - every rank sends its part back contiguously and rank 0 receives it
 *    with the rank's darray type into an empty global array, which must
 *    then be the original array exactly (each element owned once);
 * plus bounds (lb 0, extent of the whole array), size, decoding, and the
 * argument errors. */
#include "mtest.h"

#define MAXDIMS 3

typedef struct {
    int ndims;
    int gsizes[MAXDIMS];
    int distribs[MAXDIMS];
    int dargs[MAXDIMS];
    int psizes[MAXDIMS]; /* product = number of processes; 0: fill with MPI_Dims_create */
    int order;
} Case;

/* Coordinate of `rank` in dimension d of the row-major process grid. */
static int grid_coord(int rank, int ndims, const int psizes[], int d)
{
    for (int e = ndims - 1; e > d; --e)
        rank /= psizes[e];
    return rank % psizes[d];
}

/* Process coordinate owning index i of dimension d. */
static int owner(const Case *c, int d, int i)
{
    const int g = c->gsizes[d], p = c->psizes[d], darg = c->dargs[d];
    switch (c->distribs[d]) {
    case MPI_DISTRIBUTE_BLOCK: {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return i / b;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
        int k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        return (i / k) % p;
    }
    default: return 0;
    }
}

/* The global linear indices (in `order`) owned by `rank`, in the order of
 * its local array: walk every element in storage order and keep the owned
 * ones (local indices grow with global ones in every dimension). */
static int owned(const Case *c, int rank, int out[])
{
    int total = 1, n = 0, idx[MAXDIMS];
    for (int d = 0; d < c->ndims; ++d)
        total *= c->gsizes[d];
    for (int lin = 0; lin < total; ++lin) {
        int rest = lin, mine = 1;
        if (c->order == MPI_ORDER_C) {
            for (int d = c->ndims - 1; d >= 0; --d) {
                idx[d] = rest % c->gsizes[d];
                rest /= c->gsizes[d];
            }
        } else {
            for (int d = 0; d < c->ndims; ++d) {
                idx[d] = rest % c->gsizes[d];
                rest /= c->gsizes[d];
            }
        }
        for (int d = 0; d < c->ndims; ++d)
            if (owner(c, d, idx[d]) != grid_coord(rank, c->ndims, c->psizes, d))
                mine = 0;
        if (mine)
            out[n++] = lin;
    }
    return n;
}

static int make_type(const Case *c, int size, int rank, int large, MPI_Datatype *t)
{
    if (large) {
        MPI_Count g[MAXDIMS];
        for (int d = 0; d < c->ndims; ++d)
            g[d] = c->gsizes[d];
        return MPI_Type_create_darray_c(size, rank, c->ndims, g, c->distribs, c->dargs, c->psizes,
                                        c->order, MPI_DOUBLE, t);
    }
    return MPI_Type_create_darray(size, rank, c->ndims, c->gsizes, c->distribs, c->dargs, c->psizes,
                                  c->order, MPI_DOUBLE, t);
}

static void run_case(Case c, int large)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int prod = 1;
    for (int d = 0; d < c.ndims; ++d)
        prod *= c.psizes[d];
    if (prod != size) { /* spread the processes over the distributed dimensions */
        int dims[MAXDIMS] = {0, 0, 0};
        for (int d = 0; d < c.ndims; ++d)
            if (c.distribs[d] == MPI_DISTRIBUTE_NONE)
                dims[d] = 1;
        MPI_Dims_create(size, c.ndims, dims);
        for (int d = 0; d < c.ndims; ++d)
            c.psizes[d] = dims[d];
    }
    int total = 1;
    for (int d = 0; d < c.ndims; ++d)
        total *= c.gsizes[d];
    double *global = malloc(sizeof(double) * total);
    double *local = malloc(sizeof(double) * total);
    int *expect = malloc(sizeof(int) * total);

    MPI_Datatype mine;
    CHECK_SUCCESS(make_type(&c, size, rank, large, &mine));
    MPI_Type_commit(&mine);
    const int n = owned(&c, rank, expect);
    MPI_Count tsize = -1, lb = -1, extent = -1;
    MPI_Type_size_c(mine, &tsize);
    MPI_Type_get_extent_c(mine, &lb, &extent);
    CHECK(tsize == (MPI_Count)n * 8, "type size %lld, expected %d elements", (long long)tsize, n);
    CHECK(lb == 0 && extent == (MPI_Count)total * 8, "lb %lld extent %lld, expected 0 and %d",
          (long long)lb, (long long)extent, total * 8);

    /* Scatter: rank 0 sends each rank its part with that rank's type. */
    MPI_Request req;
    MPI_Irecv(local, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &req);
    if (rank == 0) {
        for (int i = 0; i < total; ++i)
            global[i] = 1000.0 + i;
        for (int r = 0; r < size; ++r) {
            MPI_Datatype theirs;
            CHECK_SUCCESS(make_type(&c, size, r, large, &theirs));
            MPI_Type_commit(&theirs);
            MPI_Send(global, 1, theirs, r, 7, MPI_COMM_WORLD);
            MPI_Type_free(&theirs);
        }
    }
    MPI_Status status;
    MPI_Wait(&req, &status);
    int got = -1;
    MPI_Get_count(&status, MPI_DOUBLE, &got);
    CHECK_INT(got, n);
    for (int i = 0; i < n; ++i)
        CHECK(local[i] == 1000.0 + expect[i], "element %d is %g, expected global index %d", i,
              local[i], expect[i]);

    /* Gather back: contiguous sends, received with each rank's type. */
    for (int i = 0; i < n; ++i)
        local[i] = -(double)expect[i] - 1;
    MPI_Isend(local, n, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &req);
    if (rank == 0) {
        for (int i = 0; i < total; ++i)
            global[i] = 0;
        for (int r = 0; r < size; ++r) {
            MPI_Datatype theirs;
            make_type(&c, size, r, large, &theirs);
            MPI_Type_commit(&theirs);
            MPI_Recv(global, 1, theirs, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Type_free(&theirs);
        }
        for (int i = 0; i < total; ++i)
            CHECK(global[i] == -(double)i - 1, "global element %d is %g after the gather", i,
                  global[i]);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* Decoding gives back the arguments. */
    MPI_Count ni, na, nc, nt;
    int combiner;
    MPI_Type_get_envelope_c(mine, &ni, &na, &nc, &nt, &combiner);
    CHECK_INT(combiner, MPI_COMBINER_DARRAY);
    CHECK_INT((long)nt, 1);
    if (large) {
        CHECK_INT((long)ni, 3 * c.ndims + 4);
        CHECK_INT((long)nc, c.ndims);
    } else {
        CHECK_INT((long)ni, 4 * c.ndims + 4);
        CHECK_INT((long)nc, 0);
        int ints[4 * MAXDIMS + 4];
        MPI_Datatype old;
        MPI_Type_get_contents(mine, 4 * MAXDIMS + 4, 0, 1, ints, NULL, &old);
        CHECK_INT(ints[0], size);
        CHECK_INT(ints[1], rank);
        CHECK_INT(ints[2], c.ndims);
        for (int d = 0; d < c.ndims; ++d) {
            CHECK_INT(ints[3 + d], c.gsizes[d]);
            CHECK_INT(ints[3 + c.ndims + d], c.distribs[d]);
            CHECK_INT(ints[3 + 2 * c.ndims + d], c.dargs[d]);
            CHECK_INT(ints[3 + 3 * c.ndims + d], c.psizes[d]);
        }
        CHECK_INT(ints[3 + 4 * c.ndims], c.order);
        CHECK(old == MPI_DOUBLE, "old type is not MPI_DOUBLE");
    }
    MPI_Type_free(&mine);
    free(global);
    free(local);
    free(expect);
}

static void check_errors(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int g[2] = {10, 10}, blk[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int p[2] = {size, 1};
    int rc;
    /* the process grid does not match size */
    int pbad[2] = {size + 1, 1};
    rc = MPI_Type_create_darray(size, 0, 2, g, blk, dflt, pbad, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "array_of_psizes");
    /* rank outside 0..size-1 */
    rc = MPI_Type_create_darray(size, size, 2, g, blk, dflt, p, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    /* block size too small to cover the dimension */
    int small[2] = {1, MPI_DISTRIBUTE_DFLT_DARG};
    int g2[2] = {size + 1, 4};
    rc = MPI_Type_create_darray(size, 0, 2, g2, blk, small, p, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "array_of_dargs[0]");
    /* cyclic with a non-positive block */
    int cyc[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    int zero[2] = {0, MPI_DISTRIBUTE_DFLT_DARG};
    rc = MPI_Type_create_darray(size, 0, 2, g, cyc, zero, p, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "array_of_dargs[0]=0");
    /* MPI_DISTRIBUTE_NONE over more than one process */
    if (size > 1) {
        int none[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
        rc = MPI_Type_create_darray(size, 0, 2, g, none, dflt, p, MPI_ORDER_C, MPI_INT, &t);
        CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
        CHECK_ERR_STRING(rc, "MPI_DISTRIBUTE_NONE");
    }
    /* an unknown distribution, a bad order, a bad size */
    int bogus[2] = {77, MPI_DISTRIBUTE_BLOCK};
    rc = MPI_Type_create_darray(size, 0, 2, g, bogus, dflt, p, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "array_of_distribs[0]=77");
    rc = MPI_Type_create_darray(size, 0, 2, g, blk, dflt, p, 12345, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "order");
    int gneg[2] = {10, -3};
    rc = MPI_Type_create_darray(size, 0, 2, gneg, blk, dflt, p, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "array_of_gsizes[1]");
    rc = MPI_Type_create_darray(size, 0, 2, g, blk, dflt, p, MPI_ORDER_C, MPI_DATATYPE_NULL, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    CHECK(t == MPI_DATATYPE_NULL, "a failed call made a type");
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
    const int D = MPI_DISTRIBUTE_DFLT_DARG;
    const Case cases[] = {
        {1, {17}, {B}, {D}, {0}, MPI_ORDER_C},
        {1, {17}, {C}, {D}, {0}, MPI_ORDER_C},
        {1, {23}, {C}, {3}, {0}, MPI_ORDER_FORTRAN},
        {1, {23}, {B}, {12}, {0}, MPI_ORDER_C}, /* block(12): with 3 processes the last owns nothing
                                                 */
        {2, {7, 9}, {B, C}, {D, 2}, {0}, MPI_ORDER_C},
        {2, {7, 9}, {B, C}, {D, 2}, {0}, MPI_ORDER_FORTRAN},
        {2, {6, 11}, {N, C}, {D, 4}, {1, 0}, MPI_ORDER_C},
        {2, {6, 11}, {C, N}, {D, D}, {0, 1}, MPI_ORDER_FORTRAN},
        {3, {5, 4, 7}, {C, B, C}, {2, D, 3}, {0}, MPI_ORDER_C},
        {3, {5, 4, 7}, {B, N, C}, {D, D, 1}, {0, 1, 0}, MPI_ORDER_FORTRAN},
        {2, {1, 1}, {B, B}, {D, D}, {0}, MPI_ORDER_C}, /* more processes than elements */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_case(cases[i], 0);
        run_case(cases[i], 1);
    }
    check_errors();
    return mtest_finish();
}
