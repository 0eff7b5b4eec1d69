// Data representations registered through mpi_f08 with large-count
// conversion functions (MPI_Register_datarep_c). The f08 callbacks take
// their arguments by reference (MPI_Datarep_conversion_function_c: buffers as
// TYPE(C_PTR) by value, the rest by reference, the error in IERROR) where C's
// take them by value and return the error: each registration gets one set of
// C trampolines that call its Fortran procedures with Fortran's conventions.
#pragma once

#include "mpi.h"

namespace stmpi::binding::f08 {

// A Fortran procedure as the glue receives it (C_FUNLOC).
using Procedure = void (*)();

// The C function the registration goes to (MPI_Register_datarep_c or its
// PMPI_ form, so that a C profiling library sees Fortran calls too).
using RegisterDatarepC = int(const char*, MPI_Datarep_conversion_function_c*,
                             MPI_Datarep_conversion_function_c*, MPI_Datarep_extent_function*,
                             void*);

// Registers `datarep` with C trampolines for the Fortran conversion
// functions (MPI_CONVERSION_FN_NULL_C of the mpi_f08 module stays null) and
// extent function; extra_state is the address of the program's EXTRA_STATE
// variable (as the f77 glue and MPICH pass it), which each callback gets as
// its EXTRA_STATE argument. MPI_ERR_INTERN when every set of trampolines is
// taken.
int register_datarep_c(RegisterDatarepC* c_fn, const char* datarep, Procedure read_fn,
                       Procedure write_fn, Procedure extent_fn, void* extra_state);

}  // namespace stmpi::binding::f08
