/* More ranks than cores: every rank exchanges messages with every other rank
 * with Isend/Irecv + Waitall, many rounds, small and large messages. A wait
 * that spins without yielding starves the peers it waits for; the test has a
 * time limit in the testlist and reports its own duration. */
#include "mtest.h"

#define ROUNDS 30

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int maxlen = 6000;
    int *sb = malloc((size_t)size * maxlen * sizeof(int));
    int *rb = malloc((size_t)size * maxlen * sizeof(int));
    MPI_Request *req = malloc(2 * size * sizeof(MPI_Request));
    MPI_Status *sts = malloc(2 * size * sizeof(MPI_Status));
    double t0 = MPI_Wtime();

    for (int round = 0; round < ROUNDS; round++) {
        int nreq = 0;
/* message length from s to d in this round: some above the eager limit */
#define LEN(s, d) (((s)*31 + (d)*17 + round * 7) % 5 == 0 ? maxlen : 1 + ((s) + (d) + round) % 300)
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            int n = LEN(p, rank);
            for (int i = 0; i < n; i++)
                rb[(size_t)p * maxlen + i] = -1;
            /* alternate named and wildcard sources; tags identify the sender */
            int src = (round % 2) ? p : MPI_ANY_SOURCE;
            if (src == MPI_ANY_SOURCE)
                CHECK_SUCCESS(MPI_Irecv(rb + (size_t)p * maxlen, maxlen, MPI_INT, MPI_ANY_SOURCE,
                                        round * 1000 + p, MPI_COMM_WORLD, &req[nreq++]));
            else
                CHECK_SUCCESS(MPI_Irecv(rb + (size_t)p * maxlen, maxlen, MPI_INT, p,
                                        round * 1000 + p, MPI_COMM_WORLD, &req[nreq++]));
        }
        for (int k = 1; k < size; k++) {
            int p = (rank + k) % size; /* stagger the destinations */
            int n = LEN(rank, p);
            for (int i = 0; i < n; i++)
                sb[(size_t)p * maxlen + i] = mtest_pattern(rank, round * 64 + p, i);
            CHECK_SUCCESS(MPI_Isend(sb + (size_t)p * maxlen, n, MPI_INT, p, round * 1000 + rank,
                                    MPI_COMM_WORLD, &req[nreq++]));
        }
        CHECK_SUCCESS(MPI_Waitall(nreq, req, sts));
        int k = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            int n = LEN(p, rank), c = -1;
            MPI_Get_count(&sts[k], MPI_INT, &c);
            CHECK(sts[k].MPI_SOURCE == p && c == n,
                  "round %d: from %d: source %d count %d, expected %d", round, p, sts[k].MPI_SOURCE,
                  c, n);
            k++;
            for (int i = 0; i < n; i++)
                if (rb[(size_t)p * maxlen + i] != mtest_pattern(p, round * 64 + rank, i)) {
                    CHECK(0, "round %d: from %d element %d is %d", round, p, i,
                          rb[(size_t)p * maxlen + i]);
                    break;
                }
        }
        /* every few rounds a blocking ring pass as well */
        if (round % 5 == 0) {
            int token = rank * 1000 + round, got = -1;
            CHECK_SUCCESS(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 32000, &got, 1,
                                       MPI_INT, (rank + size - 1) % size, 32000, MPI_COMM_WORLD,
                                       MPI_STATUS_IGNORE));
            CHECK_INT(got, ((rank + size - 1) % size) * 1000 + round);
        }
    }
    double dt = MPI_Wtime() - t0, maxdt = 0;
    MPI_Reduce(&dt, &maxdt, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %d rounds: %.2f s\n", size, ROUNDS, maxdt);
    free(sb);
    free(rb);
    free(req);
    free(sts);
    return mtest_finish();
}
