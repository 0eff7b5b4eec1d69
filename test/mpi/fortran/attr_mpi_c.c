/* C side of attr_mpi.f90: reads, sets and copies attributes that Fortran callbacks and
 * Fortran calls see too (MPI 4.1 section 19.3.7: C gets a pointer to the value a Fortran call
 * stored, an MPI_Aint for MPI_Comm_set_attr and an MPI_Fint for MPI_Attr_put, as for the
 * predefined MPI_TAG_UB; a pointer set from C reads in Fortran as its address-sized integer).
 * Names are gfortran's (lower case, one trailing underscore); handles arrive as MPI_Fint. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* An attribute Fortran set with MPI_Comm_set_attr (INTEGER(KIND=MPI_ADDRESS_KIND)). */
void cread_attr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *val, MPI_Fint *flag)
{
    MPI_Aint *v = NULL;
    int f = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &v, &f);
    *val = f && v ? *v : -1;
    *flag = f;
}

/* An attribute Fortran set with MPI_Attr_put (default INTEGER). */
void cread_attr1_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *val, MPI_Fint *flag)
{
    MPI_Fint *v = NULL;
    int f = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &v, &f);
    *val = f && v ? *v : -1;
    *flag = f;
}

void cset_attr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *val)
{
    MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *key, (void *)(intptr_t)*val);
}

void cdup_(MPI_Fint *comm, MPI_Fint *newcomm)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_Comm_f2c(*comm), &c);
    *newcomm = MPI_Comm_c2f(c);
}

void cfree_(MPI_Fint *comm)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    MPI_Comm_free(&c);
    *comm = MPI_Comm_c2f(c);
}

/* A keyval made in C with the predefined copy function that copies the value. */
void ckeyval_(MPI_Fint *key)
{
    int k;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    *key = k;
}

void ctagub_(MPI_Aint *val)
{
    int *p = NULL, f = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &f);
    *val = f ? *p : -1;
}
