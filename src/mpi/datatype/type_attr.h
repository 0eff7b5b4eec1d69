// Attribute caching on datatypes, for MPI_Type_dup and MPI_Type_free.
#pragma once

namespace stmpi::mpi {

struct Datatype;

// Runs the copy callbacks of `from`'s attributes (MPI_Type_dup) and caches
// the copies the callbacks ask for on `to`. Returns the first callback error.
[[nodiscard]] int type_attr_copy_all(Datatype& from, Datatype& to);
// Runs the delete callbacks of all of `type`'s attributes, newest first, and
// drops them. Stops at (and returns) the first callback error.
[[nodiscard]] int type_attr_delete_all(Datatype& type);

}  // namespace stmpi::mpi
