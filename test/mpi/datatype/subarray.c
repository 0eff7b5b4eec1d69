/* MPI_Type_create_subarray(_c) in C and Fortran order, 1 to 3 dimensions:
 * sent around a ring and compared with a serial selection of the same
 * elements; bounds (lb 0, extent of the whole array), decoding, and the
 * argument errors. */
#include "mtest.h"

#define MAXN 256

/* Index of element (i0, i1, i2) in an array of `sizes`, in `order`. */
static int index_of(int ndims, const int sizes[], const int idx[], int order)
{
    int at = 0;
    if (order == MPI_ORDER_C) {
        for (int d = 0; d < ndims; ++d)
            at = at * sizes[d] + idx[d];
    } else {
        for (int d = ndims - 1; d >= 0; --d)
            at = at * sizes[d] + idx[d];
    }
    return at;
}

/* The elements of the subarray in the order MPI packs them (the order's
 * fastest dimension varies fastest). */
static int select_serial(int ndims, const int sizes[], const int subs[], const int starts[],
                         int order, int out[])
{
    int n = 1, idx[3];
    for (int d = 0; d < ndims; ++d)
        n *= subs[d];
    for (int k = 0; k < n; ++k) {
        int rest = k;
        if (order == MPI_ORDER_C) {
            for (int d = ndims - 1; d >= 0; --d) {
                idx[d] = starts[d] + rest % subs[d];
                rest /= subs[d];
            }
        } else {
            for (int d = 0; d < ndims; ++d) {
                idx[d] = starts[d] + rest % subs[d];
                rest /= subs[d];
            }
        }
        out[k] = index_of(ndims, sizes, idx, order);
    }
    return n;
}

static void run_case(int ndims, const int sizes[], const int subs[], const int starts[], int order,
                     int large)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t;
    if (large) {
        MPI_Count cs[3], cu[3], cst[3];
        for (int d = 0; d < ndims; ++d) {
            cs[d] = sizes[d];
            cu[d] = subs[d];
            cst[d] = starts[d];
        }
        CHECK_SUCCESS(MPI_Type_create_subarray_c(ndims, cs, cu, cst, order, MPI_INT, &t));
    } else {
        CHECK_SUCCESS(MPI_Type_create_subarray(ndims, sizes, subs, starts, order, MPI_INT, &t));
    }
    MPI_Type_commit(&t);
    int total = 1, n = 1;
    for (int d = 0; d < ndims; ++d) {
        total *= sizes[d];
        n *= subs[d];
    }
    MPI_Aint lb = -1, extent = -1;
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK_INT((long)lb, 0);
    CHECK_INT((long)extent, (long)(total * sizeof(int)));
    int tsize = 0;
    MPI_Type_size(t, &tsize);
    CHECK_INT(tsize, n * (int)sizeof(int));

    int array[MAXN], recv[MAXN], expect_idx[MAXN];
    for (int i = 0; i < total; ++i)
        array[i] = rank * 1000 + i;
    const int from = (rank + size - 1) % size;
    /* Subarray to a contiguous receive: the serial selection, in order. */
    MPI_Sendrecv(array, 1, t, (rank + 1) % size, 1, recv, n, MPI_INT, from, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    select_serial(ndims, sizes, subs, starts, order, expect_idx);
    for (int k = 0; k < n; ++k)
        CHECK(recv[k] == from * 1000 + expect_idx[k], "ndims %d order %d element %d: %d, want %d",
              ndims, order, k, recv[k], from * 1000 + expect_idx[k]);
    /* Contiguous to a subarray receive: only the subarray's elements change. */
    for (int i = 0; i < total; ++i)
        array[i] = -1;
    int packed[MAXN];
    for (int k = 0; k < n; ++k)
        packed[k] = rank * 1000 + k;
    MPI_Sendrecv(packed, n, MPI_INT, (rank + 1) % size, 2, array, 1, t, from, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int changed = 0;
    for (int i = 0; i < total; ++i)
        changed += array[i] != -1;
    CHECK_INT(changed, n);
    for (int k = 0; k < n; ++k)
        CHECK_INT(array[expect_idx[k]], from * 1000 + k);

    /* Decoding gives back the arguments. */
    MPI_Count ni, na, nc, nd;
    int comb;
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
    CHECK_INT(comb, MPI_COMBINER_SUBARRAY);
    CHECK_INT((long)nd, 1);
    if (!large) {
        int ints[16];
        MPI_Aint aints[1];
        MPI_Datatype types[1];
        CHECK_INT((long)ni, 3 * ndims + 2);
        CHECK_SUCCESS(MPI_Type_get_contents(t, 16, 0, 1, ints, aints, types));
        CHECK_INT(ints[0], ndims);
        CHECK_INT(ints[1 + ndims], subs[0]);
        CHECK_INT(ints[1 + 2 * ndims], starts[0]);
        CHECK_INT(ints[1 + 3 * ndims], order);
        CHECK(types[0] == MPI_INT, "old type");
    } else {
        CHECK_INT((long)ni, 2);
        CHECK_INT((long)nc, 3 * ndims);
    }
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    const int s1[] = {9}, u1[] = {4}, t1[] = {3};
    const int s2[] = {5, 7}, u2[] = {3, 2}, t2[] = {1, 4};
    const int s3[] = {4, 5, 6}, u3[] = {2, 3, 2}, t3[] = {1, 2, 3};
    for (int large = 0; large <= 1; ++large) {
        for (int order = 0; order < 2; ++order) {
            const int o = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
            run_case(1, s1, u1, t1, o, large);
            run_case(2, s2, u2, t2, o, large);
            run_case(3, s3, u3, t3, o, large);
        }
    }
    /* Errors name the argument. */
    MPI_Datatype t;
    const int bad_start[] = {1, 6};
    int rc = MPI_Type_create_subarray(2, s2, u2, bad_start, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "array_of_starts[1]");
    const int bad_sub[] = {6, 2};
    rc = MPI_Type_create_subarray(2, s2, bad_sub, t2, MPI_ORDER_C, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "array_of_subsizes[0]");
    rc = MPI_Type_create_subarray(2, s2, u2, t2, 77, MPI_INT, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
    CHECK_ERR_STRING(rc, "order");
    rc = MPI_Type_create_subarray(2, s2, u2, t2, MPI_ORDER_C, MPI_DATATYPE_NULL, &t);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    return mtest_finish();
}
