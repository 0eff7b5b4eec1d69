// The internal entry points that MPICH's Fortran library (libmpichfort.so.12)
// calls in libmpich, with MPICH's signatures, so that a Fortran program built
// with MPICH runs on this library with MPICH's own Fortran library:
//
//   MPII_{Comm,Type,Win}_{set,get}_attr  MPI_*_set_attr / _get_attr with the
//       attribute's language type (0: C pointer, 1: INTEGER(KIND=
//       MPI_ADDRESS_KIND), 3: INTEGER; MPICH's MPIR_Attr_type), which the
//       attribute table keeps so C and Fortran read each other's values as
//       MPI 4.1 section 19.3.7 says (src/mpi/comm/attr_table.h);
//   MPII_Keyval_set_proxy  the functions that call a keyval's copy and delete
//       callbacks in the binding's conventions;
//   MPII_Grequest_set_lang_f77  a generalized request whose callbacks are
//       Fortran subroutines;
//   MPIX_Query_cuda_support, _ze_, _hip_  whether MPI calls take that GPU
//       memory as buffers, as the return value: 0 (see
//       src/mpi/mpix/mpich_compat.cc); any time, no lock;
//   MPIR_C_MPI_UNWEIGHTED, MPIR_C_MPI_WEIGHTS_EMPTY  the C sentinels as
//       variables, which MPICH's mpi_f08 glue passes on.
//
// The attribute hooks check their arguments and report errors as the MPI
// calls they stand for do.
#include <mpi.h>

#include "binding/call.h"
#include "mpi/comm/attr.h"
#include "mpi/comm/keyval.h"
#include "mpi/datatype/type_attr.h"
#include "mpi/errhan/error.h"
#include "mpi/request/request.h"
#include "mpi/rma/win.h"

namespace stmpi::binding {
namespace {

// MPICH's MPIR_Attr_type values; anything else is refused.
bool attr_type_of(int value, mpi::AttrType* type) {
  switch (value) {
    case 0: *type = mpi::AttrType::kPointer; return true;
    case 1: *type = mpi::AttrType::kAint; return true;
    case 3: *type = mpi::AttrType::kInt; return true;
    default: return false;
  }
}

int bad_attr_type(Call& call, int value) {
  return call.finish(
      mpi::errhan::make_error(MPI_ERR_ARG, "attribute type %d is not 0, 1 or 3", value));
}

}  // namespace
}  // namespace stmpi::binding

using stmpi::binding::Call;
namespace mpi = stmpi::mpi;

extern "C" {

STMPI_API int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void* value, int type) {
  Call call("MPI_Comm_set_attr");
  mpi::Comm* comm_obj = call.comm(comm, "comm");
  if (call.failed()) return call.result();
  mpi::AttrType as;
  if (!stmpi::binding::attr_type_of(type, &as)) return stmpi::binding::bad_attr_type(call, type);
  return call.finish(mpi::comm_set_attr_as(*comm_obj, keyval, value, as, "MPI_Comm_set_attr"));
}

STMPI_API int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag, int type) {
  Call call("MPI_Comm_get_attr");
  mpi::Comm* comm_obj = call.comm(comm, "comm");
  call.not_null(value, "attribute_val");
  call.not_null(flag, "flag");
  if (call.failed()) return call.result();
  mpi::AttrType as;
  if (!stmpi::binding::attr_type_of(type, &as)) return stmpi::binding::bad_attr_type(call, type);
  return call.finish(
      mpi::comm_get_attr_as(*comm_obj, keyval, value, flag, as, "MPI_Comm_get_attr"));
}

STMPI_API int MPII_Type_set_attr(MPI_Datatype datatype, int keyval, void* value, int type) {
  Call call("MPI_Type_set_attr");
  mpi::Datatype* datatype_obj = call.datatype(datatype, "datatype", /*needs_commit=*/false);
  if (call.failed()) return call.result();
  mpi::AttrType as;
  if (!stmpi::binding::attr_type_of(type, &as)) return stmpi::binding::bad_attr_type(call, type);
  return call.finish(mpi::type_set_attr_as(*datatype_obj, keyval, value, as, "MPI_Type_set_attr"));
}

