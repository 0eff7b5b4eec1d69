// Keyvals and attributes on communicators (MPI 4.1 section 7.7): user keys
// with copy/delete callbacks, the predefined read-only attributes, and the
// predefined MPI_*_DUP_FN callbacks.
//
// The attribute table itself (and the keyvals) are in attr_table.cc.
#include "mpi/comm/attr.h"

#include <cstdint>

#include <mpi.h>

#include "device/match/key.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/comm/keyval.h"

namespace stmpi::mpi {
namespace {

// MPI specifies that a predefined attribute's value is a pointer to an int.
struct PredefinedValues {
  int tag_ub = dev::match::kTagUb;
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;
  int wtime_is_global = 0;
  int universe_size = 1;
  int last_used_code = MPI_ERR_LASTCODE;  // the largest error class; user classes lie above it
  int appnum = 0;
} g_predefined;

// The predefined value for `keyval` (its C number, or its Fortran number: the
// C number plus one), nullptr if it is not predefined for communicators.
int* predefined_value(int keyval) {
  if ((keyval & 1) == 0) keyval -= 1;
  switch (keyval) {
    case MPI_TAG_UB: return &g_predefined.tag_ub;
    case MPI_HOST: return &g_predefined.host;
    case MPI_IO: return &g_predefined.io;
    case MPI_WTIME_IS_GLOBAL: return &g_predefined.wtime_is_global;
    case MPI_UNIVERSE_SIZE: return &g_predefined.universe_size;
    case MPI_LASTUSEDCODE: return &g_predefined.last_used_code;
    case MPI_APPNUM: return &g_predefined.appnum;
    default: return nullptr;
  }
}

}  // namespace

void attr_init_predefined(int world_size) { g_predefined.universe_size = world_size; }

void attr_set_appnum(int appnum) { g_predefined.appnum = appnum; }

void comm_set_last_used_code(int code) { g_predefined.last_used_code = code; }

int attr_copy_all(Comm& from, Comm& to) {
  return from.attributes.copy_to(from.handle, to.attributes);
}

int attr_delete_all(Comm& comm) { return comm.attributes.delete_all(comm.handle); }

int comm_set_attr_as(Comm& comm, int keyval, void* value, AttrType type, const char* function) {
  return comm.attributes.set(comm.handle, keyval, value, type, function);
}

int comm_get_attr_as(Comm& comm, int keyval, void* value, int* flag, AttrType as,
                     const char* function) {
  if (int* predefined = predefined_value(keyval); predefined != nullptr) {
    // C reads a pointer to the int; Fortran reads the value.
    if (as == AttrType::kPointer) *static_cast<void**>(value) = predefined;
    else *static_cast<intptr_t*>(value) = *predefined;
    *flag = 1;
    return MPI_SUCCESS;
  }
  return comm.attributes.get(keyval, value, flag, as, function);
}

}  // namespace stmpi::mpi

namespace stmpi::impl {

using mpi::Keyval;

int comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                       MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                       void* extra_state) {
  Keyval* keyval = mpi::keyval_create(Keyval::Kind::kComm);
  keyval->comm_copy_fn = comm_copy_attr_fn;
  keyval->comm_delete_fn = comm_delete_attr_fn;
  keyval->extra_state = extra_state;
  *comm_keyval = keyval->handle;
  return MPI_SUCCESS;
}

int comm_free_keyval(int* comm_keyval) {
  return mpi::keyval_free(comm_keyval, Keyval::Kind::kComm, "MPI_Comm_free_keyval");
}

int comm_set_attr(mpi::Comm& comm, int comm_keyval, void* attribute_val) {
  return mpi::comm_set_attr_as(comm, comm_keyval, attribute_val, mpi::AttrType::kPointer,
                               "MPI_Comm_set_attr");
}

int comm_get_attr(mpi::Comm& comm, int comm_keyval, void* attribute_val, int* flag) {
  return mpi::comm_get_attr_as(comm, comm_keyval, attribute_val, flag, mpi::AttrType::kPointer,
                               "MPI_Comm_get_attr");
}

int comm_delete_attr(mpi::Comm& comm, int comm_keyval) {
  return comm.attributes.remove(comm.handle, comm_keyval, "MPI_Comm_delete_attr");
}

}  // namespace stmpi::impl

// The predefined "dup" copy callbacks: the copy is the same value.
extern "C" {

__attribute__((visibility("default"))) int STMPI_Comm_dup_fn(MPI_Comm, int, void*,
                                                             void* attribute_val_in,
                                                             void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

__attribute__((visibility("default"))) int STMPI_Type_dup_fn(MPI_Datatype, int, void*,
                                                             void* attribute_val_in,
                                                             void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

__attribute__((visibility("default"))) int STMPI_Win_dup_fn(MPI_Win, int, void*,
                                                            void* attribute_val_in,
                                                            void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

// MPICH's mpi.h names its MPI_DUP_FN MPIR_Dup_fn; programs built against it
// reference that symbol.
__attribute__((visibility("default"), alias("STMPI_Comm_dup_fn"))) int MPIR_Dup_fn(MPI_Comm, int,
                                                                                   void*, void*,
                                                                                   void*, int*);

}  // extern "C"
