/* Rooted collectives on an intercommunicator: the buffers a process does not use may be NULL.
 * In the root group the root (MPI_ROOT) passes sendbuf = NULL to Reduce/Gather and the others
 * (MPI_PROC_NULL) pass NULL for both; in the other group every process passes recvbuf = NULL,
 * also the one whose local rank equals the root's rank (mpi4py's test_cco_buf_inter does this).
 * The MPI_PROC_NULL processes' op and datatype are not significant (MPI_SUM on MPI_BYTE).
 * Results are checked at the root; a NULL recvbuf at MPI_ROOT is still MPI_ERR_BUFFER. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int color = rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int lrank, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    for (int root_group = 0; root_group < 2; root_group++) {
        for (int root = 0; root < 1; root++) {
            if (color == root_group) {
                const int me_root = lrank == root;
                int sum[2] = {-1, -1};
                int *all = malloc(sizeof(int) * 2 * (size_t)rsize);
                if (me_root)
                    CHECK_SUCCESS(MPI_Reduce(NULL, sum, 2, MPI_INT, MPI_SUM, MPI_ROOT, inter));
                else /* op and datatype are not significant here (MPI_SUM on MPI_BYTE) */
                    CHECK_SUCCESS(
                        MPI_Reduce(NULL, NULL, 0, MPI_BYTE, MPI_SUM, MPI_PROC_NULL, inter));
                CHECK_SUCCESS(MPI_Gather(NULL, 0, MPI_INT, me_root ? all : NULL, 2, MPI_INT,
                                         me_root ? MPI_ROOT : MPI_PROC_NULL, inter));
                if (me_root) {
                    /* remote ranks r send {r, 1} */
                    CHECK_INT(sum[0], rsize * (rsize - 1) / 2);
                    CHECK_INT(sum[1], rsize);
                    for (int r = 0; r < rsize; r++) {
                        CHECK_INT(all[2 * r], r);
                        CHECK_INT(all[2 * r + 1], 1);
                    }
                    int rc = MPI_Reduce(NULL, NULL, 2, MPI_INT, MPI_SUM, MPI_ROOT, inter);
                    CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);
                }
                free(all);
            } else {
                int mine[2] = {lrank, 1};
                CHECK_SUCCESS(MPI_Reduce(mine, NULL, 2, MPI_INT, MPI_SUM, root, inter));
                CHECK_SUCCESS(MPI_Gather(mine, 2, MPI_INT, NULL, 0, MPI_INT, root, inter));
            }
        }
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mtest_finish();
}
