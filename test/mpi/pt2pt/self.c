/* Messages from a rank to itself, on MPI_COMM_WORLD and MPI_COMM_SELF:
 * sizes from 0 to 4 MiB (nonblocking send, blocking receive), Issend that
 * completes only after the receive, probes, wildcards, and Sendrecv_replace. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int sizes[] = {0, 1, 4095, 4096, 4097, 16384, 65536, 262144, 1048576};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    int maxn = 1048576; /* ints: 4 MiB */
    int *s = malloc(maxn * sizeof(int)), *r = malloc((maxn + 1) * sizeof(int));
    MPI_Status st;
    MPI_Request req;
    MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};

    for (int ci = 0; ci < 2; ci++) {
        MPI_Comm comm = comms[ci];
        int me;
        MPI_Comm_rank(comm, &me);
        for (int k = 0; k < nsizes; k++) {
            int n = sizes[k], tag = k + 10 * ci;
            for (int i = 0; i < n; i++)
                s[i] = mtest_pattern(rank, tag, i);
            for (int i = 0; i <= n; i++)
                r[i] = -1;
            CHECK_SUCCESS(MPI_Isend(s, n, MPI_INT, me, tag, comm, &req));
            /* the message is visible to a probe before it is received */
            CHECK_SUCCESS(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            int c = -1;
            MPI_Get_count(&st, MPI_INT, &c);
            CHECK(st.MPI_SOURCE == me && st.MPI_TAG == tag && c == n,
                  "probe self (n=%d): source %d tag %d count %d", n, st.MPI_SOURCE, st.MPI_TAG, c);
            CHECK_SUCCESS(MPI_Recv(r, n + 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st));
            CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
            MPI_Get_count(&st, MPI_INT, &c);
            CHECK(st.MPI_SOURCE == me && c == n, "self n=%d: source %d count %d", n, st.MPI_SOURCE,
                  c);
            for (int i = 0; i < n; i++)
                if (r[i] != mtest_pattern(rank, tag, i)) {
                    CHECK(0, "self n=%d comm %d: element %d is %d", n, ci, i, r[i]);
                    break;
                }
            CHECK(r[n] == -1, "self n=%d: wrote past the message", n);
        }
        /* receive posted first, then a large Issend */
        {
            int n = 300000, flag = 1;
            MPI_Request rr, sr;
            for (int i = 0; i < n; i++)
                s[i] = mtest_pattern(rank, 99, i);
            CHECK_SUCCESS(MPI_Irecv(r, n, MPI_INT, me, 99, comm, &rr));
            CHECK_SUCCESS(MPI_Issend(s, n, MPI_INT, me, 99, comm, &sr));
            MPI_Request both[2] = {rr, sr};
            MPI_Status sts[2];
            CHECK_SUCCESS(MPI_Waitall(2, both, sts));
            for (int i = 0; i < n; i++)
                if (r[i] != mtest_pattern(rank, 99, i)) {
                    CHECK(0, "Irecv+Issend self: element %d is %d", i, r[i]);
                    break;
                }
            /* an Issend to self does not complete while no receive is posted */
            int v = 5, w = 0;
            CHECK_SUCCESS(MPI_Issend(&v, 1, MPI_INT, me, 98, comm, &sr));
            for (int i = 0; i < 100 && flag; i++)
                CHECK_SUCCESS(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "Issend to self completed without a receive");
            CHECK_SUCCESS(MPI_Recv(&w, 1, MPI_INT, me, 98, comm, MPI_STATUS_IGNORE));
            if (!flag)
                CHECK_SUCCESS(MPI_Wait(&sr, MPI_STATUS_IGNORE));
            CHECK_INT(w, 5);
        }
        /* Sendrecv and Sendrecv_replace with itself, large */
        {
            int n = 200000;
            for (int i = 0; i < n; i++)
                r[i] = mtest_pattern(rank, 97, i);
            CHECK_SUCCESS(MPI_Sendrecv_replace(r, n, MPI_INT, me, 97, me, 97, comm, &st));
            for (int i = 0; i < n; i++)
                if (r[i] != mtest_pattern(rank, 97, i)) {
                    CHECK(0, "Sendrecv_replace self: element %d is %d", i, r[i]);
                    break;
                }
        }
    }
    free(s);
    free(r);
    return mtest_finish();
}
