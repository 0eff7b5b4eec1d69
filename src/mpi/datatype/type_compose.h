// Helpers for constructors built from other constructors (subarray, darray):
// an owning reference to an intermediate type, and replacing the record of
// how the final type was made.
#pragma once

#include <utility>

#include <mpi.h>

#include "mpi/datatype/datatype.h"

namespace stmpi::mpi {

// Releases a type made on the way (nothing is left behind on errors).
struct TypeRef {
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  TypeRef() = default;
  TypeRef(const TypeRef&) = delete;
  TypeRef& operator=(const TypeRef&) = delete;
  ~TypeRef() {
    if (Datatype* t = datatype_get(handle); t != nullptr) datatype_release(t);
  }
  Datatype& get() const { return *datatype_get(handle); }
  MPI_Datatype release() {
    const MPI_Datatype h = handle;
    handle = MPI_DATATYPE_NULL;
    return h;
  }
};

// Replaces the record of how `type` was made (retaining the new components).
inline void set_contents(Datatype& type, TypeContents contents) {
  for (Datatype* component : contents.types) datatype_retain(component);
  for (Datatype* component : type.contents.types) datatype_release(component);
  type.contents = std::move(contents);
}

}  // namespace stmpi::mpi
