/* MPI_Allgather and MPI_Alltoall: rank-dependent blocks on every process,
 * MPI_IN_PLACE, several counts, and a derived receive type. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int counts[] = {0, 1, 13, 5000};
    int *send = malloc(5000 * sizeof(int) * size), *recv = malloc(5000 * sizeof(int) * size);

    for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int n = counts[c], bad = 0;
        /* Allgather */
        for (int i = 0; i < n; i++)
            send[i] = mtest_pattern(rank, 1, i);
        for (int i = 0; i < n * size; i++)
            recv[i] = -1;
        CHECK_SUCCESS(MPI_Allgather(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                if (recv[r * n + i] != mtest_pattern(r, 1, i))
                    bad++;
        CHECK(bad == 0, "allgather n %d: %d wrong", n, bad);
        /* in place */
        for (int i = 0; i < n * size; i++)
            recv[i] = i / (n ? n : 1) == rank ? mtest_pattern(rank, 2, i % n) : -1;
        CHECK_SUCCESS(
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, MPI_COMM_WORLD));
        bad = 0;
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                if (recv[r * n + i] != mtest_pattern(r, 2, i))
                    bad++;
        CHECK(bad == 0, "in-place allgather n %d: %d wrong", n, bad);

        /* Alltoall: block for r is pattern(rank -> r) */
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                send[r * n + i] = mtest_pattern(rank, r + 3, i);
        for (int i = 0; i < n * size; i++)
            recv[i] = -1;
        CHECK_SUCCESS(MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD));
        bad = 0;
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                if (recv[r * n + i] != mtest_pattern(r, rank + 3, i))
                    bad++;
        CHECK(bad == 0, "alltoall n %d: %d wrong", n, bad);
        /* in place */
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                recv[r * n + i] = mtest_pattern(rank, r + 50, i);
        CHECK_SUCCESS(
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, MPI_COMM_WORLD));
        bad = 0;
        for (int r = 0; r < size; r++)
            for (int i = 0; i < n; i++)
                if (recv[r * n + i] != mtest_pattern(r, rank + 50, i))
                    bad++;
        CHECK(bad == 0, "in-place alltoall n %d: %d wrong", n, bad);
    }

    /* Derived receive type: pairs of ints received as one MPI_2INT-like
     * contiguous type, strided by a resized extent of 3 ints. */
    MPI_Datatype two, spaced;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_create_resized(two, 0, 3 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
    int mine[2] = {rank, -rank};
    for (int i = 0; i < 3 * size; i++)
        recv[i] = 99;
    CHECK_SUCCESS(MPI_Allgather(mine, 2, MPI_INT, recv, 1, spaced, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++) {
        CHECK_INT(recv[3 * r], r);
        CHECK_INT(recv[3 * r + 1], -r);
        CHECK_INT(recv[3 * r + 2], 99);
    }
    for (int r = 0; r < size; r++) {
        send[2 * r] = rank * 100 + r;
        send[2 * r + 1] = -(rank * 100 + r);
    }
    for (int i = 0; i < 3 * size; i++)
        recv[i] = 99;
    CHECK_SUCCESS(MPI_Alltoall(send, 2, MPI_INT, recv, 1, spaced, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++) {
        CHECK_INT(recv[3 * r], r * 100 + rank);
        CHECK_INT(recv[3 * r + 1], -(r * 100 + rank));
        CHECK_INT(recv[3 * r + 2], 99);
    }
    MPI_Type_free(&spaced);
    MPI_Type_free(&two);
    free(send);
    free(recv);
    return mtest_finish();
}
