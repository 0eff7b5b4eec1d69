/* Synchronous, ready and buffered sends (blocking and nonblocking):
 * Ssend does not complete before the receive starts; Rsend to a posted
 * receive; Bsend through an attached buffer, detach returning the buffer,
 * and MPI_ERR_BUFFER when no or too little buffer space is attached. */
#include <unistd.h>
#include "mtest.h"

#define LEN 3000 /* ints, above the eager limit */

static int rank, peer;

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

static void recv_check(int n, int tag, const char *what)
{
    int *r = calloc(n + 1, sizeof(int));
    MPI_Status st;
    CHECK_SUCCESS(MPI_Recv(r, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
    int c = -1;
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == n, "%s: count %d, expected %d", what, c, n);
    check(r, n, peer, tag, what);
    free(r);
}

static void handshake(void)
{
    int d = 0;
    MPI_Sendrecv(&d, 0, MPI_INT, peer, 900, &d, 0, MPI_INT, peer, 900, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int size, rc;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *s = malloc(LEN * sizeof(int));

    if (rank < 2 && size >= 2) {
        peer = 1 - rank;
        /* --- Ssend: small and large; the receiver posts late ---------------- */
        int lens[3] = {4, LEN, 0};
        for (int k = 0; k < 3; k++) {
            int tag = 10 + k;
            handshake();
            if (rank == 0) {
                fill(s, lens[k], 0, tag);
                double t0 = MPI_Wtime();
                CHECK_SUCCESS(MPI_Ssend(s, lens[k], MPI_INT, 1, tag, MPI_COMM_WORLD));
                double dt = MPI_Wtime() - t0;
                CHECK(dt > 0.1,
                      "Ssend of %d ints returned after %.3f s, before the receive was posted",
                      lens[k], dt);
            } else {
                usleep(300000);
                recv_check(lens[k], tag, "Ssend");
            }
        }
        /* --- Issend: not complete until the matching receive starts ---------- */
        if (rank == 0) {
            MPI_Request req;
            int flag = 1;
            fill(s, 4, 0, 12);
            CHECK_SUCCESS(MPI_Issend(s, 4, MPI_INT, 1, 12, MPI_COMM_WORLD, &req));
            for (int i = 0; i < 20; i++) {
                CHECK_SUCCESS(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag, "Issend completed before the receive was posted (try %d)", i);
                if (flag)
                    break;
                usleep(5000);
            }
            handshake(); /* the receiver posts after this */
            if (!flag)
                CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            handshake();
            recv_check(4, 12, "Issend");
        }

        /* --- Rsend / Irsend to receives already posted ----------------------- */
        for (int k = 0; k < 2; k++) {
            int n = lens[k], tag = 20 + k;
            if (rank == 1) {
                int *r = calloc(n, sizeof(int)), *r2 = calloc(n, sizeof(int));
                MPI_Request req[2];
                CHECK_SUCCESS(MPI_Irecv(r, n, MPI_INT, 0, tag, MPI_COMM_WORLD, &req[0]));
                CHECK_SUCCESS(MPI_Irecv(r2, n, MPI_INT, 0, tag + 50, MPI_COMM_WORLD, &req[1]));
                handshake();
                MPI_Status sts[2];
                CHECK_SUCCESS(MPI_Waitall(2, req, sts));
                check(r, n, 0, tag, "Rsend");
                check(r2, n, 0, tag + 50, "Irsend");
                free(r);
                free(r2);
            } else {
                int *s2 = malloc(n * sizeof(int));
                fill(s, n, 0, tag);
                fill(s2, n, 0, tag + 50);
                handshake();
                CHECK_SUCCESS(MPI_Rsend(s, n, MPI_INT, 1, tag, MPI_COMM_WORLD));
                MPI_Request req;
                CHECK_SUCCESS(MPI_Irsend(s2, n, MPI_INT, 1, tag + 50, MPI_COMM_WORLD, &req));
                CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
                free(s2);
            }
        }

        /* --- Bsend: several messages through one attached buffer ------------- */
        const int nmsg = 5;
        int bufsize = nmsg * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
        char *bbuf = malloc(bufsize);
        CHECK_SUCCESS(MPI_Buffer_attach(bbuf, bufsize));
        if (rank == 0) {
            int *msgs = malloc(nmsg * LEN * sizeof(int));
            for (int m = 0; m < nmsg; m++) {
                int n = (m % 2) ? LEN : 7 * m + 1;
                fill(msgs + m * LEN, n, 0, 30 + m);
                if (m == 3) {
                    MPI_Request req;
                    CHECK_SUCCESS(
                        MPI_Ibsend(msgs + m * LEN, n, MPI_INT, 1, 30 + m, MPI_COMM_WORLD, &req));
                    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
                } else {
                    CHECK_SUCCESS(MPI_Bsend(msgs + m * LEN, n, MPI_INT, 1, 30 + m, MPI_COMM_WORLD));
                }
            }
            /* The user buffer may be reused at once: the data was copied. */
            memset(msgs, 0, nmsg * LEN * sizeof(int));
            free(msgs);
            handshake(); /* the receiver starts receiving only now */
        } else {
            handshake();
            for (int m = nmsg - 1; m >= 0; m--) /* any order: tags differ */
                recv_check((m % 2) ? LEN : 7 * m + 1, 30 + m, "Bsend");
        }
        void *detached = NULL;
        int detached_size = -1;
        CHECK_SUCCESS(MPI_Buffer_detach(&detached, &detached_size));
        CHECK(detached == bbuf, "detach returned %p, attached %p", detached, (void *)bbuf);
        CHECK_INT(detached_size, bufsize);

        /* --- Detach waits for buffered messages still in flight ------------- */
        CHECK_SUCCESS(MPI_Buffer_attach(bbuf, bufsize));
        if (rank == 0) {
            fill(s, LEN, 0, 40);
            CHECK_SUCCESS(MPI_Bsend(s, LEN, MPI_INT, 1, 40, MPI_COMM_WORLD));
            memset(s, 0, LEN * sizeof(int));
            CHECK_SUCCESS(MPI_Buffer_detach(&detached, &detached_size));
        } else {
            usleep(100000);
            recv_check(LEN, 40, "Bsend before detach");
            CHECK_SUCCESS(MPI_Buffer_detach(&detached, &detached_size));
        }
        CHECK(detached == bbuf && detached_size == bufsize, "detach gave %p/%d", detached,
              detached_size);

        /* --- MPI_ERR_BUFFER: no buffer, and a buffer too small ---------------- */
        if (rank == 0) {
            fill(s, LEN, 0, 50);
            rc = MPI_Bsend(s, 10, MPI_INT, 1, 50, MPI_COMM_WORLD);
            CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);
            int small = 100 + MPI_BSEND_OVERHEAD;
            char *sb = malloc(small);
            CHECK_SUCCESS(MPI_Buffer_attach(sb, small));
            rc = MPI_Bsend(s, LEN, MPI_INT, 1, 50, MPI_COMM_WORLD);
            CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);
            /* a message that fits still goes through */
            fill(s, 100 / (int)sizeof(int), 0, 51);
            CHECK_SUCCESS(MPI_Bsend(s, 100 / (int)sizeof(int), MPI_INT, 1, 51, MPI_COMM_WORLD));
            CHECK_SUCCESS(MPI_Buffer_detach(&detached, &detached_size));
            CHECK(detached == sb && detached_size == small, "detach gave %p/%d", detached,
                  detached_size);
            free(sb);
            /* detach with nothing attached */
            rc = MPI_Buffer_detach(&detached, &detached_size);
            CHECK(rc == MPI_SUCCESS || mtest_err_class(rc) == MPI_ERR_BUFFER,
                  "detach with no buffer: %d (%s)", rc, mtest_err_text(rc));
        } else {
            recv_check(100 / (int)sizeof(int), 51, "Bsend that fits");
        }
        free(bbuf);
    }
    free(s);
    return mtest_finish();
}
