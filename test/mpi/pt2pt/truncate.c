/* Receives into buffers smaller than the message: MPI_ERR_TRUNCATE from
 * MPI_Recv, MPI_Wait, MPI_Waitany, and MPI_ERR_IN_STATUS from MPI_Waitall /
 * MPI_Testall with the per-request MPI_ERROR fields; nothing is written past
 * the receive buffer, and communication continues normally afterwards. */
#include "mtest.h"

#define GUARD 16

static int rank, peer;

static void fill_send(int *b, int n, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = mtest_pattern(rank, tag, i);
}

static void check_guard(const int *b, int cap, const char *what)
{
    for (int i = cap; i < cap + GUARD; i++)
        if (b[i] != -77) {
            CHECK(0, "%s: element %d past the %d-element buffer overwritten with %d", what, i, cap,
                  b[i]);
            return;
        }
}

static void check_ok(const int *b, int n, int tag, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != mtest_pattern(peer, tag, i)) {
            CHECK(0, "%s: element %d is %d", what, i, b[i]);
            return;
        }
}

int main(int argc, char **argv)
{
    int size, rc;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || rank >= 2)
        return mtest_finish();
    peer = 1 - rank;
    const int big = 10000;
    int *s = malloc(big * sizeof(int)), *r = malloc((big + GUARD) * sizeof(int));
    MPI_Status st;
    const int msg[2] = {40, 8000}; /* eager and rendezvous sizes, in ints */
    const int cap[2] = {10, 3000};

    for (int k = 0; k < 2; k++) {
        int tag = 20 * k;
        /* MPI_Recv */
        if (rank == 0) {
            fill_send(s, msg[k], tag);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag, MPI_COMM_WORLD));
            fill_send(s, 5, tag + 1);
            CHECK_SUCCESS(MPI_Send(s, 5, MPI_INT, peer, tag + 1, MPI_COMM_WORLD));
        } else {
            for (int i = 0; i < cap[k] + GUARD; i++)
                r[i] = -77;
            rc = MPI_Recv(r, cap[k], MPI_INT, peer, tag, MPI_COMM_WORLD, &st);
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
            CHECK_ERR_STRING_INT(rc, msg[k] * (int)sizeof(int));
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag, "truncated Recv: source %d tag %d",
                  st.MPI_SOURCE, st.MPI_TAG);
            check_guard(r, cap[k], "Recv");
            /* the next message is received normally */
            for (int i = 0; i < 5 + GUARD; i++)
                r[i] = -77;
            CHECK_SUCCESS(MPI_Recv(r, 5, MPI_INT, peer, tag + 1, MPI_COMM_WORLD, &st));
            check_ok(r, 5, tag + 1, "Recv after truncation");
            check_guard(r, 5, "Recv after truncation");
        }
        /* MPI_Irecv + MPI_Wait */
        if (rank == 0) {
            fill_send(s, msg[k], tag + 2);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag + 2, MPI_COMM_WORLD));
        } else {
            MPI_Request req;
            for (int i = 0; i < cap[k] + GUARD; i++)
                r[i] = -77;
            CHECK_SUCCESS(MPI_Irecv(r, cap[k], MPI_INT, peer, tag + 2, MPI_COMM_WORLD, &req));
            rc = MPI_Wait(&req, &st);
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
            CHECK(req == MPI_REQUEST_NULL, "request not freed after a truncated Wait");
            check_guard(r, cap[k], "Irecv+Wait");
        }
        /* MPI_Waitall with one good and one truncated receive */
        if (rank == 0) {
            fill_send(s, 7, tag + 3);
            CHECK_SUCCESS(MPI_Send(s, 7, MPI_INT, peer, tag + 3, MPI_COMM_WORLD));
            fill_send(s, msg[k], tag + 4);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag + 4, MPI_COMM_WORLD));
        } else {
            MPI_Request req[2];
            MPI_Status sts[2];
            int good[7 + GUARD];
            for (int i = 0; i < 7 + GUARD; i++)
                good[i] = -77;
            for (int i = 0; i < cap[k] + GUARD; i++)
                r[i] = -77;
            sts[0].MPI_ERROR = sts[1].MPI_ERROR = 12345;
            CHECK_SUCCESS(MPI_Irecv(good, 7, MPI_INT, peer, tag + 3, MPI_COMM_WORLD, &req[0]));
            CHECK_SUCCESS(MPI_Irecv(r, cap[k], MPI_INT, peer, tag + 4, MPI_COMM_WORLD, &req[1]));
            rc = MPI_Waitall(2, req, sts);
            CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
            CHECK_ERR_CLASS(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE);
            CHECK(req[1] == MPI_REQUEST_NULL, "Waitall: failed request not freed");
            /* the good receive completed, or (allowed) is reported pending */
            CHECK(sts[0].MPI_ERROR == MPI_SUCCESS || sts[0].MPI_ERROR == MPI_ERR_PENDING,
                  "Waitall: good receive has MPI_ERROR %d", sts[0].MPI_ERROR);
            if (sts[0].MPI_ERROR == MPI_ERR_PENDING)
                CHECK_SUCCESS(MPI_Wait(&req[0], &sts[0]));
            CHECK(req[0] == MPI_REQUEST_NULL, "Waitall: completed request not freed");
            int c = -1;
            MPI_Get_count(&sts[0], MPI_INT, &c);
            CHECK(c == 7 && sts[0].MPI_SOURCE == peer && sts[0].MPI_TAG == tag + 3,
                  "good: count %d source %d tag %d", c, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
            check_ok(good, 7, tag + 3, "Waitall good receive");
            check_guard(good, 7, "Waitall good receive");
            check_guard(r, cap[k], "Waitall truncated receive");
        }
        /* MPI_Testall, same arrangement */
        if (rank == 0) {
            fill_send(s, msg[k], tag + 5);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag + 5, MPI_COMM_WORLD));
            fill_send(s, 3, tag + 6);
            CHECK_SUCCESS(MPI_Send(s, 3, MPI_INT, peer, tag + 6, MPI_COMM_WORLD));
        } else {
            MPI_Request req[2];
            MPI_Status sts[2];
            int good[3 + GUARD], flag = 0;
            for (int i = 0; i < cap[k] + GUARD; i++)
                r[i] = -77;
            CHECK_SUCCESS(MPI_Irecv(r, cap[k], MPI_INT, peer, tag + 5, MPI_COMM_WORLD, &req[0]));
            CHECK_SUCCESS(MPI_Irecv(good, 3, MPI_INT, peer, tag + 6, MPI_COMM_WORLD, &req[1]));
            rc = MPI_SUCCESS;
            while (!flag && rc == MPI_SUCCESS)
                rc = MPI_Testall(2, req, &flag, sts);
            CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
            CHECK_ERR_CLASS(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
            CHECK(sts[1].MPI_ERROR == MPI_SUCCESS || sts[1].MPI_ERROR == MPI_ERR_PENDING,
                  "Testall: good receive has MPI_ERROR %d", sts[1].MPI_ERROR);
            if (sts[1].MPI_ERROR == MPI_ERR_PENDING)
                CHECK_SUCCESS(MPI_Wait(&req[1], &sts[1]));
            check_ok(good, 3, tag + 6, "Testall good receive");
            check_guard(r, cap[k], "Testall truncated receive");
        }
        /* MPI_Waitsome: MPI_ERR_IN_STATUS, the failing request among the indices */
        if (rank == 0) {
            fill_send(s, msg[k], tag + 9);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag + 9, MPI_COMM_WORLD));
        } else {
            MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            MPI_Status sts[2];
            int idx[2] = {-1, -1}, outcount = -1;
            CHECK_SUCCESS(MPI_Irecv(r, cap[k], MPI_INT, peer, tag + 9, MPI_COMM_WORLD, &req[1]));
            rc = MPI_Waitsome(2, req, &outcount, idx, sts);
            CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
            CHECK(outcount == 1 && idx[0] == 1, "Waitsome: outcount %d index %d", outcount, idx[0]);
            if (outcount == 1)
                CHECK_ERR_CLASS(sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        }
        /* MPI_Waitall with MPI_STATUSES_IGNORE still reports the failure */
        if (rank == 0) {
            fill_send(s, msg[k], tag + 11);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag + 11, MPI_COMM_WORLD));
        } else {
            MPI_Request req[1];
            CHECK_SUCCESS(MPI_Irecv(r, cap[k], MPI_INT, peer, tag + 11, MPI_COMM_WORLD, &req[0]));
            rc = MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
            CHECK(
                mtest_err_class(rc) == MPI_ERR_IN_STATUS || mtest_err_class(rc) == MPI_ERR_TRUNCATE,
                "Waitall(MPI_STATUSES_IGNORE) on a truncated receive returned %d (%s)", rc,
                mtest_err_text(rc));
        }
        /* MPI_Waitany returns the error of the completed request */
        if (rank == 0) {
            fill_send(s, msg[k], tag + 7);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag + 7, MPI_COMM_WORLD));
        } else {
            MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            int index = -1;
            CHECK_SUCCESS(MPI_Irecv(r, cap[k], MPI_INT, peer, tag + 7, MPI_COMM_WORLD, &req[1]));
            rc = MPI_Waitany(2, req, &index, &st);
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
            CHECK_INT(index, 1);
        }
        /* a probed message received into a smaller buffer */
        if (rank == 0) {
            fill_send(s, msg[k], tag + 8);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, tag + 8, MPI_COMM_WORLD));
        } else {
            CHECK_SUCCESS(MPI_Probe(peer, tag + 8, MPI_COMM_WORLD, &st));
            int c = -1;
            MPI_Get_count(&st, MPI_INT, &c);
            CHECK_INT(c, msg[k]);
            for (int i = 0; i < cap[k] + GUARD; i++)
                r[i] = -77;
            rc = MPI_Recv(r, cap[k], MPI_INT, peer, tag + 8, MPI_COMM_WORLD, &st);
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
            check_guard(r, cap[k], "Probe then Recv");
        }
    }
    /* a matched probe received into a smaller buffer (Mrecv and Imrecv) */
    for (int k = 0; k < 2; k++) {
        if (rank == 0) {
            fill_send(s, msg[k], 40 + k);
            CHECK_SUCCESS(MPI_Send(s, msg[k], MPI_INT, peer, 40 + k, MPI_COMM_WORLD));
        } else {
            MPI_Message m;
            CHECK_SUCCESS(MPI_Mprobe(peer, 40 + k, MPI_COMM_WORLD, &m, &st));
            for (int i = 0; i < cap[k] + GUARD; i++)
                r[i] = -77;
            if (k == 0) {
                rc = MPI_Mrecv(r, cap[k], MPI_INT, &m, &st);
            } else {
                MPI_Request req;
                CHECK_SUCCESS(MPI_Imrecv(r, cap[k], MPI_INT, &m, &req));
                rc = MPI_Wait(&req, &st);
            }
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
            check_guard(r, cap[k], k == 0 ? "Mrecv" : "Imrecv");
        }
    }
    /* MPI_Sendrecv whose receive side is too small */
    {
        int out[20], in[5 + GUARD];
        fill_send(out, 20, 45);
        for (int i = 0; i < 5 + GUARD; i++)
            in[i] = -77;
        rc =
            MPI_Sendrecv(out, 20, MPI_INT, peer, 45, in, 5, MPI_INT, peer, 45, MPI_COMM_WORLD, &st);
        CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
        check_guard(in, 5, "Sendrecv");
    }
    /* truncation on a derived datatype receive */
    if (rank == 0) {
        fill_send(s, 100, 50);
        CHECK_SUCCESS(MPI_Send(s, 100, MPI_INT, peer, 50, MPI_COMM_WORLD));
    } else {
        MPI_Datatype vec;
        MPI_Type_vector(4, 2, 3, MPI_INT, &vec); /* 8 ints over 11 */
        MPI_Type_commit(&vec);
        for (int i = 0; i < 2 * 11 + GUARD; i++)
            r[i] = -77;
        rc = MPI_Recv(r, 2, vec, peer, 50, MPI_COMM_WORLD, &st);
        CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
        /* the gaps of the vector stay untouched even on overflow */
        for (int j = 0; j < 2; j++)
            for (int b = 0; b < 4; b++)
                if (b < 3)
                    CHECK(r[j * 11 + b * 3 + 2] == -77, "vector gap %d overwritten",
                          j * 11 + b * 3 + 2);
        check_guard(r, 22, "vector receive");
        MPI_Type_free(&vec);
    }
    /* all good afterwards */
    int v = rank + 100, w = -1;
    CHECK_SUCCESS(
        MPI_Sendrecv(&v, 1, MPI_INT, peer, 60, &w, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &st));
    CHECK_INT(w, peer + 100);
    free(s);
    free(r);
    return mtest_finish();
}
