// f77 entry points outside the MPI Forum's API data that MPICH's
// libmpichfort.so.12 exports, so programs built with MPICH link here too:
// the MPI-1 functions removed in MPI 3.0 (their addresses and displacements
// are default INTEGERs) and the MPIX extensions of MPICH (ULFM, GPU queries,
// error class removal) that our libmpich implements.
#include <mpi.h>

#include <vector>

#include "binding/fortran/fortran.h"

namespace F = stmpi::binding::fortran;

// ---- removed in MPI 3.0 ------------------------------------------------------------

extern "C" STMPI_F77_API void pmpi_address_(void* location, MPI_Fint* address, MPI_Fint* ierror) {
  MPI_Aint a = 0;
  const F::FortranRoutine routine("MPI_ADDRESS", "MPI_Get_address");
  int err = PMPI_Get_address(F::buffer(location), &a);
  if (err == MPI_SUCCESS) *address = static_cast<MPI_Fint>(a);
  *ierror = err;
}
STMPI_F77_NAMES(pmpi_address_, "address", "ADDRESS")

extern "C" STMPI_F77_API void pmpi_errhandler_create_(MPI_Comm_errhandler_function* fn,
                                                      MPI_Fint* errhandler, MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPI_ERRHANDLER_CREATE", "MPI_Comm_create_errhandler");
  *ierror = PMPI_Comm_create_errhandler(fn, errhandler);
}
STMPI_F77_NAMES(pmpi_errhandler_create_, "errhandler_create", "ERRHANDLER_CREATE")

extern "C" STMPI_F77_API void pmpi_errhandler_get_(MPI_Fint* comm, MPI_Fint* errhandler,
                                                   MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPI_ERRHANDLER_GET", "MPI_Comm_get_errhandler");
  *ierror = PMPI_Comm_get_errhandler(*comm, errhandler);
}
STMPI_F77_NAMES(pmpi_errhandler_get_, "errhandler_get", "ERRHANDLER_GET")

extern "C" STMPI_F77_API void pmpi_errhandler_set_(MPI_Fint* comm, MPI_Fint* errhandler,
                                                   MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPI_ERRHANDLER_SET", "MPI_Comm_set_errhandler");
  *ierror = PMPI_Comm_set_errhandler(*comm, *errhandler);
}
STMPI_F77_NAMES(pmpi_errhandler_set_, "errhandler_set", "ERRHANDLER_SET")

namespace {

// Which bound of a datatype MPI_TYPE_EXTENT, _LB and _UB return.
enum class Bound { kExtent, kLb, kUb };

void type_bound(MPI_Fint type, MPI_Fint* out, MPI_Fint* ierror, Bound which) {
  MPI_Aint lb = 0, extent = 0;
  int err = PMPI_Type_get_extent(type, &lb, &extent);
  if (err == MPI_SUCCESS) {
    MPI_Aint v = which == Bound::kExtent ? extent : which == Bound::kLb ? lb : lb + extent;
    *out = static_cast<MPI_Fint>(v);
  }
  *ierror = err;
}

std::vector<MPI_Aint> widen(const MPI_Fint* values, MPI_Fint count) {
  std::vector<MPI_Aint> out;
  for (MPI_Fint i = 0; i < count; i++) out.push_back(values[i]);
  return out;
}

}  // namespace

extern "C" STMPI_F77_API void pmpi_type_extent_(MPI_Fint* type, MPI_Fint* extent,
                                                MPI_Fint* ierror) {
  type_bound(*type, extent, ierror, Bound::kExtent);
}
STMPI_F77_NAMES(pmpi_type_extent_, "type_extent", "TYPE_EXTENT")

extern "C" STMPI_F77_API void pmpi_type_lb_(MPI_Fint* type, MPI_Fint* lb, MPI_Fint* ierror) {
  type_bound(*type, lb, ierror, Bound::kLb);
}
STMPI_F77_NAMES(pmpi_type_lb_, "type_lb", "TYPE_LB")

extern "C" STMPI_F77_API void pmpi_type_ub_(MPI_Fint* type, MPI_Fint* ub, MPI_Fint* ierror) {
  type_bound(*type, ub, ierror, Bound::kUb);
}
STMPI_F77_NAMES(pmpi_type_ub_, "type_ub", "TYPE_UB")

extern "C" STMPI_F77_API void pmpi_type_hvector_(MPI_Fint* count, MPI_Fint* blocklength,
                                                 MPI_Fint* stride, MPI_Fint* oldtype,
                                                 MPI_Fint* newtype, MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPI_TYPE_HVECTOR", "MPI_Type_create_hvector");
  *ierror = PMPI_Type_create_hvector(*count, *blocklength, MPI_Aint{*stride}, *oldtype, newtype);
}
STMPI_F77_NAMES(pmpi_type_hvector_, "type_hvector", "TYPE_HVECTOR")

