/* Context ids run out: duplicating without freeing ends with MPI_ERR_OTHER
 * ("out of context ids") on every process at the same call; freeing one
 * communicator makes the next duplicate succeed again. */
#include "mtest.h"

enum { kMax = 40000 };
static MPI_Comm comms[kMax];

int main(int argc, char **argv)
{
    int rank, rc = MPI_SUCCESS, n = 0;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (n < kMax) {
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &comms[n]);
        if (rc != MPI_SUCCESS)
            break;
        n++;
    }
    CHECK_ERR_CLASS(rc, MPI_ERR_OTHER);
    CHECK_ERR_STRING(rc, "context id");
    /* 2^15 even ids, minus MPI_COMM_WORLD, MPI_COMM_SELF, the 64 ids
     * reserved for group-only constructions (MPI_Comm_create_group ...) and
     * the 64 of the local pool (communicators of one process). */
    CHECK_INT(n, 32768 - 2 - 64 - 64);
    int lo = n, hi = n;
    MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "processes ran out at different counts: %d..%d", lo, hi);

    /* Free one in the middle: the next dup reuses its id and works. */
    if (n > 100) {
        CHECK_SUCCESS(MPI_Comm_free(&comms[100]));
        CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &comms[100]));
        int v = 1, sum = 0, size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK_SUCCESS(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comms[100]));
        CHECK_INT(sum, size);
    }
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&comms[i]);
    return mtest_finish();
}
