/* MPI_Dims_create against a brute-force search: for every nnodes up to 64
 * (and a few larger) and 1..4 dimensions, with and without fixed entries,
 * the result multiplies to nnodes, keeps the fixed entries, is
 * non-increasing over the free ones, and its largest free factor is the
 * smallest possible (then its spread). Error paths: MPI_ERR_DIMS. */
#include "mtest.h"

static int best_max, best_spread;

/* All non-increasing factorizations of n into k factors <= cap. */
static void search(int n, int k, int cap, int first, int cur_max)
{
    if (k == 1) {
        if (n > cap)
            return;
        int mx = cur_max ? cur_max : n, spread = mx - n;
        if (mx < best_max || (mx == best_max && spread < best_spread)) {
            best_max = mx;
            best_spread = spread;
        }
        return;
    }
    for (int f = cap < n ? cap : n; f >= 1; f--)
        if (n % f == 0)
            search(n / f, k - 1, f, 0, first ? f : cur_max);
}

static void check(int nnodes, int ndims, const int *fixed)
{
    int dims[8];
    int fixed_prod = 1, nfree = 0;
    for (int i = 0; i < ndims; i++) {
        dims[i] = fixed[i];
        if (fixed[i])
            fixed_prod *= fixed[i];
        else
            nfree++;
    }
    CHECK_SUCCESS(MPI_Dims_create(nnodes, ndims, dims));
    long prod = 1;
    int prev = 1 << 30, mx = 0, mn = 1 << 30;
    for (int i = 0; i < ndims; i++) {
        prod *= dims[i];
        if (fixed[i]) {
            CHECK_INT(dims[i], fixed[i]);
        } else {
            CHECK(dims[i] <= prev, "nnodes %d ndims %d: dims[%d]=%d increases", nnodes, ndims, i,
                  dims[i]);
            prev = dims[i];
            if (dims[i] > mx)
                mx = dims[i];
            if (dims[i] < mn)
                mn = dims[i];
        }
    }
    CHECK(prod == nnodes, "nnodes %d ndims %d: product %ld", nnodes, ndims, prod);
    if (nfree > 0) {
        best_max = 1 << 30;
        best_spread = 1 << 30;
        search(nnodes / fixed_prod, nfree, nnodes / fixed_prod, 1, 0);
        CHECK(mx == best_max && mx - mn == best_spread,
              "nnodes %d ndims %d: max %d spread %d, best %d %d", nnodes, ndims, mx, mx - mn,
              best_max, best_spread);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int zero[8] = {0};
    for (int n = 1; n <= 64; n++)
        for (int d = 1; d <= 4; d++)
            check(n, d, zero);
    int big[] = {96, 120, 210, 360, 1000, 1024, 4096, 65536, 997, 1000003};
    for (int i = 0; i < (int)(sizeof big / sizeof big[0]); i++)
        for (int d = 1; d <= 4; d++)
            check(big[i], d, zero);
    int fixed1[3] = {0, 3, 0};
    check(36, 3, fixed1);
    check(6, 3, fixed1);
    int fixed2[2] = {2, 0};
    check(16, 2, fixed2);
    int allfixed[2] = {3, 4};
    check(12, 2, allfixed);
    int dims0[1];
    CHECK_SUCCESS(MPI_Dims_create(5, 0, dims0));

    /* Errors */
    int bad[2] = {0, 5};
    CHECK_ERR_CLASS(MPI_Dims_create(12, 2, bad), MPI_ERR_DIMS); /* 5 does not divide 12 */
    int neg[2] = {-1, 0};
    CHECK_ERR_CLASS(MPI_Dims_create(12, 2, neg), MPI_ERR_DIMS);
    int wrongfixed[2] = {3, 3};
    CHECK_ERR_CLASS(MPI_Dims_create(12, 2, wrongfixed), MPI_ERR_DIMS);
    int d2[2] = {0, 0};
    CHECK_ERR_CLASS(MPI_Dims_create(12, -1, d2), MPI_ERR_DIMS);
    CHECK_ERR_CLASS(MPI_Dims_create(0, 2, d2), MPI_ERR_DIMS);
    return mtest_finish();
}
