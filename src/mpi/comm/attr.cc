// Keyvals and attributes on communicators (MPI 4.1 section 7.7): user keys
// with copy/delete callbacks, the predefined read-only attributes, and the
// predefined MPI_*_DUP_FN callbacks.
//
// Callbacks run with the attribute's keyval held, so MPI_Comm_free_keyval
// inside a callback (or before the communicator is freed) is safe: the
// keyval lives until its last attribute is gone.
#include "mpi/comm/attr.h"

#include <algorithm>

#include <mpi.h>

#include "mpi/impl.h"
#include "device/match/key.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/keyval.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi {
namespace {

HandleTable<Keyval, ObjectKind::kKeyval> g_keyvals;

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

// The predefined value for `keyval`, nullptr if it is not predefined for
// communicators.
int* predefined_value(int keyval) {
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

int bad_keyval(int keyval, const char* function) {
  if (predefined_value(keyval) != nullptr)
    return errhan::make_error(MPI_ERR_KEYVAL, "%s: keyval 0x%x is predefined and read-only",
                              function, keyval);
  return errhan::make_error(MPI_ERR_KEYVAL,
                            "%s: keyval 0x%x is not a valid communicator keyval (freed, never "
                            "created, or made for another kind of object)",
                            function, keyval);
}

std::vector<Attribute>::iterator find_attribute(Comm& comm, const Keyval* keyval) {
  return std::find_if(comm.attributes.begin(), comm.attributes.end(),
                      [keyval](const Attribute& a) { return a.keyval == keyval; });
}

int call_delete(Comm& comm, const Attribute& attribute) {
  Keyval* keyval = attribute.keyval;
  if (keyval->comm_delete_fn == nullptr) return MPI_SUCCESS;
  const int err =
      keyval->comm_delete_fn(comm.handle, keyval->handle, attribute.value, keyval->extra_state);
  if (err == MPI_SUCCESS) return err;
  return errhan::make_error(
      errhan::error_class_of(err) == MPI_SUCCESS ? MPI_ERR_OTHER : errhan::error_class_of(err),
      "the delete callback of keyval 0x%x returned %d", keyval->handle, err);
}

}  // namespace

HandleTable<Keyval, ObjectKind::kKeyval>& keyval_table() { return g_keyvals; }

Keyval* keyval_get(int handle, Keyval::Kind kind) {
  Keyval* keyval = g_keyvals.get(handle);
  if (keyval == nullptr || keyval->freed_by_user || keyval->kind != kind) return nullptr;
  return keyval;
}

Keyval* keyval_in_use(int handle, Keyval::Kind kind) {
  Keyval* keyval = g_keyvals.get(handle);
  if (keyval == nullptr || keyval->kind != kind) return nullptr;
  return keyval;
}

int keyval_free(int* handle, Keyval::Kind kind, const char* function) {
  Keyval* keyval = keyval_in_use(*handle, kind);
  if (keyval == nullptr) return bad_keyval(*handle, function);
  if (!keyval->freed_by_user) {
    keyval->freed_by_user = true;
    keyval_release(keyval);
  }
  *handle = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

Keyval* keyval_create(Keyval::Kind kind) {
  auto* keyval = new Keyval;
  keyval->kind = kind;
  keyval->handle = g_keyvals.add(keyval);
  return keyval;
}

void keyval_retain(Keyval* keyval) { keyval->refs.fetch_add(1, std::memory_order_relaxed); }

void keyval_release(Keyval* keyval) {
  if (keyval->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    g_keyvals.remove(keyval->handle);
    delete keyval;
  }
}

void attr_init_predefined(int world_size) { g_predefined.universe_size = world_size; }

void attr_set_appnum(int appnum) { g_predefined.appnum = appnum; }

void comm_set_last_used_code(int code) { g_predefined.last_used_code = code; }

int attr_copy_all(Comm& from, Comm& to) {
  for (const Attribute& attribute : from.attributes) {
    Keyval* keyval = attribute.keyval;
    if (keyval->comm_copy_fn == nullptr) continue;
    void* copy = nullptr;
    int flag = 0;
    const int err = keyval->comm_copy_fn(from.handle, keyval->handle, keyval->extra_state,
                                         attribute.value, &copy, &flag);
    if (err != MPI_SUCCESS)
      return errhan::make_error(
          errhan::error_class_of(err) == MPI_SUCCESS ? MPI_ERR_OTHER : errhan::error_class_of(err),
          "the copy callback of keyval 0x%x returned %d", keyval->handle, err);
    if (flag == 0) continue;
    keyval_retain(keyval);
    to.attributes.push_back(Attribute{keyval, copy});
  }
  return MPI_SUCCESS;
}

int attr_delete_all(Comm& comm) {
  while (!comm.attributes.empty()) {
    const Attribute attribute = comm.attributes.back();
    if (int err = call_delete(comm, attribute); err != MPI_SUCCESS) return err;
    // The callback may have changed the attribute list.
    if (auto it = find_attribute(comm, attribute.keyval); it != comm.attributes.end()) {
      comm.attributes.erase(it);
      keyval_release(attribute.keyval);
    }
  }
  return MPI_SUCCESS;
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
  Keyval* keyval = mpi::keyval_get(comm_keyval, Keyval::Kind::kComm);
  if (keyval == nullptr) return mpi::bad_keyval(comm_keyval, "MPI_Comm_set_attr");
  if (auto it = mpi::find_attribute(comm, keyval); it != comm.attributes.end()) {
    if (int err = mpi::call_delete(comm, *it); err != MPI_SUCCESS) return err;
    // The callback may have changed the attribute list.
    if (it = mpi::find_attribute(comm, keyval); it != comm.attributes.end()) {
      it->value = attribute_val;
      return MPI_SUCCESS;
    }
  }
  mpi::keyval_retain(keyval);
  comm.attributes.push_back(mpi::Attribute{keyval, attribute_val});
  return MPI_SUCCESS;
}

int comm_get_attr(mpi::Comm& comm, int comm_keyval, void* attribute_val, int* flag) {
  if (int* value = mpi::predefined_value(comm_keyval); value != nullptr) {
    *static_cast<void**>(attribute_val) = value;
    *flag = 1;
    return MPI_SUCCESS;
  }
  Keyval* keyval = mpi::keyval_in_use(comm_keyval, Keyval::Kind::kComm);
  if (keyval == nullptr) return mpi::bad_keyval(comm_keyval, "MPI_Comm_get_attr");
  auto it = mpi::find_attribute(comm, keyval);
  *flag = it != comm.attributes.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->value;
  return MPI_SUCCESS;
}

int comm_delete_attr(mpi::Comm& comm, int comm_keyval) {
  Keyval* keyval = mpi::keyval_in_use(comm_keyval, Keyval::Kind::kComm);
  if (keyval == nullptr) return mpi::bad_keyval(comm_keyval, "MPI_Comm_delete_attr");
  auto it = mpi::find_attribute(comm, keyval);
  if (it == comm.attributes.end()) return MPI_SUCCESS;
  if (int err = mpi::call_delete(comm, *it); err != MPI_SUCCESS) return err;
  // The callback may have changed the attribute list.
  if (it = mpi::find_attribute(comm, keyval); it == comm.attributes.end()) return MPI_SUCCESS;
  comm.attributes.erase(it);
  mpi::keyval_release(keyval);
  return MPI_SUCCESS;
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
