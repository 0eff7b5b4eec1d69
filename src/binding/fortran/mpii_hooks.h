// The internal entry points of libmpich that a Fortran binding calls, with
// MPICH's signatures (src/binding/mpich_hooks.cc defines them): the f77 glue
// of libmpichfort (ours or MPICH's) reaches the attribute table, the keyval
// callback proxies and the generalized requests through these.
// They are weak references, so libmpichfort also loads on a libmpich without
// them; the glue then answers MPI_ERR_INTERN for the calls that need them
// (hooks_present()).
#pragma once

#include <mpi.h>

extern "C" {

// MPICH's MPIR_Attr_type: how an attribute value was stored or is wanted.
enum { kMpiiAttrPointer = 0, kMpiiAttrAint = 1, kMpiiAttrInt = 3 };

// Call the user's copy/delete callback of a keyval in another language's
// conventions: the handle is the object's (an int), `type` the stored
// value's MPIR_Attr_type, `value` the stored value itself.
typedef int(MpiiAttrCopyProxy)(MPI_Comm_copy_attr_function* user_fn, int handle, int keyval,
                               void* extra_state, int type, void* value, void** copy, int* flag);
typedef int(MpiiAttrDeleteProxy)(MPI_Comm_delete_attr_function* user_fn, int handle, int keyval,
                                 int type, void* value, void* extra_state);

__attribute__((weak)) int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void* value, int type);
__attribute__((weak)) int MPII_Type_set_attr(MPI_Datatype datatype, int keyval, void* value,
                                             int type);
__attribute__((weak)) int MPII_Win_set_attr(MPI_Win win, int keyval, void* value, int type);
// `value` points at where the value goes, as the caller's `type` reads it.
__attribute__((weak)) int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag,
                                             int type);
__attribute__((weak)) int MPII_Type_get_attr(MPI_Datatype datatype, int keyval, void* value,
                                             int* flag, int type);
__attribute__((weak)) int MPII_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag,
                                            int type);
__attribute__((weak)) void MPII_Keyval_set_proxy(int keyval, MpiiAttrCopyProxy* copy_proxy,
                                                 MpiiAttrDeleteProxy* delete_proxy);
// The request's query/free/cancel callbacks are Fortran subroutines.
__attribute__((weak)) void MPII_Grequest_set_lang_f77(MPI_Request request);

}  // extern "C"

inline bool mpii_hooks_present() {
  return MPII_Comm_set_attr != nullptr && MPII_Comm_get_attr != nullptr &&
         MPII_Type_set_attr != nullptr && MPII_Type_get_attr != nullptr &&
         MPII_Win_set_attr != nullptr && MPII_Win_get_attr != nullptr &&
         MPII_Keyval_set_proxy != nullptr && MPII_Grequest_set_lang_f77 != nullptr;
}