extern "C" STMPI_F77_API void pmpi_type_hindexed_(MPI_Fint* count, MPI_Fint* blocklengths,
                                                  MPI_Fint* displacements, MPI_Fint* oldtype,
                                                  MPI_Fint* newtype, MPI_Fint* ierror) {
  std::vector<MPI_Aint> displs = widen(displacements, *count);
  const F::FortranRoutine routine("MPI_TYPE_HINDEXED", "MPI_Type_create_hindexed");
  *ierror = PMPI_Type_create_hindexed(*count, blocklengths, displs.data(), *oldtype, newtype);
}
STMPI_F77_NAMES(pmpi_type_hindexed_, "type_hindexed", "TYPE_HINDEXED")

extern "C" STMPI_F77_API void pmpi_type_struct_(MPI_Fint* count, MPI_Fint* blocklengths,
                                                MPI_Fint* displacements, MPI_Fint* types,
                                                MPI_Fint* newtype, MPI_Fint* ierror) {
  std::vector<MPI_Aint> displs = widen(displacements, *count);
  const F::FortranRoutine routine("MPI_TYPE_STRUCT", "MPI_Type_create_struct");
  *ierror = PMPI_Type_create_struct(*count, blocklengths, displs.data(), types, newtype);
}
STMPI_F77_NAMES(pmpi_type_struct_, "type_struct", "TYPE_STRUCT")

// ---- MPICH's MPIX extensions ----------------------------------------------------------

#define STMPI_F77X_NAMES(target, lower, upper)             \
  STMPI_F77_ALIAS(target, target##a1, "pmpix_" lower "__") \
  STMPI_F77_ALIAS(target, target##a2, "pmpix_" lower)      \
  STMPI_F77_ALIAS(target, target##a3, "PMPIX_" upper)      \
  STMPI_F77_WEAK(target, target##a4, "mpix_" lower "_")    \
  STMPI_F77_WEAK(target, target##a5, "mpix_" lower "__")   \
  STMPI_F77_WEAK(target, target##a6, "mpix_" lower)        \
  STMPI_F77_WEAK(target, target##a7, "MPIX_" upper)

extern "C" STMPI_F77_API void pmpix_comm_revoke_(MPI_Fint* comm, MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPIX_COMM_REVOKE");
  *ierror = PMPIX_Comm_revoke(*comm);
}
STMPI_F77X_NAMES(pmpix_comm_revoke_, "comm_revoke", "COMM_REVOKE")

extern "C" STMPI_F77_API void pmpix_comm_shrink_(MPI_Fint* comm, MPI_Fint* newcomm,
                                                 MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPIX_COMM_SHRINK");
  *ierror = PMPIX_Comm_shrink(*comm, newcomm);
}
STMPI_F77X_NAMES(pmpix_comm_shrink_, "comm_shrink", "COMM_SHRINK")

extern "C" STMPI_F77_API void pmpix_comm_failure_ack_(MPI_Fint* comm, MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPIX_COMM_FAILURE_ACK");
  *ierror = PMPIX_Comm_failure_ack(*comm);
}
STMPI_F77X_NAMES(pmpix_comm_failure_ack_, "comm_failure_ack", "COMM_FAILURE_ACK")

extern "C" STMPI_F77_API void pmpix_comm_failure_get_acked_(MPI_Fint* comm, MPI_Fint* group,
                                                            MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPIX_COMM_FAILURE_GET_ACKED");
  *ierror = PMPIX_Comm_failure_get_acked(*comm, group);
}
STMPI_F77X_NAMES(pmpix_comm_failure_get_acked_, "comm_failure_get_acked", "COMM_FAILURE_GET_ACKED")

extern "C" STMPI_F77_API void pmpix_comm_agree_(MPI_Fint* comm, MPI_Fint* flag, MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPIX_COMM_AGREE");
  *ierror = PMPIX_Comm_agree(*comm, flag);
}
STMPI_F77X_NAMES(pmpix_comm_agree_, "comm_agree", "COMM_AGREE")

extern "C" STMPI_F77_API void pmpix_gpu_query_support_(MPI_Fint* gpu_type, MPI_Fint* is_supported,
                                                       MPI_Fint* ierror) {
  const F::FortranRoutine routine("MPIX_GPU_QUERY_SUPPORT");
  int err = PMPIX_GPU_query_support(*gpu_type, is_supported);
  if (err == MPI_SUCCESS) *is_supported = F::to_logical(*is_supported);
  *ierror = err;
}
STMPI_F77X_NAMES(pmpix_gpu_query_support_, "gpu_query_support", "GPU_QUERY_SUPPORT")

// INTEGER FUNCTION MPIX_QUERY_CUDA_SUPPORT() and its companions
extern "C" STMPI_F77_API MPI_Fint pmpix_query_cuda_support_() { return PMPIX_Query_cuda_support(); }
STMPI_F77X_NAMES(pmpix_query_cuda_support_, "query_cuda_support", "QUERY_CUDA_SUPPORT")
extern "C" STMPI_F77_API MPI_Fint pmpix_query_hip_support_() { return PMPIX_Query_hip_support(); }
STMPI_F77X_NAMES(pmpix_query_hip_support_, "query_hip_support", "QUERY_HIP_SUPPORT")
extern "C" STMPI_F77_API MPI_Fint pmpix_query_ze_support_() { return PMPIX_Query_ze_support(); }
STMPI_F77X_NAMES(pmpix_query_ze_support_, "query_ze_support", "QUERY_ZE_SUPPORT")
