/* Nonblocking collectives progress while the caller computes and only
 * polls MPI_Test: MPI_Iallreduce of 1 MiB (every algorithm, by testlist),
 * MPI_Ibcast and MPI_Ialltoall, each completed by MPI_Test calls made
 * between slices of computation, never by MPI_Wait, with the results
 * checked. Also: several collectives in flight at once on one
 * communicator, completed in reverse order, and a persistent collective
 * freed while active. */
#include "mtest.h"

static volatile double sink;
static void compute_us(double us)
{
    double t0 = MPI_Wtime(), x = 1.0;
    while ((MPI_Wtime() - t0) * 1e6 < us)
        for (int i = 0; i < 100; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Computes in 50 us slices, testing in between; returns the number of tests. */
static int compute_until_done(MPI_Request *req, const char *what)
{
    int flag = 0, tests = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 60.0) {
        compute_us(50);
        CHECK_SUCCESS(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
        tests++;
    }
    CHECK(flag, "%s did not complete within 60 s of computing and testing", what);
    if (!flag)
        MPI_Wait(req, MPI_STATUS_IGNORE);
    return tests;
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 18; /* 1 MiB of ints */
    int *in = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
    MPI_Request req;

    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < n; i++) {
            in[i] = rank + i % 1000 + rep;
            out[i] = -1;
        }
        CHECK_SUCCESS(MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        compute_until_done(&req, "MPI_Iallreduce");
        for (int i = 0; i < n; i++) {
            long want = (long)size * (i % 1000 + rep) + (long)size * (size - 1) / 2;
            if (out[i] != want) {
                CHECK(0, "iallreduce [%d]=%d want %ld", i, out[i], want);
                break;
            }
        }
    }

    for (int i = 0; i < n; i++)
        out[i] = rank == 1 % size ? i : -1;
    CHECK_SUCCESS(MPI_Ibcast(out, n, MPI_INT, 1 % size, MPI_COMM_WORLD, &req));
    compute_until_done(&req, "MPI_Ibcast");
    for (int i = 0; i < n; i++)
        if (out[i] != i) {
            CHECK(0, "ibcast [%d]=%d", i, out[i]);
            break;
        }

    int per = n / size;
    for (int i = 0; i < per * size; i++)
        in[i] = rank * 1000000 + i;
    CHECK_SUCCESS(MPI_Ialltoall(in, per, MPI_INT, out, per, MPI_INT, MPI_COMM_WORLD, &req));
    compute_until_done(&req, "MPI_Ialltoall");
    for (int r = 0; r < size; r++)
        for (int i = 0; i < per; i++)
            if (out[r * per + i] != r * 1000000 + rank * per + i) {
                CHECK(0, "ialltoall from %d [%d]", r, i);
                r = size;
                break;
            }

    /* Several in flight, completed in reverse order. */
    enum { K = 6 };
    MPI_Request reqs[K];
    int vals[K], res[K];
    for (int k = 0; k < K; k++) {
        vals[k] = rank * (k + 1);
        if (k % 2)
            CHECK_SUCCESS(
                MPI_Iallreduce(&vals[k], &res[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k]));
        else
            CHECK_SUCCESS(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[k]));
    }
    for (int k = K - 1; k >= 0; k--)
        CHECK_SUCCESS(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
    for (int k = 1; k < K; k += 2)
        CHECK_INT(res[k], (k + 1) * size * (size - 1) / 2);

    /* A pt2pt wait must also progress a collective in flight: rank 0
     * starts an ibarrier, then waits for a message that its peers send only
     * after their own barrier completed. */
    if (size > 1) {
        CHECK_SUCCESS(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        if (rank == 0) {
            for (int r = 1; r < size; r++) {
                int token;
                CHECK_SUCCESS(
                    MPI_Recv(&token, 1, MPI_INT, r, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            }
            CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK_SUCCESS(MPI_Send(&rank, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
        }
    }

    /* Persistent collective freed while active, then a blocking one. */
    static int one = 1, total = 0, freed_result = 0;
    CHECK_SUCCESS(MPI_Allreduce_init(&one, &freed_result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &req));
    CHECK_SUCCESS(MPI_Start(&req));
    int flag = 1;
    CHECK_SUCCESS(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
    CHECK_SUCCESS(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL, "request not nulled by MPI_Request_free");
    CHECK_SUCCESS(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(total, size);
    /* Startall over two persistent collectives. */
    MPI_Request two[2];
    int a = rank, b = 2 * rank, ra = 0, rb = 0;
    CHECK_SUCCESS(
        MPI_Allreduce_init(&a, &ra, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]));
    CHECK_SUCCESS(
        MPI_Allreduce_init(&b, &rb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]));
    for (int k = 0; k < 3; k++) {
        CHECK_SUCCESS(MPI_Startall(2, two));
        CHECK_SUCCESS(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
        CHECK_INT(ra, size - 1);
        CHECK_INT(rb, size * (size - 1));
    }
    MPI_Request_free(&two[0]);
    MPI_Request_free(&two[1]);
    free(in);
    free(out);
    return mtest_finish();
}
