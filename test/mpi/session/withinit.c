/* Sessions together with MPI_Init: a session opened after MPI_Init, a
 * communicator from its WORLD process set compared with MPI_COMM_WORLD, a
 * session that outlives MPI_Finalize and still works, then finalized. */
#include <stdio.h>
#include "mpi.h"

int main(int argc, char **argv)
{
    int errors = 0, rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Session s;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS)
        errors++;
    MPI_Group g;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm comm;
    MPI_Comm_create_from_group(g, "with-init", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
    int result = -1;
    MPI_Comm_compare(comm, MPI_COMM_WORLD, &result);
    if (result != MPI_CONGRUENT) {
        errors++;
        fprintf(stderr, "compare gave %d\n", result);
    }
    int total = -1;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* The session still works after MPI_Finalize */
    int sum = -1;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (sum != size * (size - 1) / 2) {
        total++;
        fprintf(stderr, "allreduce after MPI_Finalize gave %d\n", sum);
    }
    int flag = 0;
    MPI_Finalized(&flag);
    if (!flag)
        total++;
    MPI_Comm_free(&comm);
    MPI_Group_free(&g);
    if (MPI_Session_finalize(&s) != MPI_SUCCESS)
        total++;
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found errors\n");
    return total == 0 ? 0 : 1;
}
