// MPI-1 functions removed in MPI 3.0 that MPICH's library still exports, so
// that binaries built against old MPICH headers keep running. mpi.h does not
// declare them (MPICH's does not either); each forwards to its replacement.
#include <mpi.h>

#include "binding/call.h"

extern "C" {

STMPI_API int PMPI_Address(void* location, MPI_Aint* address) {
  return PMPI_Get_address(location, address);
}

STMPI_API int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return PMPI_Type_get_extent(datatype, &lb, extent);
}

STMPI_API int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  return PMPI_Type_get_extent(datatype, displacement, &extent);
}

STMPI_API int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint lb = 0, extent = 0;
  const int err = PMPI_Type_get_extent(datatype, &lb, &extent);
  if (err == MPI_SUCCESS) *displacement = lb + extent;
  return err;
}

STMPI_API int PMPI_Type_struct(int count, int* array_of_blocklengths,
                               MPI_Aint* array_of_displacements, MPI_Datatype* array_of_types,
                               MPI_Datatype* newtype) {
  return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                 array_of_types, newtype);
}

STMPI_API int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

STMPI_API int PMPI_Type_hindexed(int count, int* array_of_blocklengths,
                                 MPI_Aint* array_of_displacements, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                   newtype);
}

STMPI_API int PMPI_Errhandler_create(MPI_Comm_errhandler_function* function,
                                     MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(function, errhandler);
}

STMPI_API int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(comm, errhandler);
}

STMPI_API int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return PMPI_Comm_get_errhandler(comm, errhandler);
}

// The MPI_ names are weak aliases, as for every generated function.
#define STMPI_REMOVED_ALIAS(name) \
  STMPI_API decltype(P##name) name __attribute__((weak, alias("P" #name)));
STMPI_REMOVED_ALIAS(MPI_Address)
STMPI_REMOVED_ALIAS(MPI_Type_extent)
STMPI_REMOVED_ALIAS(MPI_Type_lb)
STMPI_REMOVED_ALIAS(MPI_Type_ub)
STMPI_REMOVED_ALIAS(MPI_Type_struct)
STMPI_REMOVED_ALIAS(MPI_Type_hvector)
STMPI_REMOVED_ALIAS(MPI_Type_hindexed)
STMPI_REMOVED_ALIAS(MPI_Errhandler_create)
STMPI_REMOVED_ALIAS(MPI_Errhandler_set)
STMPI_REMOVED_ALIAS(MPI_Errhandler_get)
#undef STMPI_REMOVED_ALIAS

}  // extern "C"
