// The MPI layer's names for the reduction kernels (util/reduce.h).
#pragma once

#include "util/reduce.h"

namespace stmpi::mpi {

using util::op_kernel;
using util::OpKernel;
using util::OpKind;

}  // namespace stmpi::mpi
