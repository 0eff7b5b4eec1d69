// Attribute caching on communicators, for the constructors and MPI_Finalize.
#pragma once

#include "mpi/comm/attr_table.h"

namespace stmpi::mpi {

struct Comm;

// MPI_Comm_set_attr / MPI_Comm_get_attr with the value's language type (the
// MPII_Comm_*_attr hooks of MPICH's Fortran library use these; the C calls
// pass kPointer). `function` names the call in error messages.
[[nodiscard]] int comm_set_attr_as(Comm& comm, int keyval, void* value, AttrType type,
                                   const char* function);
[[nodiscard]] int comm_get_attr_as(Comm& comm, int keyval, void* value, int* flag, AttrType as,
                                   const char* function);

// Runs the copy callbacks of `from`'s attributes (MPI_Comm_dup) and caches
// the copies the callbacks ask for on `to`. Returns the first callback error.
[[nodiscard]] int attr_copy_all(Comm& from, Comm& to);
// Runs the delete callbacks of all of `comm`'s attributes, newest first,
// and drops them. Stops at (and returns) the first callback error.
[[nodiscard]] int attr_delete_all(Comm& comm);
// Values of the predefined attributes that depend on the job.
void attr_init_predefined(int world_size);
// MPI_APPNUM: which program of a multi-program launch this process runs (the
// launcher's PMI appnum).
void attr_set_appnum(int appnum);

}  // namespace stmpi::mpi
