// Attributes on datatypes (MPI 4.1 section 7.7.4): MPI_Type_create_keyval,
// _free_keyval, _set_attr, _get_attr, _delete_attr; copied through the copy
// callbacks by MPI_Type_dup and deleted through the delete callbacks by
// MPI_Type_free. Keyvals and the attribute table are the communicators'
// (mpi/comm/keyval.h, mpi/comm/attr_table.h) with kind kType, so a
// communicator or window keyval is refused here.
#include "mpi/datatype/type_attr.h"

#include <mpi.h>

#include "mpi/comm/keyval.h"
#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"

namespace stmpi::mpi {

int type_attr_copy_all(Datatype& from, Datatype& to) {
  return from.attributes.copy_to(from.handle, to.attributes);
}

int type_attr_delete_all(Datatype& type) { return type.attributes.delete_all(type.handle); }

int type_set_attr_as(Datatype& type, int keyval, void* value, AttrType as, const char* function) {
  return type.attributes.set(type.handle, keyval, value, as, function);
}

int type_get_attr_as(Datatype& type, int keyval, void* value, int* flag, AttrType as,
                     const char* function) {
  return type.attributes.get(keyval, value, flag, as, function);
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
  return mpi::keyval_free(type_keyval, Keyval::Kind::kType, "MPI_Type_free_keyval");
}

int type_set_attr(mpi::Datatype& datatype, int type_keyval, void* attribute_val) {
  return mpi::type_set_attr_as(datatype, type_keyval, attribute_val, mpi::AttrType::kPointer,
                               "MPI_Type_set_attr");
}

int type_get_attr(mpi::Datatype& datatype, int type_keyval, void* attribute_val, int* flag) {
  return mpi::type_get_attr_as(datatype, type_keyval, attribute_val, flag, mpi::AttrType::kPointer,
                               "MPI_Type_get_attr");
}

int type_delete_attr(mpi::Datatype& datatype, int type_keyval) {
  return datatype.attributes.remove(datatype.handle, type_keyval, "MPI_Type_delete_attr");
}

}  // namespace stmpi::impl
