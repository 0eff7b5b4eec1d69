/* MPI_Cancel of posted receives (MPI_Test_cancelled true, buffer untouched,
 * a later message goes to the next receive), cancel of a completed receive
 * (not cancelled), MPI_Request_free of active sends and receives, and
 * MPI_Request_get_status (does not free the request). */
#include <unistd.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;
    MPI_Request req;
    int flag;

    /* --- cancel a receive nobody sends to ------------------------------------ */
    int buf[4] = {-1, -1, -1, -1};
    CHECK_SUCCESS(MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, 1000, MPI_COMM_WORLD, &req));
    flag = 1;
    CHECK_SUCCESS(MPI_Request_get_status(req, &flag, &st));
    CHECK_INT(flag, 0);
    CHECK(req != MPI_REQUEST_NULL, "Request_get_status freed the request");
    CHECK_SUCCESS(MPI_Cancel(&req));
    CHECK(req != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "Wait after Cancel did not free the request");
    flag = 0;
    CHECK_SUCCESS(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(flag, 1);
    for (int i = 0; i < 4; i++)
        CHECK_INT(buf[i], -1);

    /* --- cancel one of two receives for the same message source/tag ----------- */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        if (rank == 1) {
            int a[3] = {-1, -1, -1}, b[3] = {-1, -1, -1};
            MPI_Request r1, r2;
            CHECK_SUCCESS(MPI_Irecv(a, 3, MPI_INT, peer, 5, MPI_COMM_WORLD, &r1));
            CHECK_SUCCESS(MPI_Irecv(b, 3, MPI_INT, peer, 5, MPI_COMM_WORLD, &r2));
            CHECK_SUCCESS(MPI_Cancel(&r1));
            CHECK_SUCCESS(MPI_Wait(&r1, &st));
            CHECK_SUCCESS(MPI_Test_cancelled(&st, &flag));
            CHECK(flag, "the first receive was not cancelled");
            int go = 1;
            MPI_Send(&go, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
            CHECK_SUCCESS(MPI_Wait(&r2, &st));
            CHECK_SUCCESS(MPI_Test_cancelled(&st, &flag));
            CHECK(!flag, "the second receive claims to be cancelled");
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 5, "second receive: source %d tag %d",
                  st.MPI_SOURCE, st.MPI_TAG);
            for (int i = 0; i < 3; i++) {
                CHECK(a[i] == -1, "cancelled receive buffer element %d changed to %d", i, a[i]);
                CHECK(b[i] == 70 + i, "second receive element %d is %d", i, b[i]);
            }
        } else {
            int go, v[3] = {70, 71, 72};
            MPI_Recv(&go, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(v, 3, MPI_INT, peer, 5, MPI_COMM_WORLD);
        }
    }

    /* --- a receive that already completed cannot be cancelled ------------------ */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank, v = rank * 10 + 3, got = -1;
        CHECK_SUCCESS(MPI_Irecv(&got, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &req));
        CHECK_SUCCESS(MPI_Send(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
        /* wait until the message is there, without completing the request */
        flag = 0;
        while (!flag)
            CHECK_SUCCESS(MPI_Request_get_status(req, &flag, &st));
        CHECK(req != MPI_REQUEST_NULL, "Request_get_status freed a complete request");
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 7, "Request_get_status: source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        CHECK_INT(got, peer * 10 + 3);
        /* calling it again gives the same answer */
        MPI_Status st2;
        CHECK_SUCCESS(MPI_Request_get_status(req, &flag, &st2));
        CHECK(flag && st2.MPI_SOURCE == peer && st2.MPI_TAG == 7,
              "second Request_get_status: %d %d %d", flag, st2.MPI_SOURCE, st2.MPI_TAG);
        CHECK_SUCCESS(MPI_Cancel(&req));
        CHECK_SUCCESS(MPI_Wait(&req, &st));
        CHECK_SUCCESS(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "a completed receive reports cancelled");
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 7,
              "status after Cancel+Wait: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        CHECK_INT(got, peer * 10 + 3);
    }

    /* --- Request_free of active sends: the messages still arrive ----------------- */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        int n = 20000;
        int *big = malloc(n * sizeof(int)), small[5];
        if (rank == 0) {
            for (int i = 0; i < n; i++)
                big[i] = mtest_pattern(0, 8, i);
            for (int i = 0; i < 5; i++)
                small[i] = 500 + i;
            MPI_Request r1, r2;
            CHECK_SUCCESS(MPI_Isend(small, 5, MPI_INT, peer, 8, MPI_COMM_WORLD, &r1));
            CHECK_SUCCESS(MPI_Isend(big, n, MPI_INT, peer, 9, MPI_COMM_WORLD, &r2));
            CHECK_SUCCESS(MPI_Request_free(&r1));
            CHECK_SUCCESS(MPI_Request_free(&r2));
            CHECK(r1 == MPI_REQUEST_NULL && r2 == MPI_REQUEST_NULL,
                  "Request_free did not null the handles");
            /* the receiver tells us when it has everything; only then reuse buffers */
            int done = 0;
            MPI_Recv(&done, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_INT(done, 1);
        } else {
            usleep(50000); /* the sends are freed before the receives are posted */
            int r5[5];
            int *rb = calloc(n, sizeof(int));
            CHECK_SUCCESS(MPI_Recv(rb, n, MPI_INT, peer, 9, MPI_COMM_WORLD, &st));
            CHECK_SUCCESS(MPI_Recv(r5, 5, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
            for (int i = 0; i < 5; i++)
                CHECK_INT(r5[i], 500 + i);
            for (int i = 0; i < n; i++)
                if (rb[i] != mtest_pattern(0, 8, i)) {
                    CHECK(0, "freed big send: element %d is %d", i, rb[i]);
                    break;
                }
            int done = 1;
            MPI_Send(&done, 1, MPI_INT, peer, 10, MPI_COMM_WORLD);
            free(rb);
        }
        free(big);
    }

    /* --- Request_get_status on a send request ---------------------------------------- */
    {
        int v = 9, w = 0;
        MPI_Request sreq;
        CHECK_SUCCESS(MPI_Issend(&v, 1, MPI_INT, rank, 500, MPI_COMM_WORLD, &sreq));
        flag = 1;
        CHECK_SUCCESS(MPI_Request_get_status(sreq, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend to self reported complete before the receive");
        CHECK_SUCCESS(MPI_Recv(&w, 1, MPI_INT, rank, 500, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        flag = 0;
        while (!flag)
            CHECK_SUCCESS(MPI_Request_get_status(sreq, &flag, &st));
        CHECK(sreq != MPI_REQUEST_NULL, "Request_get_status freed a send request");
        CHECK_SUCCESS(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        CHECK_INT(w, 9);
    }

    /* --- Request_get_status on MPI_REQUEST_NULL: flag true, empty status ----------- */
    st.MPI_SOURCE = 77;
    st.MPI_TAG = 77;
    req = MPI_REQUEST_NULL;
    flag = 0;
    CHECK_SUCCESS(MPI_Request_get_status(req, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
          "Request_get_status(NULL): flag %d source %d tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);

    /* --- cancel of a persistent receive; the request can be started again ---------- */
    {
        int v = -1;
        MPI_Request p;
        CHECK_SUCCESS(MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2000, MPI_COMM_WORLD, &p));
        CHECK_SUCCESS(MPI_Start(&p));
        CHECK_SUCCESS(MPI_Cancel(&p));
        CHECK_SUCCESS(MPI_Wait(&p, &st));
        CHECK(p != MPI_REQUEST_NULL, "persistent request freed by Wait");
        CHECK_SUCCESS(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "persistent receive not cancelled");
        int self = rank * 3 + 1;
        CHECK_SUCCESS(MPI_Start(&p));
        MPI_Request s;
        CHECK_SUCCESS(MPI_Isend(&self, 1, MPI_INT, rank, 2000, MPI_COMM_WORLD, &s));
        CHECK_SUCCESS(MPI_Wait(&p, &st));
        CHECK_SUCCESS(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag && v == rank * 3 + 1, "restarted receive: cancelled %d value %d", flag, v);
        CHECK_SUCCESS(MPI_Wait(&s, MPI_STATUS_IGNORE));
        CHECK_SUCCESS(MPI_Request_free(&p));
    }
    return mtest_finish();
}
