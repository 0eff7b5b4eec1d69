// Reduction kernels: one loop per (operation, element type), generated
// from templates. Below the device: MPI_Op (src/mpi/coll/op.cc) and the
// device's accumulates (device/rma/accumulate.cc) call them.
#pragma once

#include <cstdint>

#include <mpi.h>

#include "util/element_kind.h"

namespace stmpi::util {

// The predefined operations; the value is the low byte of the handle.
enum class OpKind : uint8_t {
  kMax = 1,
  kMin,
  kSum,
  kProd,
  kLand,
  kBand,
  kLor,
  kBor,
  kLxor,
  kBxor,
  kMinloc,
  kMaxloc,
  kReplace,
  kNoOp,
};

// inout[i] = in[i] op inout[i] for `n` adjacent values. Buffers need no
// particular alignment.
using OpKernel = void (*)(const void* in, void* inout, MPI_Count n);

// The kernel of `op` for values of `kind`, or nullptr when the operation is
// not defined on such values. For pair kinds, `packed` selects the layout
// MPI_Pack produces (value immediately followed by index) instead of the C
// struct with its padding.
OpKernel op_kernel(OpKind op, ElementKind kind, bool packed);

}  // namespace stmpi::util
