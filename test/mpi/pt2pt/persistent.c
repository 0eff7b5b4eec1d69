/* Persistent requests: Send_init/Recv_init (also Ssend_init, Bsend_init,
 * Rsend_init) started with Start and Startall over several iterations, with
 * the buffer contents changed between iterations; inactive requests complete
 * at once; Request_free of inactive persistent requests. */
#include "mtest.h"

#define ITERS 6
#define SMALL 10
#define LARGE 6000

static int rank, size;

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* --- ring: one send and one receive each of small and large, Startall --- */
    int *ss = malloc(SMALL * sizeof(int)), *sl = malloc(LARGE * sizeof(int));
    int *rs = malloc(SMALL * sizeof(int)), *rl = malloc(LARGE * sizeof(int));
    MPI_Request req[4];
    CHECK_SUCCESS(MPI_Recv_init(rs, SMALL, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]));
    CHECK_SUCCESS(MPI_Recv_init(rl, LARGE, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req[1]));
    CHECK_SUCCESS(MPI_Send_init(ss, SMALL, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]));
    CHECK_SUCCESS(MPI_Send_init(sl, LARGE, MPI_INT, right, 2, MPI_COMM_WORLD, &req[3]));

    /* inactive persistent requests: Wait/Test return at once, empty status */
    MPI_Status st;
    int flag = 0;
    CHECK_SUCCESS(MPI_Wait(&req[0], &st));
    CHECK(req[0] != MPI_REQUEST_NULL, "Wait on an inactive persistent request freed it");
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
          "inactive request status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_SUCCESS(MPI_Test(&req[3], &flag, &st));
    CHECK(flag, "Test on an inactive persistent request: flag 0");

    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < SMALL; i++)
            ss[i] = mtest_pattern(rank, it, i);
        for (int i = 0; i < LARGE; i++)
            sl[i] = mtest_pattern(rank, 1000 + it, i);
        memset(rs, 0, SMALL * sizeof(int));
        memset(rl, 0, LARGE * sizeof(int));
        MPI_Status sts[4];
        if (it % 2 == 0) {
            CHECK_SUCCESS(MPI_Startall(4, req));
        } else {
            CHECK_SUCCESS(MPI_Start(&req[1]));
            CHECK_SUCCESS(MPI_Start(&req[3]));
            CHECK_SUCCESS(MPI_Start(&req[0]));
            CHECK_SUCCESS(MPI_Start(&req[2]));
        }
        if (it % 3 == 2) {
            int done = 0;
            while (!done)
                CHECK_SUCCESS(MPI_Testall(4, req, &done, sts));
        } else {
            CHECK_SUCCESS(MPI_Waitall(4, req, sts));
        }
        for (int r = 0; r < 4; r++)
            CHECK(req[r] != MPI_REQUEST_NULL, "iteration %d: persistent request %d became null", it,
                  r);
        int c0 = -1, c1 = -1;
        MPI_Get_count(&sts[0], MPI_INT, &c0);
        MPI_Get_count(&sts[1], MPI_INT, &c1);
        CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 1 && c0 == SMALL,
              "iter %d small: source %d tag %d count %d", it, sts[0].MPI_SOURCE, sts[0].MPI_TAG,
              c0);
        CHECK(sts[1].MPI_SOURCE == left && sts[1].MPI_TAG == 2 && c1 == LARGE,
              "iter %d large: source %d tag %d count %d", it, sts[1].MPI_SOURCE, sts[1].MPI_TAG,
              c1);
        for (int i = 0; i < SMALL; i++)
            if (rs[i] != mtest_pattern(left, it, i)) {
                CHECK(0, "iter %d small element %d is %d", it, i, rs[i]);
                break;
            }
        for (int i = 0; i < LARGE; i++)
            if (rl[i] != mtest_pattern(left, 1000 + it, i)) {
                CHECK(0, "iter %d large element %d is %d", it, i, rl[i]);
                break;
            }
    }
    for (int r = 0; r < 4; r++) {
        CHECK_SUCCESS(MPI_Request_free(&req[r]));
        CHECK(req[r] == MPI_REQUEST_NULL, "Request_free did not null request %d", r);
    }

    /* --- other send modes: Ssend_init, Bsend_init, Rsend_init (0 -> 1) -------- */
    if (size >= 2 && rank < 2) {
        int bsize = 2 * (LARGE * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
        char *bbuf = malloc(bsize);
        MPI_Buffer_attach(bbuf, bsize);
        MPI_Request r3[3];
        int d = 0;
        for (int it = 0; it < 3; it++) {
            if (rank == 0) {
                if (it == 0) {
                    CHECK_SUCCESS(
                        MPI_Ssend_init(ss, SMALL, MPI_INT, 1, 10, MPI_COMM_WORLD, &r3[0]));
                    CHECK_SUCCESS(
                        MPI_Bsend_init(sl, LARGE, MPI_INT, 1, 11, MPI_COMM_WORLD, &r3[1]));
                    CHECK_SUCCESS(
                        MPI_Rsend_init(rs, SMALL, MPI_INT, 1, 12, MPI_COMM_WORLD, &r3[2]));
                }
                for (int i = 0; i < SMALL; i++) {
                    ss[i] = mtest_pattern(0, 10 + it, i);
                    rs[i] = mtest_pattern(0, 12 + it, i);
                }
                for (int i = 0; i < LARGE; i++)
                    sl[i] = mtest_pattern(0, 11 + it, i);
                /* wait until the receiver has posted the ready-mode receive */
                MPI_Recv(&d, 0, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Status sts[3];
                CHECK_SUCCESS(MPI_Startall(3, r3));
                CHECK_SUCCESS(MPI_Waitall(3, r3, sts));
            } else {
                MPI_Request rr[3];
                MPI_Status sts[3];
                int *a = calloc(SMALL, sizeof(int)), *b = calloc(LARGE, sizeof(int)),
                    *c = calloc(SMALL, sizeof(int));
                MPI_Irecv(c, SMALL, MPI_INT, 0, 12, MPI_COMM_WORLD, &rr[2]);
                MPI_Irecv(a, SMALL, MPI_INT, 0, 10, MPI_COMM_WORLD, &rr[0]);
                MPI_Irecv(b, LARGE, MPI_INT, 0, 11, MPI_COMM_WORLD, &rr[1]);
                MPI_Send(&d, 0, MPI_INT, 0, 99, MPI_COMM_WORLD);
                CHECK_SUCCESS(MPI_Waitall(3, rr, sts));
                for (int i = 0; i < SMALL; i++) {
                    CHECK(a[i] == mtest_pattern(0, 10 + it, i), "Ssend_init iter %d element %d: %d",
                          it, i, a[i]);
                    CHECK(c[i] == mtest_pattern(0, 12 + it, i), "Rsend_init iter %d element %d: %d",
                          it, i, c[i]);
                }
                for (int i = 0; i < LARGE; i++)
                    if (b[i] != mtest_pattern(0, 11 + it, i)) {
                        CHECK(0, "Bsend_init iter %d element %d: %d", it, i, b[i]);
                        break;
                    }
                free(a);
                free(b);
                free(c);
            }
        }
        if (rank == 0)
            for (int r = 0; r < 3; r++)
                CHECK_SUCCESS(MPI_Request_free(&r3[r]));
        void *p;
        int psize;
        MPI_Buffer_detach(&p, &psize);
        free(bbuf);
    }

    /* --- Start on an active request is an error ------------------------------ */
    if (size >= 2 && rank < 2) {
        MPI_Request r;
        int v = -1;
        if (rank == 1) {
            CHECK_SUCCESS(MPI_Recv_init(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &r));
            CHECK_SUCCESS(MPI_Start(&r));
            int rc = MPI_Start(&r);
            CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
            int go = 1;
            MPI_Send(&go, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
            CHECK_SUCCESS(MPI_Wait(&r, &st));
            CHECK_INT(v, 4242);
            CHECK_SUCCESS(MPI_Request_free(&r));
        } else {
            int go = 0, val = 4242;
            MPI_Recv(&go, 1, MPI_INT, 1, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&val, 1, MPI_INT, 1, 20, MPI_COMM_WORLD);
        }
    }
    /* --- Request_free of an active persistent send: the message still arrives --- */
    if (size >= 2 && rank < 2) {
        MPI_Request r;
        if (rank == 0) {
            for (int i = 0; i < LARGE; i++)
                sl[i] = mtest_pattern(0, 30, i);
            CHECK_SUCCESS(MPI_Send_init(sl, LARGE, MPI_INT, 1, 30, MPI_COMM_WORLD, &r));
            CHECK_SUCCESS(MPI_Start(&r));
            CHECK_SUCCESS(MPI_Request_free(&r));
            CHECK(r == MPI_REQUEST_NULL,
                  "Request_free of an active persistent request left the handle");
            int done = 0;
            MPI_Recv(&done, 1, MPI_INT, 1, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            memset(rl, 0, LARGE * sizeof(int));
            CHECK_SUCCESS(MPI_Recv(rl, LARGE, MPI_INT, 0, 30, MPI_COMM_WORLD, &st));
            for (int i = 0; i < LARGE; i++)
                if (rl[i] != mtest_pattern(0, 30, i)) {
                    CHECK(0, "freed active persistent send: element %d is %d", i, rl[i]);
                    break;
                }
            int done = 1;
            MPI_Send(&done, 1, MPI_INT, 0, 31, MPI_COMM_WORLD);
        }
    }
    free(ss);
    free(sl);
    free(rs);
    free(rl);
    return mtest_finish();
}
