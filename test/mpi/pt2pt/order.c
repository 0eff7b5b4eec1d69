/* Non-overtaking order: messages from one sender on one communicator are
 * matched in the order they were sent, whatever their sizes (eager and
 * rendezvous interleaved) and send modes, with named and wildcard
 * (MPI_ANY_SOURCE / MPI_ANY_TAG) receives, blocking and pre-posted. */
#include "mtest.h"

#define NMSG 120
static int rank, size;

static int len_of(int src, int seq)
{
    /* mostly small, every 5th above the eager limit, some empty */
    if (seq % 5 == 3)
        return 5000 + src;
    if (seq % 11 == 0)
        return 1; /* at least the sequence number */
    return 1 + (seq * 7 + src) % 40;
}

/* element 0 carries the sequence number */
static void make(int *b, int src, int seq, int phase)
{
    int n = len_of(src, seq);
    b[0] = seq;
    for (int i = 1; i < n; i++)
        b[i] = mtest_pattern(src, seq + 1000 * phase, i);
}

static void verify(const int *b, int n, int src, int phase, int expect_seq, const char *what)
{
    CHECK(b[0] == expect_seq, "%s: from %d got message %d, expected %d", what, src, b[0],
          expect_seq);
    int seq = b[0];
    if (seq < 0 || seq >= NMSG)
        return;
    CHECK(n == len_of(src, seq), "%s: message %d from %d has %d ints, expected %d", what, seq, src,
          n, len_of(src, seq));
    for (int i = 1; i < n && i < len_of(src, seq); i++)
        if (b[i] != mtest_pattern(src, seq + 1000 * phase, i)) {
            CHECK(0, "%s: message %d from %d element %d is %d", what, seq, src, i, b[i]);
            return;
        }
}

static void send_all(int phase, int dst)
{
    int *b = malloc(NMSG * 6000 * sizeof(int));
    MPI_Request *req = malloc(NMSG * sizeof(MPI_Request));
    int nreq = 0;
    for (int seq = 0; seq < NMSG; seq++) {
        int *m = b + seq * 6000;
        make(m, rank, seq, phase);
        int n = len_of(rank, seq);
        int tag = phase == 0 ? 5 : seq % 7;
        switch (seq % 4) { /* mix of send modes */
        case 0: CHECK_SUCCESS(MPI_Send(m, n, MPI_INT, dst, tag, MPI_COMM_WORLD)); break;
        case 1:
            CHECK_SUCCESS(MPI_Isend(m, n, MPI_INT, dst, tag, MPI_COMM_WORLD, &req[nreq++]));
            break;
        case 2:
            CHECK_SUCCESS(MPI_Issend(m, n, MPI_INT, dst, tag, MPI_COMM_WORLD, &req[nreq++]));
            break;
        default:
            CHECK_SUCCESS(MPI_Isend(m, n, MPI_INT, dst, tag, MPI_COMM_WORLD, &req[nreq++]));
            break;
        }
    }
    MPI_Status *sts = malloc((nreq + 1) * sizeof(MPI_Status));
    CHECK_SUCCESS(MPI_Waitall(nreq, req, sts));
    free(sts);
    free(req);
    free(b);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *rb = malloc(6000 * sizeof(int));
    MPI_Status st;

    for (int phase = 0; phase < 4; phase++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0) {
            send_all(phase, 0);
            continue;
        }
        int *next = calloc(size, sizeof(int));
        int total = (size - 1) * NMSG;
        if (phase == 0 || phase == 1) {
            /* phase 0: one tag, ANY_SOURCE; phase 1: tags vary, ANY_SOURCE + ANY_TAG */
            for (int k = 0; k < total; k++) {
                int tag = phase == 0 ? 5 : MPI_ANY_TAG;
                CHECK_SUCCESS(
                    MPI_Recv(rb, 6000, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
                int src = st.MPI_SOURCE, n = -1;
                MPI_Get_count(&st, MPI_INT, &n);
                if (src < 1 || src >= size) {
                    CHECK(0, "source %d", src);
                    break;
                }
                verify(rb, n, src, phase, next[src],
                       phase == 0 ? "ANY_SOURCE" : "ANY_SOURCE+ANY_TAG");
                if (phase == 1)
                    CHECK(st.MPI_TAG == next[src] % 7, "message %d from %d has tag %d", next[src],
                          src, st.MPI_TAG);
                next[src]++;
            }
        } else if (phase == 2) {
            /* named source, ANY_TAG, alternating between sources */
            for (int k = 0; k < total; k++) {
                int src = 1 + k % (size - 1);
                CHECK_SUCCESS(MPI_Recv(rb, 6000, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                int n = -1;
                MPI_Get_count(&st, MPI_INT, &n);
                verify(rb, n, src, phase, next[src], "named source, ANY_TAG");
                next[src]++;
            }
        } else {
            /* all receives pre-posted with ANY_SOURCE/ANY_TAG, completed with Waitall */
            int *big = malloc((size_t)total * 6000 * sizeof(int));
            MPI_Request *req = malloc(total * sizeof(MPI_Request));
            MPI_Status *sts = malloc(total * sizeof(MPI_Status));
            for (int k = 0; k < total; k++)
                CHECK_SUCCESS(MPI_Irecv(big + (size_t)k * 6000, 6000, MPI_INT, MPI_ANY_SOURCE,
                                        MPI_ANY_TAG, MPI_COMM_WORLD, &req[k]));
            CHECK_SUCCESS(MPI_Waitall(total, req, sts));
            for (int k = 0; k < total; k++) {
                int src = sts[k].MPI_SOURCE, n = -1;
                MPI_Get_count(&sts[k], MPI_INT, &n);
                if (src < 1 || src >= size) {
                    CHECK(0, "pre-posted receive %d: source %d", k, src);
                    continue;
                }
                verify(big + (size_t)k * 6000, n, src, phase, next[src], "pre-posted ANY_SOURCE");
                next[src]++;
            }
            free(big);
            free(req);
            free(sts);
        }
        for (int s = 1; s < size; s++)
            CHECK(next[s] == NMSG, "phase %d: %d messages from %d", phase, next[s], s);
        free(next);
    }
    free(rb);
    return mtest_finish();
}
