/* MPI_ANY_SOURCE across peers of both kinds: run as 2 nodes x 2 ranks, rank 0
 * reaches rank 1 by shared memory and ranks 2, 3 by the network. Every other
 * rank sends a numbered stream (eager and rendezvous sizes mixed) to rank 0,
 * which receives from MPI_ANY_SOURCE and checks per-source order and content;
 * then a wildcard probe + receive round and an exchange with every peer. */
#include <stdlib.h>

#include "mtest.h"

#define COUNT 60
#define BIG (64 * 1024)

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc(BIG * sizeof(int));
    if (rank == 0) {
        int next[64] = {0};
        for (int n = 0; n < COUNT * (size - 1); ++n) {
            MPI_Status st;
            CHECK_SUCCESS(MPI_Recv(buf, BIG, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
            const int src = st.MPI_SOURCE;
            int got = 0;
            MPI_Get_count(&st, MPI_INT, &got);
            const int expect = next[src] % 5 == 0 ? BIG : 1 + next[src];
            CHECK(buf[0] == next[src], "from %d: message %d arrived as %d", src, buf[0], next[src]);
            CHECK_INT(got, expect);
            CHECK_INT(buf[got - 1], src * 1000 + buf[0]);
            ++next[src];
        }
        for (int src = 1; src < size; ++src)
            CHECK_INT(next[src], COUNT);
    } else {
        for (int i = 0; i < COUNT; ++i) {
            const int n = i % 5 == 0 ? BIG : 1 + i;
            buf[0] = i;
            buf[n - 1] = rank * 1000 + i;
            CHECK_SUCCESS(MPI_Send(buf, n, MPI_INT, 0, 7, MPI_COMM_WORLD));
        }
    }
    /* Everyone sends its rank to everyone; wildcard probe then receive. */
    for (int peer = 0; peer < size; ++peer)
        if (peer != rank)
            MPI_Send(&rank, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
    int seen = 0;
    for (int n = 0; n < size - 1; ++n) {
        MPI_Status st;
        int v = -1;
        CHECK_SUCCESS(MPI_Probe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st));
        CHECK_SUCCESS(
            MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_INT(v, st.MPI_SOURCE);
        seen |= 1 << v;
    }
    CHECK_INT(seen, ((1 << size) - 1) & ~(1 << rank));
    free(buf);
    return mtest_finish();
}
