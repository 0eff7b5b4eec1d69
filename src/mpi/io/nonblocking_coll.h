// Nonblocking collective access (nonblocking_coll.cc): the two-phase path
// as a collective schedule whose aggregator file work runs on the I/O thread.
#pragma once

#include <mpi.h>

namespace stmpi::mpi {
struct Datatype;
}

namespace stmpi::mpi::io {

class File;

// Starts a collective read or write of `count` `type` at `offset` etypes
// into the view (every process of the file's communicator calls it in the
// same order) and returns the request that completes with this process's
// exact count; an error on any process fails every process's request.
[[nodiscard]] int start_nonblocking_collective(File& file, bool write, MPI_Offset offset, void* buf,
                                               MPI_Count count, const Datatype& type,
                                               const char* function, MPI_Request* request);

}  // namespace stmpi::mpi::io
