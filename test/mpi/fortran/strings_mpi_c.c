/* C side of strings_mpi.f90: what C reads for names Fortran set, and the processor name.
 * Names are gfortran's (lower case, one trailing underscore); strings get the hidden length. */
#include <mpi.h>
#include <string.h>

static void to_fortran(const char *s, char *out, size_t outlen, MPI_Fint *len)
{
    size_t n = strlen(s);
    if (n > outlen)
        n = outlen;
    memset(out, ' ', outlen);
    memcpy(out, s, n);
    *len = (MPI_Fint)n;
}

void ccommname_(MPI_Fint *comm, char *out, MPI_Fint *len, size_t outlen)
{
    char s[MPI_MAX_OBJECT_NAME];
    int n = 0;
    MPI_Comm_get_name(MPI_Comm_f2c(*comm), s, &n);
    to_fortran(s, out, outlen, len);
}

void cprocname_(char *out, MPI_Fint *len, size_t outlen)
{
    char s[MPI_MAX_PROCESSOR_NAME];
    int n = 0;
    MPI_Get_processor_name(s, &n);
    to_fortran(s, out, outlen, len);
}

void cinfoget_(MPI_Fint *info, char *out, MPI_Fint *len, size_t outlen)
{
    char s[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(MPI_Info_f2c(*info), "color", MPI_MAX_INFO_VAL, s, &flag);
    to_fortran(flag ? s : "(none)", out, outlen, len);
}
