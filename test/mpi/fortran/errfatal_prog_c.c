/* C helper of errfatal_prog.f90: a reduction operation whose function makes an erroneous C
   call (MPI_Comm_rank on an invalid communicator), for the case where a C callback runs inside
   a Fortran call. */
#include <mpi.h>

static void bad_rank_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
    int rank;
    MPI_Comm_rank((MPI_Comm)12345, &rank);
}

void errfatal_make_op_(MPI_Fint *op)
{
    MPI_Op c_op;
    MPI_Op_create(bad_rank_op, 1, &c_op);
    *op = MPI_Op_c2f(c_op);
}
