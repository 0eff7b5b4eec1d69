// The MPI-1 attribute calls that MPI 2.0 deprecated and programs still use:
// MPI_Attr_get/put/delete and MPI_Keyval_create/free are the communicator
// calls under their old names (MPI_Copy_function and MPI_Delete_function have
// the signatures of the communicator callbacks). Error messages name the
// function the program called.
#include <string>
#include <string_view>

#include <mpi.h>

#include "mpi/comm/impl_comm_group.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

// `err` from the MPI-2 call `mpi2`, its message speaking of `mpi1` instead.
int as_mpi1(int err, std::string_view mpi2, std::string_view mpi1) {
  if (err == MPI_SUCCESS) return err;
  const int error_class = mpi::errhan::error_class_of(err);
  std::string text = mpi::errhan::error_string(err);
  const std::string prefix = std::string(mpi::errhan::class_string(error_class)) + ": ";
  if (text.starts_with(prefix)) text.erase(0, prefix.size());
  if (std::size_t at = text.find(mpi2); at != std::string::npos)
    text.replace(at, mpi2.size(), mpi1);
  return mpi::errhan::make_error(error_class, "%s", text.c_str());
}

}  // namespace

int attr_get(mpi::Comm& comm, int keyval, void* attribute_val, int* flag) {
  return as_mpi1(comm_get_attr(comm, keyval, attribute_val, flag), "MPI_Comm_get_attr",
                 "MPI_Attr_get");
}

int attr_put(mpi::Comm& comm, int keyval, void* attribute_val) {
  return as_mpi1(comm_set_attr(comm, keyval, attribute_val), "MPI_Comm_set_attr", "MPI_Attr_put");
}

int attr_delete(mpi::Comm& comm, int keyval) {
  return as_mpi1(comm_delete_attr(comm, keyval), "MPI_Comm_delete_attr", "MPI_Attr_delete");
}

int keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                  void* extra_state) {
  return comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int keyval_free(int* keyval) {
  return as_mpi1(comm_free_keyval(keyval), "MPI_Comm_free_keyval", "MPI_Keyval_free");
}

}  // namespace stmpi::impl
