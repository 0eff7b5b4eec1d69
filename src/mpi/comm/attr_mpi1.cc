// The MPI-1 attribute calls that MPI 2.0 deprecated and programs still use:
// MPI_Attr_get/put/delete and MPI_Keyval_create/free are the communicator
// calls under their old names (MPI_Copy_function and MPI_Delete_function have
// the signatures of the communicator callbacks).
#include <mpi.h>

#include "binding/gen/impl.h"

namespace stmpi::impl {

int attr_get(mpi::Comm& comm, int keyval, void* attribute_val, int* flag) {
  return comm_get_attr(comm, keyval, attribute_val, flag);
}

int attr_put(mpi::Comm& comm, int keyval, void* attribute_val) {
  return comm_set_attr(comm, keyval, attribute_val);
}

int attr_delete(mpi::Comm& comm, int keyval) { return comm_delete_attr(comm, keyval); }

int keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                  void* extra_state) {
  return comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int keyval_free(int* keyval) { return comm_free_keyval(keyval); }

}  // namespace stmpi::impl
