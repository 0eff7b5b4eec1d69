/* MPI_Dims_create against a brute-force search: for every nnodes up to 64
 * (and a few larger) and 1..4 dimensions, with and without fixed entries,
 * the result multiplies to nnodes, keeps the fixed entries, is
 * non-increasing over the free ones, and its spread (largest minus
 * smallest free factor) is the smallest possible; and, exactly, MPICH's
 * results for n <= 64 in 2..4 dimensions (a table) and for larger cases
 * where the smallest largest factor is not MPICH's choice (360 in 3:
 * 10x6x6, not 9x8x5) or n is large. Error paths: MPI_ERR_DIMS. */
#include <stdio.h>
#include "mtest.h"

static int best_spread;

/* All non-increasing factorizations of n into k factors <= cap; `largest`
 * is the first (largest) factor, 0 before it is chosen. */
static void search(int n, int k, int cap, int largest)
{
    if (k == 1) {
        if (n > cap)
            return;
        int spread = (largest ? largest : n) - n;
        if (spread < best_spread)
            best_spread = spread;
        return;
    }
    for (int f = cap < n ? cap : n; f >= 1; f--)
        if (n % f == 0)
            search(n / f, k - 1, f, largest ? largest : f);
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
        best_spread = 1 << 30;
        search(nnodes / fixed_prod, nfree, nnodes / fixed_prod, 0);
        CHECK(mx - mn == best_spread, "nnodes %d ndims %d: spread %d, smallest possible %d", nnodes,
              ndims, mx - mn, best_spread);
    }
}

/* MPICH's MPI_Dims_create(n, ndims, all zero) for n = 1..64, ndims = 2..4, in
 * order of n (its balance rule: the smallest spread, then the largest
 * smallest factor: 20 in 4 dimensions is 5x2x2x1, not 5x4x1x1). */
static const char *const expected[3] = {
    /* ndims 2 */
    "1x1 2x1 3x1 2x2 5x1 3x2 7x1 4x2 3x3 5x2 11x1 4x3 13x1 7x2 5x3 4x4 17x1 6x3 19x1 5x4 7x3 "
    "11x2 23x1 6x4 5x5 13x2 9x3 7x4 29x1 6x5 31x1 8x4 11x3 17x2 7x5 6x6 37x1 19x2 13x3 8x5 41x1 "
    "7x6 43x1 11x4 9x5 23x2 47x1 8x6 7x7 10x5 17x3 13x4 53x1 9x6 11x5 8x7 19x3 29x2 59x1 10x6 "
    "61x1 31x2 9x7 8x8",
    /* ndims 3 */
    "1x1x1 2x1x1 3x1x1 2x2x1 5x1x1 3x2x1 7x1x1 2x2x2 3x3x1 5x2x1 11x1x1 3x2x2 13x1x1 7x2x1 "
    "5x3x1 4x2x2 17x1x1 3x3x2 19x1x1 5x2x2 7x3x1 11x2x1 23x1x1 4x3x2 5x5x1 13x2x1 3x3x3 7x2x2 "
    "29x1x1 5x3x2 31x1x1 4x4x2 11x3x1 17x2x1 7x5x1 4x3x3 37x1x1 19x2x1 13x3x1 5x4x2 41x1x1 "
    "7x3x2 43x1x1 11x2x2 5x3x3 23x2x1 47x1x1 4x4x3 7x7x1 5x5x2 17x3x1 13x2x2 53x1x1 6x3x3 "
    "11x5x1 7x4x2 19x3x1 29x2x1 59x1x1 5x4x3 61x1x1 31x2x1 7x3x3 4x4x4",
    /* ndims 4 */
    "1x1x1x1 2x1x1x1 3x1x1x1 2x2x1x1 5x1x1x1 3x2x1x1 7x1x1x1 2x2x2x1 3x3x1x1 5x2x1x1 11x1x1x1 "
    "3x2x2x1 13x1x1x1 7x2x1x1 5x3x1x1 2x2x2x2 17x1x1x1 3x3x2x1 19x1x1x1 5x2x2x1 7x3x1x1 "
    "11x2x1x1 23x1x1x1 3x2x2x2 5x5x1x1 13x2x1x1 3x3x3x1 7x2x2x1 29x1x1x1 5x3x2x1 31x1x1x1 "
    "4x2x2x2 11x3x1x1 17x2x1x1 7x5x1x1 3x3x2x2 37x1x1x1 19x2x1x1 13x3x1x1 5x2x2x2 41x1x1x1 "
    "7x3x2x1 43x1x1x1 11x2x2x1 5x3x3x1 23x2x1x1 47x1x1x1 4x3x2x2 7x7x1x1 5x5x2x1 17x3x1x1 "
    "13x2x2x1 53x1x1x1 3x3x3x2 11x5x1x1 7x2x2x2 19x3x1x1 29x2x1x1 59x1x1x1 5x3x2x2 61x1x1x1 "
    "31x2x1x1 7x3x3x1 4x4x2x2"};

/* The table above, entry by entry. */
static void check_table(void)
{
    for (int nd = 2; nd <= 4; nd++) {
        const char *p = expected[nd - 2];
        for (int n = 1; n <= 64; n++) {
            int want[4] = {0}, got[4] = {0}, used = 0;
            for (int i = 0; i < nd; i++) {
                sscanf(p, "%d%n", &want[i], &used);
                p += used;
                if (*p)
                    p++; /* 'x' or ' ' */
            }
            CHECK_SUCCESS(MPI_Dims_create(n, nd, got));
            for (int i = 0; i < nd; i++)
                CHECK(got[i] == want[i], "MPI_Dims_create(%d, %d): dims[%d] = %d, MPICH gives %d",
                      n, nd, i, got[i], want[i]);
        }
    }
}

/* Larger cases, as Debian's MPICH 4.0.2 answers them. */
static void check_large(void)
{
    static const struct {
        int n, nd, want[6];
    } cases[] = {
        {360, 3, {10, 6, 6}},
        {5040, 3, {21, 16, 15}},
        {1000, 3, {10, 10, 10}},
        {72, 2, {9, 8}},
        {802067424, 2, {8354869, 96}},
        {1051550460, 5, {21557, 271, 6, 6, 5}},
        {1554416255, 5, {232523, 191, 7, 5, 1}},
        {551188311, 6, {16447, 11171, 3, 1, 1, 1}},
        {1441282841, 3, {1441282841, 1, 1}},
    };
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        int got[6] = {0};
        CHECK_SUCCESS(MPI_Dims_create(cases[c].n, cases[c].nd, got));
        for (int i = 0; i < cases[c].nd; i++)
            CHECK(got[i] == cases[c].want[i],
                  "MPI_Dims_create(%d, %d): dims[%d] = %d, MPICH gives %d", cases[c].n, cases[c].nd,
                  i, got[i], cases[c].want[i]);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    check_table();
    check_large();
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
