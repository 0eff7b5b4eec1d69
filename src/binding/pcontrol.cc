// MPI_Pcontrol: the hook a profiling library (linked in front of us, defining
// MPI_Pcontrol and calling PMPI_Pcontrol) listens to. The library itself has
// no profiling levels, so the call does nothing, at any time, as the
// standard says of an implementation without profiling.
#include <mpi.h>

#include "binding/call.h"

extern "C" STMPI_API int PMPI_Pcontrol(const int /*level*/, ...) { return MPI_SUCCESS; }
extern "C" STMPI_API decltype(PMPI_Pcontrol) MPI_Pcontrol
    __attribute__((weak, alias("PMPI_Pcontrol")));