STMPI_API int MPII_Type_get_attr(MPI_Datatype datatype, int keyval, void* value, int* flag,
                                 int type) {
  Call call("MPI_Type_get_attr");
  mpi::Datatype* datatype_obj = call.datatype(datatype, "datatype", /*needs_commit=*/false);
  call.not_null(value, "attribute_val");
  call.not_null(flag, "flag");
  if (call.failed()) return call.result();
  mpi::AttrType as;
  if (!stmpi::binding::attr_type_of(type, &as)) return stmpi::binding::bad_attr_type(call, type);
  return call.finish(
      mpi::type_get_attr_as(*datatype_obj, keyval, value, flag, as, "MPI_Type_get_attr"));
}

STMPI_API int MPII_Win_set_attr(MPI_Win win, int keyval, void* value, int type) {
  Call call("MPI_Win_set_attr");
  mpi::Win* win_obj = call.win(win, "win");
  if (call.failed()) return call.result();
  mpi::AttrType as;
  if (!stmpi::binding::attr_type_of(type, &as)) return stmpi::binding::bad_attr_type(call, type);
  return call.finish(mpi::win_set_attr_as(*win_obj, keyval, value, as, "MPI_Win_set_attr"));
}

STMPI_API int MPII_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag, int type) {
  Call call("MPI_Win_get_attr");
  mpi::Win* win_obj = call.win(win, "win");
  call.not_null(value, "attribute_val");
  call.not_null(flag, "flag");
  if (call.failed()) return call.result();
  mpi::AttrType as;
  if (!stmpi::binding::attr_type_of(type, &as)) return stmpi::binding::bad_attr_type(call, type);
  return call.finish(mpi::win_get_attr_as(*win_obj, keyval, value, flag, as, "MPI_Win_get_attr"));
}

// An unknown keyval is ignored, as MPICH does (the binding calls this right
// after creating the keyval).
STMPI_API void MPII_Keyval_set_proxy(int keyval, mpi::AttrCopyProxy* copy_proxy,
                                     mpi::AttrDeleteProxy* delete_proxy) {
  mpi::Keyval* object = mpi::keyval_table().get(keyval);
  if (object == nullptr) return;
  object->copy_proxy = copy_proxy;
  object->delete_proxy = delete_proxy;
}

STMPI_API void MPII_Grequest_set_lang_f77(MPI_Request request) {
  mpi::Request* req = mpi::request_get(request);
  if (req == nullptr || req->kind != mpi::Request::Kind::kGeneralized) return;
  req->fortran_callbacks = true;
}

STMPI_API int PMPIX_Query_cuda_support(void) { return 0; }
STMPI_API int PMPIX_Query_ze_support(void) { return 0; }
STMPI_API int PMPIX_Query_hip_support(void) { return 0; }
STMPI_API decltype(PMPIX_Query_cuda_support) MPIX_Query_cuda_support
    __attribute__((weak, alias("PMPIX_Query_cuda_support")));
STMPI_API decltype(PMPIX_Query_ze_support) MPIX_Query_ze_support
    __attribute__((weak, alias("PMPIX_Query_ze_support")));
STMPI_API decltype(PMPIX_Query_hip_support) MPIX_Query_hip_support
    __attribute__((weak, alias("PMPIX_Query_hip_support")));

// MPICH's mpi_f08 glue hands MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY to C as the
// values of these variables. MPICH's libmpichfort defines them too (zero), and
// the dynamic linker binds every reference to one definition, often that one:
// the constructor below stores the C sentinels through that binding (the
// variables have default visibility, so the stores go through the GOT).
STMPI_API void* MPIR_C_MPI_UNWEIGHTED;
STMPI_API void* MPIR_C_MPI_WEIGHTS_EMPTY;

}  // extern "C"

namespace {

__attribute__((constructor)) void set_mpich_f08_sentinels() {
  MPIR_C_MPI_UNWEIGHTED = MPI_UNWEIGHTED;
  MPIR_C_MPI_WEIGHTS_EMPTY = MPI_WEIGHTS_EMPTY;
}

}  // namespace
