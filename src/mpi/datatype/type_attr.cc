// Attributes on datatypes (MPI 4.1 section 7.7.4): MPI_Type_create_keyval,
// _free_keyval, _set_attr, _get_attr, _delete_attr; copied through the copy
// callbacks by MPI_Type_dup and deleted through the delete callbacks by
// MPI_Type_free. Keyvals are the communicators' (mpi/comm/keyval.h) with
// kind kType, so a communicator or window keyval is refused here.
#include "mpi/datatype/type_attr.h"

#include <algorithm>

#include <mpi.h>

#include "mpi/impl.h"
#include "mpi/comm/keyval.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi {
namespace {

using errhan::make_error;

std::vector<TypeAttribute>::iterator find_attribute(Datatype& type, const Keyval* keyval) {
  return std::find_if(type.attributes.begin(), type.attributes.end(),
                      [keyval](const TypeAttribute& a) { return a.keyval == keyval; });
}

// A callback's error code as ours: its class if it is an MPI error, else MPI_ERR_OTHER.
int callback_error(int err, const char* which, const Keyval* keyval) {
  const int error_class = errhan::error_class_of(err);
  return make_error(error_class == MPI_SUCCESS ? MPI_ERR_OTHER : error_class,
                    "the %s callback of datatype keyval 0x%x returned %d", which, keyval->handle,
                    err);
}

int call_delete(Datatype& type, const TypeAttribute& attribute) {
  Keyval* keyval = attribute.keyval;
  if (keyval->type_delete_fn == nullptr) return MPI_SUCCESS;
  const int err =
      keyval->type_delete_fn(type.handle, keyval->handle, attribute.value, keyval->extra_state);
  return err == MPI_SUCCESS ? err : callback_error(err, "delete", keyval);
}

int bad_keyval(int keyval, const char* function) {
  if (keyval == MPI_KEYVAL_INVALID)
    return make_error(MPI_ERR_KEYVAL, "%s: keyval is MPI_KEYVAL_INVALID", function);
  Keyval* other = keyval_table().get(keyval);
  if (other != nullptr && !other->freed_by_user && other->kind != Keyval::Kind::kType)
    return make_error(MPI_ERR_KEYVAL, "%s: keyval 0x%x was made for %s, not for datatypes",
                      function, keyval,
                      other->kind == Keyval::Kind::kComm ? "communicators" : "windows");
  return make_error(MPI_ERR_KEYVAL,
                    "%s: keyval 0x%x is not a valid datatype keyval (freed or never created)",
                    function, keyval);
}

// The keyval for get/delete on `type`: a live datatype keyval, or one the user
// freed while `type` still holds an attribute with it (that attribute stays
// usable until it is deleted).
Keyval* keyval_for_attribute(Datatype& type, int handle) {
  if (Keyval* keyval = keyval_get(handle, Keyval::Kind::kType)) return keyval;
  Keyval* freed = keyval_table().get(handle);
  if (freed == nullptr || freed->kind != Keyval::Kind::kType) return nullptr;
  return find_attribute(type, freed) != type.attributes.end() ? freed : nullptr;
}

}  // namespace

int type_attr_copy_all(Datatype& from, Datatype& to) {
  for (const TypeAttribute& attribute : from.attributes) {
    Keyval* keyval = attribute.keyval;
    if (keyval->type_copy_fn == nullptr) continue;
    void* copy = nullptr;
    int flag = 0;
    const int err = keyval->type_copy_fn(from.handle, keyval->handle, keyval->extra_state,
                                         attribute.value, &copy, &flag);
    if (err != MPI_SUCCESS) return callback_error(err, "copy", keyval);
    if (flag == 0) continue;
    keyval_retain(keyval);
    to.attributes.push_back(TypeAttribute{keyval, copy});
  }
  return MPI_SUCCESS;
}

int type_attr_delete_all(Datatype& type) {
  while (!type.attributes.empty()) {
    const TypeAttribute attribute = type.attributes.back();
    if (int err = call_delete(type, attribute); err != MPI_SUCCESS) return err;
    // The callback may have changed the attribute list.
    if (auto it = find_attribute(type, attribute.keyval); it != type.attributes.end()) {
      type.attributes.erase(it);
      keyval_release(attribute.keyval);
    }
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi

namespace stmpi::impl {

using mpi::Keyval;

int type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                       MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                       void* extra_state) {
  Keyval* keyval = mpi::keyval_create(Keyval::Kind::kType);
  keyval->type_copy_fn = type_copy_attr_fn;
  keyval->type_delete_fn = type_delete_attr_fn;
  keyval->extra_state = extra_state;
  *type_keyval = keyval->handle;
  return MPI_SUCCESS;
}

int type_free_keyval(int* type_keyval) {
  Keyval* keyval = mpi::keyval_get(*type_keyval, Keyval::Kind::kType);
  if (keyval == nullptr) return mpi::bad_keyval(*type_keyval, "MPI_Type_free_keyval");
  keyval->freed_by_user = true;
  mpi::keyval_release(keyval);
  *type_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int type_set_attr(mpi::Datatype& datatype, int type_keyval, void* attribute_val) {
  Keyval* keyval = mpi::keyval_get(type_keyval, Keyval::Kind::kType);
  if (keyval == nullptr) return mpi::bad_keyval(type_keyval, "MPI_Type_set_attr");
  if (auto it = mpi::find_attribute(datatype, keyval); it != datatype.attributes.end()) {
    if (int err = mpi::call_delete(datatype, *it); err != MPI_SUCCESS) return err;
    if (it = mpi::find_attribute(datatype, keyval); it != datatype.attributes.end()) {
      it->value = attribute_val;
      return MPI_SUCCESS;
    }
  }
  mpi::keyval_retain(keyval);
  datatype.attributes.push_back(mpi::TypeAttribute{keyval, attribute_val});
  return MPI_SUCCESS;
}

int type_get_attr(mpi::Datatype& datatype, int type_keyval, void* attribute_val, int* flag) {
  Keyval* keyval = mpi::keyval_for_attribute(datatype, type_keyval);
  if (keyval == nullptr) return mpi::bad_keyval(type_keyval, "MPI_Type_get_attr");
  auto it = mpi::find_attribute(datatype, keyval);
  *flag = it != datatype.attributes.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->value;
  return MPI_SUCCESS;
}

int type_delete_attr(mpi::Datatype& datatype, int type_keyval) {
  Keyval* keyval = mpi::keyval_for_attribute(datatype, type_keyval);
  if (keyval == nullptr) return mpi::bad_keyval(type_keyval, "MPI_Type_delete_attr");
  auto it = mpi::find_attribute(datatype, keyval);
  if (it == datatype.attributes.end()) return MPI_SUCCESS;
  if (int err = mpi::call_delete(datatype, *it); err != MPI_SUCCESS) return err;
  if (it = mpi::find_attribute(datatype, keyval); it == datatype.attributes.end())
    return MPI_SUCCESS;
  datatype.attributes.erase(it);
  mpi::keyval_release(keyval);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
