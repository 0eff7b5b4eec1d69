/* MPI_Bcast from every root, for several counts (including 0 and large),
 * predefined types and a strided derived type; the gaps of the derived
 * type must stay untouched. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int counts[] = {0, 1, 7, 1000, 200000};
    int *ibuf = malloc(200000 * sizeof(int));
    double *dbuf = malloc(200000 * sizeof(double));

    for (int root = 0; root < size; root++) {
        for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            int n = counts[c];
            for (int i = 0; i < n; i++) {
                ibuf[i] = rank == root ? mtest_pattern(root, n, i) : -1;
                dbuf[i] = rank == root ? 0.5 * i + root : -1.0;
            }
            CHECK_SUCCESS(MPI_Bcast(ibuf, n, MPI_INT, root, MPI_COMM_WORLD));
            CHECK_SUCCESS(MPI_Bcast(dbuf, n, MPI_DOUBLE, root, MPI_COMM_WORLD));
            int bad = 0;
            for (int i = 0; i < n; i++)
                if (ibuf[i] != mtest_pattern(root, n, i) || dbuf[i] != 0.5 * i + root)
                    bad++;
            CHECK(bad == 0, "root %d count %d: %d wrong elements", root, n, bad);
        }
    }

    /* A vector type: 100 blocks of 2 ints with stride 3; the third int of
     * every block is a gap that keeps each process's own value. */
    MPI_Datatype vec;
    MPI_Type_vector(100, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < 600; i++)
            ibuf[i] = rank == root ? i : -1000 - rank;
        CHECK_SUCCESS(MPI_Bcast(ibuf, 2, vec, root, MPI_COMM_WORLD));
        int bad = 0;
        for (int i = 0; i < 600; i++) {
            /* the extent is 299 ints: instance k starts at int 299*k */
            int q = i < 299 ? i : i - 299;
            int is_data = i < 2 * 299 && q % 3 != 2;
            int want = (is_data || rank == root) ? i : -1000 - rank;
            if (ibuf[i] != want)
                bad++;
        }
        CHECK(bad == 0, "vector bcast from %d: %d wrong elements", root, bad);
    }
    MPI_Type_free(&vec);

    /* A subcommunicator. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int v = rank;
    CHECK_SUCCESS(MPI_Bcast(&v, 1, MPI_INT, 0, half));
    CHECK_INT(v, rank % 2);
    MPI_Comm_free(&half);

    free(ibuf);
    free(dbuf);
    return mtest_finish();
}
