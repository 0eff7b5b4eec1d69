/* MPI_Gather and MPI_Scatter from every root: rank-dependent blocks,
 * MPI_IN_PLACE at the root, different but matching type signatures on the
 * two sides (ints vs. a contiguous type, a strided receive type). */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int counts[] = {1, 5, 3000};
    int *send = malloc(3000 * sizeof(int) * size), *recv = malloc(2 * 3000 * sizeof(int) * size);

    for (int root = 0; root < size; root++) {
        for (unsigned c = 0; c < 3; c++) {
            int n = counts[c];
            /* Gather */
            for (int i = 0; i < n; i++)
                send[i] = mtest_pattern(rank, root, i);
            for (int i = 0; i < n * size; i++)
                recv[i] = -1;
            CHECK_SUCCESS(MPI_Gather(send, n, MPI_INT, recv, n, MPI_INT, root, MPI_COMM_WORLD));
            if (rank == root) {
                int bad = 0;
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < n; i++)
                        if (recv[r * n + i] != mtest_pattern(r, root, i))
                            bad++;
                CHECK(bad == 0, "gather root %d n %d: %d wrong", root, n, bad);
            }
            /* Gather in place */
            for (int i = 0; i < n * size; i++)
                recv[i] =
                    rank == root ? (i / n == root ? mtest_pattern(root, root, i % n) : -1) : -1;
            if (rank == root)
                CHECK_SUCCESS(
                    MPI_Gather(MPI_IN_PLACE, n, MPI_INT, recv, n, MPI_INT, root, MPI_COMM_WORLD));
            else
                CHECK_SUCCESS(
                    MPI_Gather(send, n, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
            if (rank == root) {
                int bad = 0;
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < n; i++)
                        if (recv[r * n + i] != mtest_pattern(r, root, i))
                            bad++;
                CHECK(bad == 0, "in-place gather root %d n %d: %d wrong", root, n, bad);
            }

            /* Scatter */
            if (rank == root)
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < n; i++)
                        send[r * n + i] = mtest_pattern(r, root + 100, i);
            for (int i = 0; i < n; i++)
                recv[i] = -1;
            CHECK_SUCCESS(MPI_Scatter(send, n, MPI_INT, recv, n, MPI_INT, root, MPI_COMM_WORLD));
            int bad = 0;
            for (int i = 0; i < n; i++)
                if (recv[i] != mtest_pattern(rank, root + 100, i))
                    bad++;
            CHECK(bad == 0, "scatter root %d n %d: %d wrong", root, n, bad);
            /* Scatter in place: the root's block stays where it is */
            if (rank == root) {
                CHECK_SUCCESS(
                    MPI_Scatter(send, n, MPI_INT, MPI_IN_PLACE, n, MPI_INT, root, MPI_COMM_WORLD));
                bad = 0;
                for (int i = 0; i < n * size; i++)
                    if (send[i] != mtest_pattern(i / n, root + 100, i % n))
                        bad++;
                CHECK(bad == 0, "in-place scatter changed the send buffer");
            } else {
                for (int i = 0; i < n; i++)
                    recv[i] = -1;
                CHECK_SUCCESS(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, root,
                                          MPI_COMM_WORLD));
                bad = 0;
                for (int i = 0; i < n; i++)
                    if (recv[i] != mtest_pattern(rank, root + 100, i))
                        bad++;
                CHECK(bad == 0, "in-place scatter root %d: %d wrong at rank %d", root, bad, rank);
            }
        }

        /* Matching signatures, different types: send 4 ints, receive one
         * "4 ints with a gap after each" (stride 2) element per process. */
        MPI_Datatype strided, resized;
        MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
        MPI_Type_create_resized(strided, 0, 8 * sizeof(int), &resized);
        MPI_Type_commit(&resized);
        for (int i = 0; i < 4; i++)
            send[i] = rank * 10 + i;
        for (int i = 0; i < 8 * size; i++)
            recv[i] = -7;
        CHECK_SUCCESS(MPI_Gather(send, 4, MPI_INT, recv, 1, resized, root, MPI_COMM_WORLD));
        if (rank == root) {
            int bad = 0;
            for (int r = 0; r < size; r++)
                for (int j = 0; j < 8; j++) {
                    int want = j % 2 == 0 ? r * 10 + j / 2 : -7;
                    if (recv[r * 8 + j] != want)
                        bad++;
                }
            CHECK(bad == 0, "strided gather root %d: %d wrong", root, bad);
        }
        /* and back: scatter the strided layout, receive plain ints */
        int four[4] = {-1, -1, -1, -1};
        CHECK_SUCCESS(MPI_Scatter(recv, 1, resized, four, 4, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < 4; i++)
            CHECK_INT(four[i], rank * 10 + i);
        MPI_Type_free(&resized);
        MPI_Type_free(&strided);
    }
    free(send);
    free(recv);
    return mtest_finish();
}
