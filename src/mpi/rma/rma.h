// What the rest of the library needs from the one-sided chapter.
#pragma once

namespace stmpi::mpi::rma {

// Called by MPI_Finalize: prints the lock statistics when
// STMPI_RMA_PRINT_STATS is set.
void finalize();

}  // namespace stmpi::mpi::rma
