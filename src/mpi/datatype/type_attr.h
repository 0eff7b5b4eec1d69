// Attribute caching on datatypes, for MPI_Type_dup and MPI_Type_free.
#pragma once

#include "mpi/comm/attr_table.h"

namespace stmpi::mpi {

struct Datatype;

// MPI_Type_set_attr / MPI_Type_get_attr with the value's language type (see
// mpi/comm/attr.h).
[[nodiscard]] int type_set_attr_as(Datatype& type, int keyval, void* value, AttrType as,
                                   const char* function);
[[nodiscard]] int type_get_attr_as(Datatype& type, int keyval, void* value, int* flag, AttrType as,
                                   const char* function);

// Runs the copy callbacks of `from`'s attributes (MPI_Type_dup) and caches
// the copies the callbacks ask for on `to`. Returns the first callback error.
[[nodiscard]] int type_attr_copy_all(Datatype& from, Datatype& to);
// Runs the delete callbacks of all of `type`'s attributes, newest first, and
// drops them. Stops at (and returns) the first callback error.
[[nodiscard]] int type_attr_delete_all(Datatype& type);

}  // namespace stmpi::mpi
