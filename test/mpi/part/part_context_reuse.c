/* Partitioned operations pair by init order per (communicator, peer, tag). A communicator's
 * context id is reused after MPI_Comm_free, so the pairing numbers must start again on the
 * new communicator: here every rank runs partitioned self-traffic on duplicates of
 * MPI_COMM_SELF (freed), then a ring on a duplicate of MPI_COMM_WORLD that gets one of those
 * ids on some ranks only. Before the fix the ring never matched (mpi4py's
 * test_p2p_buf_part hung the same way). Values are checked on every rank. */
#include "mtest.h"

static void exchange(MPI_Comm comm, int dest, int source, int count, int parts, int value)
{
    int sbuf[64], rbuf[64];
    for (int i = 0; i < count * parts; i++) {
        sbuf[i] = value + i;
        rbuf[i] = -1;
    }
    MPI_Request sreq, rreq;
    CHECK_SUCCESS(MPI_Psend_init(sbuf, parts, count, MPI_INT, dest, 5, comm, MPI_INFO_NULL, &sreq));
    CHECK_SUCCESS(
        MPI_Precv_init(rbuf, parts, count, MPI_INT, source, 5, comm, MPI_INFO_NULL, &rreq));
    for (int round = 0; round < 2; round++) {
        CHECK_SUCCESS(MPI_Start(&rreq));
        CHECK_SUCCESS(MPI_Start(&sreq));
        for (int i = 0; i < parts; i++)
            CHECK_SUCCESS(MPI_Pready(i, sreq));
        CHECK_SUCCESS(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
        CHECK_SUCCESS(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    }
    int expected_base = value; /* every rank sends the same pattern for a given value */
    for (int i = 0; i < count * parts; i++)
        CHECK(rbuf[i] == expected_base + i, "element %d is %d, expected %d", i, rbuf[i],
              expected_base + i);
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Rank-dependent number of self duplicates, so the ids' histories differ across ranks. */
    for (int k = 0; k < 2 + rank; k++) {
        MPI_Comm self;
        CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_SELF, &self));
        for (int count = 0; count < 3; count++)
            exchange(self, 0, 0, count, 2, 100 * k);
        CHECK_SUCCESS(MPI_Comm_free(&self));
    }
    for (int k = 0; k < 3; k++) {
        MPI_Comm world;
        CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &world));
        const int dest = (rank + 1) % size, source = (rank + size - 1) % size;
        for (int count = 0; count < 3; count++)
            for (int parts = 1; parts < 4; parts++)
                exchange(world, dest, source, count, parts, 1000 * k);
        CHECK_SUCCESS(MPI_Comm_free(&world));
    }
    return mtest_finish();
}
