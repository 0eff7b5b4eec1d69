/* Matched probes: MPI_Mprobe/MPI_Improbe remove the message from matching,
 * MPI_Mrecv/MPI_Imrecv receive exactly that message (small and large), the
 * handle becomes MPI_MESSAGE_NULL, and MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC. */
#include "mtest.h"

static int rank, size;

static void fill(int *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = mtest_pattern(src, tag, i);
}

static void check(const int *b, int n, int src, int tag, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != mtest_pattern(src, tag, i)) {
            CHECK(0, "%s: element %d is %d, expected %d", what, i, b[i],
                  mtest_pattern(src, tag, i));
            return;
        }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;
    MPI_Message msg;
    int flag, c;
    const int lens[] = {0, 5, 20000};

    for (int li = 0; li < 3; li++) {
        int n = lens[li];
        int *b = malloc((n + 1) * sizeof(int)), *b2 = malloc((n + 1) * sizeof(int));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0) {
            /* two messages with the same tag, then one with another tag; nonblocking,
             * as the receiver takes the second before the first */
            int *s3 = malloc(3 * (n + 1) * sizeof(int));
            MPI_Request sr[3];
            MPI_Status sst[3];
            for (int k = 0; k < 3; k++) {
                fill(s3 + k * (n + 1), n, rank, k + 1);
                CHECK_SUCCESS(MPI_Isend(s3 + k * (n + 1), n, MPI_INT, 0, k < 2 ? 7 : 8,
                                        MPI_COMM_WORLD, &sr[k]));
            }
            CHECK_SUCCESS(MPI_Waitall(3, sr, sst));
            free(s3);
        } else {
            for (int src = 1; src < size; src++) {
                /* Mprobe takes the first tag-7 message out of matching */
                msg = MPI_MESSAGE_NULL;
                CHECK_SUCCESS(MPI_Mprobe(src, 7, MPI_COMM_WORLD, &msg, &st));
                CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC,
                      "Mprobe gave handle 0x%x", (unsigned)msg);
                MPI_Get_count(&st, MPI_INT, &c);
                CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 7 && c == n,
                      "Mprobe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, c);
                /* a plain probe now sees the second message: check it via Recv */
                CHECK_SUCCESS(MPI_Probe(src, 7, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_INT, &c);
                CHECK_INT(c, n);
                CHECK_SUCCESS(MPI_Recv(b2, n, MPI_INT, src, 7, MPI_COMM_WORLD, &st));
                check(b2, n, src, 2, "Recv after Mprobe gets the second message");
                /* Mrecv gets the first one */
                for (int i = 0; i <= n; i++)
                    b[i] = -1;
                CHECK_SUCCESS(MPI_Mrecv(b, n, MPI_INT, &msg, &st));
                CHECK(msg == MPI_MESSAGE_NULL, "Mrecv left handle 0x%x", (unsigned)msg);
                MPI_Get_count(&st, MPI_INT, &c);
                CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 7 && c == n,
                      "Mrecv: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, c);
                check(b, n, src, 1, "Mrecv");
                CHECK(b[n] == -1, "Mrecv wrote past the message");

                /* Improbe (wildcards) + Imrecv for the tag-8 message */
                flag = 0;
                msg = MPI_MESSAGE_NULL;
                while (!flag)
                    CHECK_SUCCESS(MPI_Improbe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &flag, &msg, &st));
                int s8 = st.MPI_SOURCE;
                MPI_Get_count(&st, MPI_INT, &c);
                CHECK(s8 >= 1 && s8 < size && st.MPI_TAG == 8 && c == n,
                      "Improbe: source %d tag %d count %d", s8, st.MPI_TAG, c);
                /* no further tag-8 message from that source is visible */
                if (s8 >= 1 && s8 < size) {
                    CHECK_SUCCESS(MPI_Iprobe(s8, 8, MPI_COMM_WORLD, &flag, &st));
                    CHECK(!flag, "Iprobe still sees the matched message from %d", s8);
                }
                MPI_Request req;
                for (int i = 0; i <= n; i++)
                    b[i] = -1;
                CHECK_SUCCESS(MPI_Imrecv(b, n + 1, MPI_INT, &msg, &req));
                CHECK(msg == MPI_MESSAGE_NULL, "Imrecv left handle 0x%x", (unsigned)msg);
                CHECK_SUCCESS(MPI_Wait(&req, &st));
                MPI_Get_count(&st, MPI_INT, &c);
                CHECK(st.MPI_SOURCE == s8 && st.MPI_TAG == 8 && c == n,
                      "Imrecv: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, c);
                check(b, n, s8, 3, "Imrecv");
                CHECK(b[n] == -1, "Imrecv wrote past the message");
            }
            /* Improbe with nothing pending */
            CHECK_SUCCESS(
                MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
            CHECK(!flag, "Improbe found a message from %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        }
        free(b);
        free(b2);
    }

    /* MPI_PROC_NULL */
    int v = 99;
    CHECK_SUCCESS(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) handle 0x%x", (unsigned)msg);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
          "Mprobe(PROC_NULL): source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_SUCCESS(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && c == 0 && v == 99,
          "Mrecv(NO_PROC): source %d tag %d count %d value %d", st.MPI_SOURCE, st.MPI_TAG, c, v);
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(NO_PROC) left handle 0x%x", (unsigned)msg);
    flag = 0;
    CHECK_SUCCESS(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d handle 0x%x", flag,
          (unsigned)msg);
    MPI_Request req;
    CHECK_SUCCESS(MPI_Imrecv(&v, 1, MPI_INT, &msg, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && v == 99, "Imrecv(NO_PROC): source %d value %d",
          st.MPI_SOURCE, v);

    /* Mrecv on MPI_MESSAGE_NULL is an error */
    msg = MPI_MESSAGE_NULL;
    int rc = MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
    return mtest_finish();
}
