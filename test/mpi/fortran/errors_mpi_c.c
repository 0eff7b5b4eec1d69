/* C side of errors_mpi.f90: the same bad calls made from C, so that the Fortran program can
 * check that both languages report the same error class; and the C text of an error code.
 * Names are gfortran's (lower case, one trailing underscore); strings get the hidden length. */
#include <mpi.h>
#include <string.h>

/* which: 1 a garbage communicator handle (value comm), 2 MPI_COMM_NULL, 3 MPI_DATATYPE_NULL,
 * 4 count -1, 5 tag -5, 6 rank = size, 7 MPI_OP_NULL, 8 a garbage datatype handle (value dtype) */
void cerrclass_(MPI_Fint *which, MPI_Fint *comm, MPI_Fint *dtype, MPI_Fint *cls)
{
    int buf[4] = {0, 0, 0, 0}, out[4], size, err = MPI_SUCCESS, c = -1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    switch (*which) {
    case 1: err = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_Comm_f2c(*comm)); break;
    case 2: err = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL); break;
    case 3: err = MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD); break;
    case 4: err = MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD); break;
    case 5: err = MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD); break;
    case 6: err = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD); break;
    case 7: err = MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD); break;
    case 8: err = MPI_Send(buf, 1, MPI_Type_f2c(*dtype), 0, 0, MPI_COMM_WORLD); break;
    }
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &c);
    else
        c = MPI_SUCCESS;
    *cls = c;
}

/* The C text of an error code, blank-padded into a Fortran CHARACTER buffer. */
void cerrstring_(MPI_Fint *code, char *out, MPI_Fint *len, size_t outlen)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(*code, s, &n);
    if ((size_t)n > outlen)
        n = (int)outlen;
    memset(out, ' ', outlen);
    memcpy(out, s, (size_t)n);
    *len = n;
}
