/* Randomized traffic with a fixed seed: every rank derives the same list of
 * messages (source, destination, tag, size from 1 int to 40000 ints), sends
 * its own with Isend, and receives its share with receives whose source and
 * tag are named or wildcards at random. Each message carries its id; every
 * receive must match the earliest not yet received message from the sender
 * that fits the receive (non-overtaking), with the right size and contents. */
#include "mtest.h"

#define NMSG 600
#define MAXLEN 40000
#define NTAGS 5

static unsigned long long rng_state;
static unsigned rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33);
}

struct msg {
    int src, dst, tag, len, received;
};

int main(int argc, char **argv)
{
    int rank, size;
    unsigned seed = 12345;
    if (argc > 1)
        seed = (unsigned)strtoul(argv[1], NULL, 10);
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    static struct msg m[NMSG];
    rng_state = seed;
    for (int i = 0; i < NMSG; i++) {
        m[i].src = rnd() % size;
        m[i].dst = rnd() % size;
        m[i].tag = rnd() % NTAGS;
        unsigned r = rnd() % 100;
        m[i].len = r < 70   ? 1 + rnd() % 100
                   : r < 92 ? 100 + rnd() % 5000
                            : 5000 + rnd() % (MAXLEN - 5000);
        m[i].received = 0;
    }

    /* send my messages, in list order */
    int nsend = 0, nrecv = 0;
    for (int i = 0; i < NMSG; i++) {
        nsend += m[i].src == rank;
        nrecv += m[i].dst == rank;
    }
    int **sbuf = malloc((nsend + 1) * sizeof(int *));
    MPI_Request *sreq = malloc((nsend + 1) * sizeof(MPI_Request));
    int k = 0;
    for (int i = 0; i < NMSG; i++) {
        if (m[i].src != rank)
            continue;
        int *b = malloc(m[i].len * sizeof(int));
        b[0] = i;
        for (int e = 1; e < m[i].len; e++)
            b[e] = mtest_pattern(rank, i, e);
        sbuf[k] = b;
        CHECK_SUCCESS(
            MPI_Isend(b, m[i].len, MPI_INT, m[i].dst, m[i].tag, MPI_COMM_WORLD, &sreq[k]));
        k++;
    }

    /* receive my messages with random receive patterns */
    rng_state = seed * 7919ULL + (unsigned)rank + 1;
    int *rb = malloc(MAXLEN * sizeof(int));
    int *mine = malloc((nrecv + 1) * sizeof(int)), nmine = 0;
    for (int i = 0; i < NMSG; i++)
        if (m[i].dst == rank)
            mine[nmine++] = i;
    int remaining = nrecv, counts[4] = {0, 0, 0, 0};
    while (remaining > 0) {
        /* a target among the messages not yet received guarantees a match */
        int t;
        do
            t = mine[rnd() % nmine];
        while (m[t].received);
        int how = rnd() % 4;
        int src = (how & 1) ? MPI_ANY_SOURCE : m[t].src;
        int tag = (how & 2) ? MPI_ANY_TAG : m[t].tag;
        counts[how]++;
        MPI_Status st;
        rb[0] = -1;
        if (rnd() % 3 == 0) {
            MPI_Request req;
            CHECK_SUCCESS(MPI_Irecv(rb, MAXLEN, MPI_INT, src, tag, MPI_COMM_WORLD, &req));
            CHECK_SUCCESS(MPI_Wait(&req, &st));
        } else {
            CHECK_SUCCESS(MPI_Recv(rb, MAXLEN, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
        }
        int id = rb[0], n = -1;
        MPI_Get_count(&st, MPI_INT, &n);
        if (id < 0 || id >= NMSG || m[id].dst != rank || m[id].received) {
            CHECK(
                0,
                "received id %d (source %d tag %d count %d) is not a pending message for this rank",
                id, st.MPI_SOURCE, st.MPI_TAG, n);
            break;
        }
        /* the earliest pending message from that source that this receive matches */
        int expect = -1;
        for (int i = 0; i < NMSG; i++)
            if (m[i].dst == rank && !m[i].received && m[i].src == st.MPI_SOURCE &&
                (tag == MPI_ANY_TAG || m[i].tag == tag)) {
                expect = i;
                break;
            }
        CHECK(id == expect,
              "receive (src %d, tag %d) got message %d from %d, expected %d (overtaken)", src, tag,
              id, st.MPI_SOURCE, expect);
        CHECK(st.MPI_SOURCE == m[id].src && st.MPI_TAG == m[id].tag && n == m[id].len,
              "message %d: source %d tag %d count %d, expected %d %d %d", id, st.MPI_SOURCE,
              st.MPI_TAG, n, m[id].src, m[id].tag, m[id].len);
        CHECK(
            (src == MPI_ANY_SOURCE || src == m[id].src) && (tag == MPI_ANY_TAG || tag == m[id].tag),
            "message %d does not fit the receive (src %d tag %d)", id, src, tag);
        for (int e = 1; e < n && e < m[id].len; e++)
            if (rb[e] != mtest_pattern(m[id].src, id, e)) {
                CHECK(0, "message %d element %d is %d", id, e, rb[e]);
                break;
            }
        m[id].received = 1;
        remaining--;
        if (mtest_errors > 20)
            break;
    }
    MPI_Status *sts = malloc((nsend + 1) * sizeof(MPI_Status));
    if (mtest_errors == 0)
        CHECK_SUCCESS(MPI_Waitall(nsend, sreq, sts));
    /* nothing left over */
    MPI_Barrier(MPI_COMM_WORLD);
    int flag = 0;
    MPI_Status st;
    CHECK_SUCCESS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "unexpected message left: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    if (rank == 0)
        printf("seed %u: %d messages; rank 0 receives named/any-src/any-tag/both: %d/%d/%d/%d\n",
               seed, NMSG, counts[0], counts[1], counts[2], counts[3]);
    for (int i = 0; i < nsend; i++)
        free(sbuf[i]);
    free(sbuf);
    free(sreq);
    free(sts);
    free(rb);
    free(mine);
    return mtest_finish();
}
