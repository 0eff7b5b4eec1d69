/* The MPI-1 functions removed in MPI 3.0 that MPICH's library still exports:
 * binaries built against old headers call them, so they exist and behave as
 * their replacements. mpi.h does not declare them; old headers did. */
#include "mtest.h"

int MPI_Address(void *location, MPI_Aint *address);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_struct(int count, int *blocklengths, MPI_Aint *displacements, MPI_Datatype *types,
                    MPI_Datatype *newtype);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int *blocklengths, MPI_Aint *displacements, MPI_Datatype oldtype,
                      MPI_Datatype *newtype);
int MPI_Errhandler_create(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);

static int handler_calls = 0;
static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct {
        int a;
        double b;
    } pair[2];
    MPI_Aint base, b_addr;
    CHECK_SUCCESS(MPI_Address(&pair[0], &base));
    CHECK_SUCCESS(MPI_Address(&pair[0].b, &b_addr));
    CHECK_INT((long)(b_addr - base), (long)((char *)&pair[0].b - (char *)&pair[0]));

    /* struct {int, double} with the old constructor; extent, lb, ub. */
    int blocks[2] = {1, 1};
    MPI_Aint displs[2] = {0, b_addr - base};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype pair_type;
    CHECK_SUCCESS(MPI_Type_struct(2, blocks, displs, types, &pair_type));
    CHECK_SUCCESS(MPI_Type_commit(&pair_type));
    MPI_Aint extent = 0, lb = -1, ub = 0;
    CHECK_SUCCESS(MPI_Type_extent(pair_type, &extent));
    CHECK_SUCCESS(MPI_Type_lb(pair_type, &lb));
    CHECK_SUCCESS(MPI_Type_ub(pair_type, &ub));
    CHECK_INT((long)extent, (long)sizeof pair[0]);
    CHECK_INT((long)lb, 0);
    CHECK_INT((long)ub, (long)sizeof pair[0]);

    /* hvector of 3 ints every 16 bytes, hindexed of 2 + 1 ints. */
    MPI_Datatype hvec, hidx;
    CHECK_SUCCESS(MPI_Type_hvector(3, 1, 16, MPI_INT, &hvec));
    CHECK_SUCCESS(MPI_Type_commit(&hvec));
    CHECK_SUCCESS(MPI_Type_extent(hvec, &extent));
    CHECK_INT((long)extent, 2 * 16 + (long)sizeof(int));
    int hblocks[2] = {2, 1};
    MPI_Aint hdispls[2] = {0, 12};
    CHECK_SUCCESS(MPI_Type_hindexed(2, hblocks, hdispls, MPI_INT, &hidx));
    CHECK_SUCCESS(MPI_Type_commit(&hidx));
    int tsize = 0;
    MPI_Type_size(hidx, &tsize);
    CHECK_INT(tsize, 3 * (int)sizeof(int));

    /* Send the struct type around a ring and check the values. */
    pair[0].a = rank;
    pair[0].b = rank + 0.5;
    pair[1].a = -1;
    pair[1].b = -1.0;
    MPI_Sendrecv(&pair[0], 1, pair_type, (rank + 1) % size, 5, &pair[1], 1, pair_type,
                 (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int from = (rank + size - 1) % size;
    CHECK_INT(pair[1].a, from);
    CHECK(pair[1].b == from + 0.5, "b=%g", pair[1].b);

    /* Old error handler calls on a communicator. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Errhandler eh, got;
    CHECK_SUCCESS(MPI_Errhandler_create(handler, &eh));
    CHECK_SUCCESS(MPI_Errhandler_set(dup, eh));
    CHECK_SUCCESS(MPI_Errhandler_get(dup, &got));
    CHECK(got == eh, "Errhandler_get returned 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
    MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    CHECK_INT(handler_calls, 1);
    /* Errors of the removed calls are reported like those of their replacements. */
    CHECK_ERR_CLASS(MPI_Type_extent(MPI_DATATYPE_NULL, &extent), MPI_ERR_TYPE);
    CHECK_ERR_CLASS(MPI_Errhandler_set(MPI_COMM_NULL, eh), MPI_ERR_COMM);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&dup);
    MPI_Type_free(&pair_type);
    MPI_Type_free(&hvec);
    MPI_Type_free(&hidx);
    return mtest_finish();
}
