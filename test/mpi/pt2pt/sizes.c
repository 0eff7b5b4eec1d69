/* Blocking send/recv of messages around the eager/rendezvous boundary and up
 * to 4 MiB, in both directions, with the receive posted before the send
 * (expected) and after it (unexpected), and into larger receive buffers.
 * Every byte is checked. */
#include <unistd.h>
#include "mtest.h"

static const int sizes[] = {0,
                            1,
                            8,
                            1024,
                            16 * 1024 - 1,
                            16 * 1024,
                            16 * 1024 + 1,
                            64 * 1024,
                            1024 * 1024,
                            4 * 1024 * 1024};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXSIZE (4 * 1024 * 1024)

static unsigned char byte_at(int src, int size, int mode, long i)
{
    return (unsigned char)(mtest_pattern(src, size + mode, i) >> 7);
}

static void check_buf(const unsigned char *buf, int n, int src, int size, int mode, int slack)
{
    for (long i = 0; i < n; i++)
        if (buf[i] != byte_at(src, size, mode, i)) {
            CHECK(0, "size %d mode %d from %d: byte %ld is %d, expected %d", size, mode, src, i,
                  buf[i], byte_at(src, size, mode, i));
            return;
        }
    /* bytes past the message are untouched */
    for (long i = n; i < n + slack; i++)
        if (buf[i] != 0xa5) {
            CHECK(0, "size %d mode %d: byte %ld past the message changed to %d", size, mode, i,
                  buf[i]);
            return;
        }
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *sbuf = malloc(MAXSIZE), *rbuf = malloc(MAXSIZE + 64);
    const int slack = 64;

    if (rank < 2 && size >= 2) {
        int peer = 1 - rank;
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k];
            /* mode 0: 0 -> 1 then 1 -> 0 with plain blocking calls
             * mode 1: receive posted before the send (Irecv + Barrier-like handshake)
             * mode 2: send well before the receive (the receiver sleeps first)
             * mode 3: receive buffer larger than the message */
            for (int mode = 0; mode < 4; mode++) {
                MPI_Status st;
                for (long i = 0; i < n; i++)
                    sbuf[i] = byte_at(rank, n, mode, i);
                memset(rbuf, 0xa5, (size_t)n + slack);
                int rcount = (mode == 3) ? n + slack : n;
                int tag = k * 10 + mode;
                if (mode == 1) {
                    MPI_Request req;
                    int dummy = 0;
                    CHECK_SUCCESS(
                        MPI_Irecv(rbuf, rcount, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
                    /* tell the peer our receive is posted */
                    CHECK_SUCCESS(MPI_Sendrecv(&dummy, 0, MPI_INT, peer, 999, &dummy, 0, MPI_INT,
                                               peer, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    CHECK_SUCCESS(MPI_Send(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
                    CHECK_SUCCESS(MPI_Wait(&req, &st));
                } else if (mode == 2) {
                    /* both send first (nonblocking so large messages cannot deadlock),
                     * then receive after a delay */
                    MPI_Request req;
                    CHECK_SUCCESS(MPI_Isend(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
                    usleep(20000);
                    CHECK_SUCCESS(MPI_Recv(rbuf, rcount, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
                } else if (rank == 0) {
                    CHECK_SUCCESS(MPI_Send(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
                    CHECK_SUCCESS(MPI_Recv(rbuf, rcount, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                } else {
                    CHECK_SUCCESS(MPI_Recv(rbuf, rcount, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                    CHECK_SUCCESS(MPI_Send(sbuf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
                }
                int count = -1;
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == n, "size %d mode %d: count %d", n, mode, count);
                CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag,
                      "size %d mode %d: source %d tag %d", n, mode, st.MPI_SOURCE, st.MPI_TAG);
                check_buf(rbuf, n, peer, n, mode, slack);
            }
        }
        /* The same sizes as MPI_INT elements (4x the bytes), 0 -> 1 only, up to 4 MiB. */
        int *ib = (int *)sbuf, *ir = (int *)rbuf;
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k] / 4;
            if (rank == 0) {
                for (int i = 0; i < n; i++)
                    ib[i] = mtest_pattern(0, n, i);
                CHECK_SUCCESS(MPI_Send(ib, n, MPI_INT, 1, 500 + k, MPI_COMM_WORLD));
            } else {
                MPI_Status st;
                for (int i = 0; i < n; i++)
                    ir[i] = -1;
                CHECK_SUCCESS(MPI_Recv(ir, n, MPI_INT, 0, 500 + k, MPI_COMM_WORLD, &st));
                int count = -1;
                MPI_Get_count(&st, MPI_INT, &count);
                CHECK_INT(count, n);
                for (int i = 0; i < n; i++)
                    if (ir[i] != mtest_pattern(0, n, i)) {
                        CHECK(0, "ints %d: element %d is %d, expected %d", n, i, ir[i],
                              mtest_pattern(0, n, i));
                        break;
                    }
            }
        }
    }
    free(sbuf);
    free(rbuf);
    return mtest_finish();
}
