/* MPI_Cancel of sends (MPI 4.0 semantics): after MPI_Cancel, completing the
 * send is local (it must not wait for the receiver), and either the send was
 * cancelled and is never delivered, or it was not and arrives intact. Checked
 * for a message above the eager limit and a small one. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, flag;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;
    MPI_Request req;

    /* either cancelled (never delivered) or delivered intact */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank, n = 30000;
        int *big = malloc(n * sizeof(int));
        for (int k = 0; k < 2; k++) { /* a rendezvous-size and an eager-size send */
            int len = k == 0 ? n : 10, tag = 300 + k;
            if (rank == 0) {
                for (int i = 0; i < len; i++)
                    big[i] = mtest_pattern(0, tag, i);
                CHECK_SUCCESS(MPI_Isend(big, len, MPI_INT, peer, tag, MPI_COMM_WORLD, &req));
                CHECK_SUCCESS(MPI_Cancel(&req));
                /* completion after a cancel is local: it must not need the receiver.
                 * Test for a while instead of waiting, so that a failure is reported
                 * rather than hanging. */
                int done = 0, cancelled = -1;
                double t0 = MPI_Wtime();
                while (!done && MPI_Wtime() - t0 < 5.0)
                    CHECK_SUCCESS(MPI_Test(&req, &done, &st));
                CHECK(done,
                      "send of %d ints marked for cancellation did not complete locally within 5 s",
                      len);
                if (done)
                    CHECK_SUCCESS(MPI_Test_cancelled(&st, &cancelled));
                /* tell the receiver: 1 cancelled, 0 delivered, 2 still pending */
                int what = done ? cancelled : 2;
                MPI_Send(&what, 1, MPI_INT, peer, 400 + k, MPI_COMM_WORLD);
                if (!done)
                    CHECK_SUCCESS(MPI_Wait(&req, &st));
            } else {
                int cancelled = -1;
                MPI_Recv(&cancelled, 1, MPI_INT, peer, 400 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(cancelled >= 0 && cancelled <= 2, "Test_cancelled gave %d", cancelled);
                if (cancelled == 1) {
                    for (int i = 0; i < 100; i++) {
                        CHECK_SUCCESS(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, &st));
                        CHECK(!flag, "a cancelled send (%d ints) was delivered", len);
                        if (flag)
                            break;
                    }
                } else {
                    for (int i = 0; i < len; i++)
                        big[i] = -1;
                    CHECK_SUCCESS(MPI_Recv(big, len, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
                    for (int i = 0; i < len; i++)
                        if (big[i] != mtest_pattern(0, tag, i)) {
                            CHECK(0, "send not cancelled: element %d is %d", i, big[i]);
                            break;
                        }
                }
                if (k == 0 && rank == 1)
                    printf("send cancel (%d ints): %s\n", len,
                           cancelled == 1   ? "cancelled"
                           : cancelled == 0 ? "delivered"
                                            : "not complete");
            }
        }
        free(big);
    }

    return mtest_finish();
}
