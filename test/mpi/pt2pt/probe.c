/* MPI_Probe and MPI_Iprobe, with and without wildcards: every rank but 0
 * sends rank 0 messages of rank-dependent sizes and tags; rank 0 probes,
 * allocates exactly the probed size (MPI_Get_count), receives with the probed
 * source and tag, and checks the data. Iprobe finds nothing when nothing was
 * sent, and probing does not consume the message. */
#include "mtest.h"

#define MSGS 6

static int msg_len(int src, int m)
{
    /* 0 ints, small, and above the eager limit */
    static const int lens[MSGS] = {3, 0, 5000, 1, 12000, 250};
    return lens[m] + (lens[m] ? src : 0);
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;
    int flag;

    /* nothing has been sent yet on this communicator */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    flag = 1;
    CHECK_SUCCESS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st));
    CHECK_INT(flag, 0);
    MPI_Barrier(comm);

    if (rank != 0) {
        for (int m = 0; m < MSGS; m++) {
            int n = msg_len(rank, m);
            int *b = malloc((n + 1) * sizeof(int));
            for (int i = 0; i < n; i++)
                b[i] = mtest_pattern(rank, m, i);
            CHECK_SUCCESS(MPI_Send(b, n, MPI_INT, 0, 10 * m + rank, comm));
            free(b);
        }
    } else {
        int total = (size - 1) * MSGS;
        int *got = calloc(size * MSGS, sizeof(int));
        int *next = calloc(size, sizeof(int)); /* next message expected from each source */
        for (int k = 0; k < total; k++) {
            /* alternate: Probe(ANY, ANY), Iprobe loop (ANY, ANY), Probe(src, ANY), Probe(ANY, tag)
             */
            int mode = k % 4;
            if (mode == 0) {
                CHECK_SUCCESS(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            } else if (mode == 1) {
                flag = 0;
                while (!flag)
                    CHECK_SUCCESS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st));
            } else if (mode == 2) {
                /* a source that still has messages to send */
                int src = 1 + (k / 4) % (size - 1);
                while (next[src] >= MSGS)
                    src = src % (size - 1) + 1;
                CHECK_SUCCESS(MPI_Probe(src, MPI_ANY_TAG, comm, &st));
                CHECK(st.MPI_SOURCE == src, "Probe(%d, ANY_TAG) gave source %d", src,
                      st.MPI_SOURCE);
            } else {
                int src = 1 + (k / 4 + 1) % (size - 1);
                while (next[src] >= MSGS)
                    src = src % (size - 1) + 1;
                int tag = 10 * next[src] + src;
                CHECK_SUCCESS(MPI_Probe(MPI_ANY_SOURCE, tag, comm, &st));
                CHECK(st.MPI_SOURCE == src && st.MPI_TAG == tag,
                      "Probe(ANY, %d) gave source %d tag %d", tag, st.MPI_SOURCE, st.MPI_TAG);
            }
            int src = st.MPI_SOURCE, tag = st.MPI_TAG;
            CHECK(src >= 1 && src < size, "probed source %d", src);
            if (src < 1 || src >= size)
                break;
            int m = (tag - src) / 10;
            /* non-overtaking: the probe sees each source's messages in order */
            CHECK(m == next[src] && (tag - src) % 10 == 0,
                  "probed tag %d from %d, expected message %d", tag, src, next[src]);
            int n = -1;
            CHECK_SUCCESS(MPI_Get_count(&st, MPI_INT, &n));
            CHECK(n == msg_len(src, m), "probed count %d, expected %d", n, msg_len(src, m));
            if (n < 0)
                break;
            /* probing again finds the same message */
            MPI_Status st2;
            CHECK_SUCCESS(MPI_Iprobe(src, tag, comm, &flag, &st2));
            int n2 = -1;
            MPI_Get_count(&st2, MPI_INT, &n2);
            CHECK(flag && st2.MPI_SOURCE == src && st2.MPI_TAG == tag && n2 == n,
                  "second Iprobe: flag %d source %d tag %d count %d", flag, st2.MPI_SOURCE,
                  st2.MPI_TAG, n2);
            int *b = malloc((n + 1) * sizeof(int));
            CHECK_SUCCESS(MPI_Recv(b, n, MPI_INT, src, tag, comm, &st2));
            int c = -1;
            MPI_Get_count(&st2, MPI_INT, &c);
            CHECK(c == n && st2.MPI_SOURCE == src && st2.MPI_TAG == tag,
                  "recv: count %d source %d tag %d", c, st2.MPI_SOURCE, st2.MPI_TAG);
            for (int i = 0; i < n; i++)
                if (b[i] != mtest_pattern(src, m, i)) {
                    CHECK(0, "message %d from %d: element %d is %d", m, src, i, b[i]);
                    break;
                }
            free(b);
            if (m >= 0 && m < MSGS) {
                CHECK(!got[src * MSGS + m], "message %d from %d received twice", m, src);
                got[src * MSGS + m] = 1;
            }
            next[src]++;
        }
        /* everything was consumed */
        CHECK_SUCCESS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st));
        CHECK(!flag, "a message is left: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        free(got);
        free(next);
    }

    /* Probe for MPI_PROC_NULL returns at once with the null status. */
    CHECK_SUCCESS(MPI_Probe(MPI_PROC_NULL, 5, comm, &st));
    int c = -1;
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && c == 0,
          "Probe(MPI_PROC_NULL): source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, c);
    flag = 0;
    CHECK_SUCCESS(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
          "Iprobe(MPI_PROC_NULL): flag %d source %d tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);

    /* A probe that matches by tag skips other tags from the same source. */
    MPI_Barrier(comm);
    if (size >= 2 && rank < 2) {
        if (rank == 1) {
            int a = 111, b = 222;
            MPI_Send(&a, 1, MPI_INT, 0, 1, comm);
            MPI_Send(&b, 1, MPI_INT, 0, 2, comm);
        } else {
            int v = 0;
            CHECK_SUCCESS(MPI_Probe(1, 2, comm, &st));
            CHECK_INT(st.MPI_TAG, 2);
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, 1, 2, comm, &st));
            CHECK_INT(v, 222);
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, comm, &st));
            CHECK_INT(v, 111);
            CHECK_INT(st.MPI_TAG, 1);
        }
    }
    /* Communicators are separate matching spaces: same source and tag on
     * MPI_COMM_WORLD and on the duplicate do not match each other. */
    MPI_Barrier(comm);
    if (size >= 2 && rank < 2) {
        if (rank == 1) {
            int a = 1, b = 2;
            MPI_Send(&a, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
            MPI_Send(&b, 1, MPI_INT, 0, 3, comm);
        } else {
            int v = 0;
            CHECK_SUCCESS(MPI_Probe(1, 3, comm, &st));
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            CHECK(v == 2, "receive on the duplicate got %d (the message sent on MPI_COMM_WORLD?)",
                  v);
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &st));
            CHECK_INT(v, 1);
        }
    }
    MPI_Comm_free(&comm);
    return mtest_finish();
}
