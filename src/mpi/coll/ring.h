// Ring steps shared by several collectives. Blocks are given as counts and
// displacements in instances of `type` from `buf`.
#pragma once

#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"

namespace stmpi::mpi {
struct Datatype;
}

namespace stmpi::mpi::coll {

class Schedule;

// Every process holds block `rank`; after n - 1 steps (to rank + 1, from
// rank - 1) every process holds every block. With `own` (a separate input,
// not MPI_IN_PLACE) the first step sends straight from it and copies it
// into block `rank` while the messages move, instead of before.
void ring_allgather(Schedule& s, void* buf, const std::vector<MPI_Count>& counts,
                    const std::vector<MPI_Count>& displs, Datatype& type,
                    const Block* own = nullptr);

// Commutative reduce-scatter: every process holds all blocks of its own
// contribution in `acc`; after n - 1 steps, process r's block r of `acc`
// holds the reduction of everyone's block r. `tmp` has acc's layout.
void ring_reduce_scatter(Schedule& s, void* acc, void* tmp, const std::vector<MPI_Count>& counts,
                         const std::vector<MPI_Count>& displs, Datatype& type);

// Splits `count` instances into `parts` nearly equal blocks.
void even_blocks(MPI_Count count, int parts, std::vector<MPI_Count>* counts,
                 std::vector<MPI_Count>* displs);

}  // namespace stmpi::mpi::coll
