// Element types: the C++ type of a predefined datatype's values, as the
// reduction kernels (util/reduce.h) and the device's accumulates see them.
#pragma once

#include <cstdint>

namespace stmpi::util {

// C++ type of a predefined datatype's values, as the reduction kernels see
// them. Pair kinds are the (value, index) structs of MPI_MINLOC/MPI_MAXLOC.
enum class ElementKind : uint8_t {
  kNone,
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kFloat,
  kDouble,
  kLongDouble,
  kFloat128,
  kComplexFloat,
  kComplexDouble,
  kComplexLongDouble,
  kComplexFloat128,
  kBool,
  kFloatInt,
  kDoubleInt,
  kLongInt,
  kShortInt,
  kLongDoubleInt,
  kIntInt,
  kFloatFloat,
  kDoubleDouble,
};

}  // namespace stmpi::util
