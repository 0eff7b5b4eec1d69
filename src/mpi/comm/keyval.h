// Attribute keys (keyvals) and their copy/delete callbacks. One object kind
// serves communicators, datatypes and windows; a keyval remembers which
// kind of object it was created for and works only on that kind.
#pragma once

#include <atomic>

#include <mpi.h>

#include "mpi/handle.h"

namespace stmpi::mpi {

// The callback proxies of MPICH's MPII_Keyval_set_proxy (a language binding
// calls the user's callback in its own conventions). The handle is the
// object's (communicators, datatypes and windows are all ints), `type` the
// stored value's AttrType as an int, `value` the stored value itself.
using AttrCopyProxy = int(MPI_Comm_copy_attr_function* user_fn, int handle, int keyval,
                          void* extra_state, int type, void* value, void** copy, int* flag);
using AttrDeleteProxy = int(MPI_Comm_delete_attr_function* user_fn, int handle, int keyval,
                            int type, void* value, void* extra_state);

struct Keyval {
  enum class Kind { kComm, kType, kWin };
  int handle = 0;
  Kind kind = Kind::kComm;
  MPI_Comm_copy_attr_function* comm_copy_fn = nullptr;
  MPI_Comm_delete_attr_function* comm_delete_fn = nullptr;
  MPI_Type_copy_attr_function* type_copy_fn = nullptr;
  MPI_Type_delete_attr_function* type_delete_fn = nullptr;
  MPI_Win_copy_attr_function* win_copy_fn = nullptr;
  MPI_Win_delete_attr_function* win_delete_fn = nullptr;
  void* extra_state = nullptr;
  // Set by MPII_Keyval_set_proxy (Fortran keyvals): the callbacks above are
  // then called through these.
  AttrCopyProxy* copy_proxy = nullptr;
  AttrDeleteProxy* delete_proxy = nullptr;
  // One reference for the user's handle (dropped by the free_keyval call)
  // and one per attribute that uses the key.
  std::atomic<int> refs{1};
  bool freed_by_user = false;
};

HandleTable<Keyval, ObjectKind::kKeyval>& keyval_table();
// The live keyval of `kind` named by `handle`, or nullptr (freed by the
// user, unknown, predefined, or of another kind).
Keyval* keyval_get(int handle, Keyval::Kind kind);
// Like keyval_get, but also a keyval the user freed while attributes still use
// it: those attributes stay readable and deletable until the last one goes.
Keyval* keyval_in_use(int handle, Keyval::Kind kind);
// MPI_*_free_keyval: marks the keyval freed and drops the user's reference.
// Freeing again while attributes keep it alive does nothing (as MPICH does:
// delete callbacks that free their keyval run once per attribute).
int keyval_free(int* handle, Keyval::Kind kind, const char* function);
// MPI_ERR_KEYVAL for `handle` used with an object of `kind`, saying why
// (invalid, predefined and read-only, made for another kind, or freed).
int keyval_error(int handle, Keyval::Kind kind, const char* function);
Keyval* keyval_create(Keyval::Kind kind);
void keyval_retain(Keyval* keyval);
void keyval_release(Keyval* keyval);

}  // namespace stmpi::mpi
