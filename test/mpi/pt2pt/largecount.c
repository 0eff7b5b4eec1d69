/* The MPI_Count ("_c") variants with small counts: Send_c/Recv_c,
 * Isend_c/Irecv_c, Ssend_c, Sendrecv_c, Sendrecv_replace_c, Bsend_c,
 * Send_init_c/Recv_init_c, Mrecv_c, Get_count_c, Get_elements_c, and errors
 * for negative counts. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || rank >= 2)
        return mtest_finish();
    int peer = 1 - rank;
    MPI_Status st;
    MPI_Count c, e;
    const MPI_Count n = 1000, big = 9000;
    int *s = malloc(big * sizeof(int)), *r = malloc((big + 1) * sizeof(int));

#define FILL(tag, len)                       \
    for (MPI_Count i_ = 0; i_ < (len); i_++) \
    s[i_] = mtest_pattern(rank, tag, (long)i_)
#define CLEAR(len)                            \
    for (MPI_Count i_ = 0; i_ <= (len); i_++) \
    r[i_] = -1
#define VERIFY(tag, len, what) VERIFY2(tag, tag, len, what)
#define VERIFY2(ptag, mtag, len, what)                                                       \
    do {                                                                                     \
        for (MPI_Count i_ = 0; i_ < (len); i_++)                                             \
            if (r[i_] != mtest_pattern(peer, (ptag), (long)i_)) {                            \
                CHECK(0, "%s: element %lld is %d", what, (long long)i_, r[i_]);              \
                break;                                                                       \
            }                                                                                \
        CHECK(r[len] == -1, "%s: wrote past the message", what);                             \
        c = e = -2;                                                                          \
        CHECK_SUCCESS(MPI_Get_count_c(&st, MPI_INT, &c));                                    \
        CHECK_SUCCESS(MPI_Get_elements_c(&st, MPI_INT, &e));                                 \
        CHECK(c == (len) && e == (len), "%s: count %lld elements %lld, expected %lld", what, \
              (long long)c, (long long)e, (long long)(len));                                 \
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == (mtag), "%s: source %d tag %d", what,   \
              st.MPI_SOURCE, st.MPI_TAG);                                                    \
    } while (0)

    /* Send_c / Recv_c, both directions, small and large */
    MPI_Count lens[2] = {n, big};
    for (int k = 0; k < 2; k++) {
        int tag = 1 + k;
        FILL(tag, lens[k]);
        CLEAR(lens[k]);
        if (rank == 0) {
            CHECK_SUCCESS(MPI_Send_c(s, lens[k], MPI_INT, peer, tag, MPI_COMM_WORLD));
            CHECK_SUCCESS(MPI_Recv_c(r, lens[k] + 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
        } else {
            CHECK_SUCCESS(MPI_Recv_c(r, lens[k] + 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
            CHECK_SUCCESS(MPI_Send_c(s, lens[k], MPI_INT, peer, tag, MPI_COMM_WORLD));
        }
        VERIFY(tag, lens[k], "Send_c/Recv_c");
        /* the int-count query agrees */
        int ic = -1;
        MPI_Get_count(&st, MPI_INT, &ic);
        CHECK(ic == (int)lens[k], "MPI_Get_count %d after a _c receive", ic);
    }

    /* Isend_c / Irecv_c */
    {
        MPI_Request req[2];
        MPI_Status sts[2];
        FILL(3, n);
        CLEAR(n);
        CHECK_SUCCESS(MPI_Irecv_c(r, n + 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &req[0]));
        CHECK_SUCCESS(MPI_Isend_c(s, n, MPI_INT, peer, 3, MPI_COMM_WORLD, &req[1]));
        CHECK_SUCCESS(MPI_Waitall(2, req, sts));
        st = sts[0];
        VERIFY(3, n, "Isend_c/Irecv_c");
    }
    /* Ssend_c */
    {
        FILL(4, n);
        CLEAR(n);
        if (rank == 0) {
            CHECK_SUCCESS(MPI_Ssend_c(s, n, MPI_INT, peer, 4, MPI_COMM_WORLD));
            CHECK_SUCCESS(MPI_Recv_c(r, n + 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &st));
        } else {
            CHECK_SUCCESS(MPI_Recv_c(r, n + 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &st));
            CHECK_SUCCESS(MPI_Ssend_c(s, n, MPI_INT, peer, 4, MPI_COMM_WORLD));
        }
        VERIFY(4, n, "Ssend_c");
    }
    /* Sendrecv_c and Sendrecv_replace_c */
    {
        FILL(5, big);
        CLEAR(big);
        CHECK_SUCCESS(MPI_Sendrecv_c(s, big, MPI_INT, peer, 5, r, big + 1, MPI_INT, peer, 5,
                                     MPI_COMM_WORLD, &st));
        VERIFY(5, big, "Sendrecv_c");
        for (MPI_Count i = 0; i < n; i++)
            r[i] = mtest_pattern(rank, 6, (long)i);
        r[n] = -1;
        CHECK_SUCCESS(MPI_Sendrecv_replace_c(r, n, MPI_INT, peer, 6, peer, 6, MPI_COMM_WORLD, &st));
        VERIFY(6, n, "Sendrecv_replace_c");
    }
    /* Bsend_c */
    {
        int bsize = (int)(n * sizeof(int)) + MPI_BSEND_OVERHEAD;
        char *bb = malloc(bsize);
        MPI_Buffer_attach(bb, bsize);
        FILL(7, n);
        CLEAR(n);
        CHECK_SUCCESS(MPI_Bsend_c(s, n, MPI_INT, peer, 7, MPI_COMM_WORLD));
        CHECK_SUCCESS(MPI_Recv_c(r, n + 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &st));
        VERIFY(7, n, "Bsend_c");
        void *p;
        int ps;
        MPI_Buffer_detach(&p, &ps);
        free(bb);
    }
    /* persistent _c */
    {
        MPI_Request req[2];
        MPI_Status sts[2];
        CHECK_SUCCESS(MPI_Recv_init_c(r, n + 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &req[0]));
        CHECK_SUCCESS(MPI_Send_init_c(s, n, MPI_INT, peer, 8, MPI_COMM_WORLD, &req[1]));
        for (int it = 0; it < 3; it++) {
            FILL(8 + 100 * it, n);
            CLEAR(n);
            CHECK_SUCCESS(MPI_Startall(2, req));
            CHECK_SUCCESS(MPI_Waitall(2, req, sts));
            st = sts[0];
            VERIFY2(8 + 100 * it, 8, n, "Send_init_c/Recv_init_c");
        }
        MPI_Request_free(&req[0]);
        MPI_Request_free(&req[1]);
    }
    /* Mprobe + Mrecv_c, Get_count_c on the probed status; derived type counts */
    {
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        FILL(9, 2 * 50);
        CLEAR(2 * 50);
        MPI_Request sreq;
        CHECK_SUCCESS(MPI_Isend_c(s, 50, pair, peer, 9, MPI_COMM_WORLD, &sreq));
        MPI_Message msg;
        CHECK_SUCCESS(MPI_Mprobe(peer, 9, MPI_COMM_WORLD, &msg, &st));
        c = -2;
        CHECK_SUCCESS(MPI_Get_count_c(&st, pair, &c));
        CHECK(c == 50, "probed Get_count_c(pair) %lld", (long long)c);
        CHECK_SUCCESS(MPI_Mrecv_c(r, c, pair, &msg, &st));
        CHECK_SUCCESS(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        VERIFY(9, 100, "Mrecv_c");
        CHECK_SUCCESS(MPI_Get_count_c(&st, pair, &c));
        CHECK_SUCCESS(MPI_Get_elements_c(&st, pair, &e));
        CHECK(c == 50 && e == 100, "pair: count %lld elements %lld", (long long)c, (long long)e);
        MPI_Type_free(&pair);
    }
    /* negative counts are errors */
    {
        int rc = MPI_Send_c(s, -1, MPI_INT, peer, 10, MPI_COMM_WORLD);
        CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
        CHECK_ERR_STRING_INT(rc, -1);
        MPI_Request req;
        rc = MPI_Irecv_c(r, -3, MPI_INT, peer, 10, MPI_COMM_WORLD, &req);
        CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
        CHECK_ERR_STRING_INT(rc, -3);
    }
    free(s);
    free(r);
    return mtest_finish();
}
