/* Error paths of the collectives added with the schedules:
 *  - mismatched counts: a receive that is too small fails with
 *    MPI_ERR_TRUNCATE where it happens (root of Gatherv, a Bcast leaf, an
 *    Alltoallv block), the collective still completes everywhere, and the
 *    communicator keeps working;
 *  - Alltoallw with an invalid datatype in the arrays: MPI_ERR_TYPE.
 * (An unknown STMPI_COLL_*_ALGORITHM stops MPI_Init: init/params.sh.) */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, rc;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request req;
    int a[64], b[64 * 8];
    for (int i = 0; i < 64; i++)
        a[i] = rank * 100 + i;

    if (size > 1) {
        /* Gatherv: the root expects one int less from rank 1. */
        int rc_[8], disp[8];
        for (int r = 0; r < size; r++) {
            rc_[r] = r == 1 ? 3 : 4;
            disp[r] = 4 * r;
        }
        rc = MPI_Gatherv(a, 4, MPI_INT, b, rc_, disp, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0)
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
        else
            CHECK_SUCCESS(rc);
        rc = MPI_Igatherv(a, 4, MPI_INT, b, rc_, disp, MPI_INT, 0, MPI_COMM_WORLD, &req);
        CHECK_SUCCESS(rc);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rank == 0)
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
        else
            CHECK_SUCCESS(rc);

        /* Bcast: the last rank receives 2 ints of 4. */
        rc = MPI_Bcast(a, rank == size - 1 ? 2 : 4, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == size - 1)
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
        else
            CHECK_SUCCESS(rc);

        /* Alltoallv: rank 0 sends 2 ints to each, everyone expects 1 from 0. */
        int sc[8], sd[8], rcn[8], rd[8];
        for (int r = 0; r < size; r++) {
            sc[r] = rank == 0 ? 2 : 1;
            sd[r] = 2 * r;
            rcn[r] = 1;
            rd[r] = r;
        }
        rc = MPI_Alltoallv(a, sc, sd, MPI_INT, b, rcn, rd, MPI_INT, MPI_COMM_WORLD);
        if (rank != 0)
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE);
        else
            CHECK_ERR_CLASS(rc, MPI_ERR_TRUNCATE); /* its own block too */
    }

    /* Alltoallw: an invalid type handle. */
    int sc[8], sd[8];
    MPI_Datatype ty[8];
    for (int r = 0; r < size; r++) {
        sc[r] = 1;
        sd[r] = 4 * r;
        ty[r] = MPI_INT;
    }
    ty[size - 1] = MPI_DATATYPE_NULL;
    rc = MPI_Alltoallw(a, sc, sd, ty, b, sc, sd, ty, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);

    /* Everything still works. */
    int one = 1, sum = 0;
    CHECK_SUCCESS(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(sum, size);
    CHECK_SUCCESS(MPI_Barrier(MPI_COMM_WORLD));
    return mtest_finish();
}
