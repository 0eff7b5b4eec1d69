// The predefined datatypes of the MPICH ABI: basic types, the value/index
// pair types of MPI_MINLOC/MPI_MAXLOC (with their C struct padding) and the
// MPI_LB/MPI_UB markers.
#include <cstddef>
#include <mutex>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/layout_builder.h"

namespace stmpi::mpi {
namespace {

using EK = ElementKind;
using TC = TypeClass;

struct BasicSpec {
  int handle;
  const char* name;
  MPI_Aint size;
  MPI_Aint alignment;
  ElementKind kind;
  TypeClass type_class;
};

template <class T>
constexpr BasicSpec basic(int handle, const char* name, ElementKind kind, TypeClass type_class) {
  return {handle, name,      static_cast<MPI_Aint>(sizeof(T)), static_cast<MPI_Aint>(alignof(T)),
          kind,   type_class};
}

template <class R>
struct ComplexOf {
  R re, im;
};

// Fortran REAL*16 is IEEE binary128 in gfortran, not the x87 long double.
using Real16 = __float128;

const BasicSpec kBasicTypes[] = {
    basic<char>(MPI_CHAR, "MPI_CHAR", EK::kInt8, TC::kInteger),
    basic<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", EK::kInt8, TC::kInteger),
    basic<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", EK::kUint8, TC::kInteger),
    basic<unsigned char>(MPI_BYTE, "MPI_BYTE", EK::kUint8, TC::kByte),
    basic<wchar_t>(MPI_WCHAR, "MPI_WCHAR", EK::kInt32, TC::kNone),
    basic<short>(MPI_SHORT, "MPI_SHORT", EK::kInt16, TC::kInteger),
    basic<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", EK::kUint16, TC::kInteger),
    basic<int>(MPI_INT, "MPI_INT", EK::kInt32, TC::kInteger),
    basic<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED", EK::kUint32, TC::kInteger),
    basic<long>(MPI_LONG, "MPI_LONG", EK::kInt64, TC::kInteger),
    basic<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", EK::kUint64, TC::kInteger),
    basic<long long>(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", EK::kInt64, TC::kInteger),
    basic<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", EK::kUint64,
                              TC::kInteger),
    basic<float>(MPI_FLOAT, "MPI_FLOAT", EK::kFloat, TC::kFloat),
    basic<double>(MPI_DOUBLE, "MPI_DOUBLE", EK::kDouble, TC::kFloat),
    basic<long double>(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", EK::kLongDouble, TC::kFloat),
    basic<char>(MPI_PACKED, "MPI_PACKED", EK::kNone, TC::kNone),

    basic<char>(MPI_CHARACTER, "MPI_CHARACTER", EK::kInt8, TC::kInteger),
    basic<int32_t>(MPI_INTEGER, "MPI_INTEGER", EK::kInt32, TC::kInteger),
    basic<float>(MPI_REAL, "MPI_REAL", EK::kFloat, TC::kFloat),
    basic<int32_t>(MPI_LOGICAL, "MPI_LOGICAL", EK::kInt32, TC::kLogical),
    basic<ComplexOf<float>>(MPI_COMPLEX, "MPI_COMPLEX", EK::kComplexFloat, TC::kComplex),
    basic<double>(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", EK::kDouble, TC::kFloat),
    basic<ComplexOf<double>>(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", EK::kComplexDouble,
                             TC::kComplex),
    basic<float>(MPI_REAL4, "MPI_REAL4", EK::kFloat, TC::kFloat),
    basic<double>(MPI_REAL8, "MPI_REAL8", EK::kDouble, TC::kFloat),
    basic<Real16>(MPI_REAL16, "MPI_REAL16", EK::kFloat128, TC::kFloat),
    basic<ComplexOf<float>>(MPI_COMPLEX8, "MPI_COMPLEX8", EK::kComplexFloat, TC::kComplex),
    basic<ComplexOf<double>>(MPI_COMPLEX16, "MPI_COMPLEX16", EK::kComplexDouble, TC::kComplex),
    basic<ComplexOf<Real16>>(MPI_COMPLEX32, "MPI_COMPLEX32", EK::kComplexFloat128, TC::kComplex),
    basic<int8_t>(MPI_INTEGER1, "MPI_INTEGER1", EK::kInt8, TC::kInteger),
    basic<int16_t>(MPI_INTEGER2, "MPI_INTEGER2", EK::kInt16, TC::kInteger),
    basic<int32_t>(MPI_INTEGER4, "MPI_INTEGER4", EK::kInt32, TC::kInteger),
    basic<int64_t>(MPI_INTEGER8, "MPI_INTEGER8", EK::kInt64, TC::kInteger),
    // gfortran's integer(16): stored and moved; no reduction kernels.
    basic<__int128>(MPI_INTEGER16, "MPI_INTEGER16", EK::kNone, TC::kInteger),

    basic<int8_t>(MPI_INT8_T, "MPI_INT8_T", EK::kInt8, TC::kInteger),
    basic<int16_t>(MPI_INT16_T, "MPI_INT16_T", EK::kInt16, TC::kInteger),
    basic<int32_t>(MPI_INT32_T, "MPI_INT32_T", EK::kInt32, TC::kInteger),
    basic<int64_t>(MPI_INT64_T, "MPI_INT64_T", EK::kInt64, TC::kInteger),
    basic<uint8_t>(MPI_UINT8_T, "MPI_UINT8_T", EK::kUint8, TC::kInteger),
    basic<uint16_t>(MPI_UINT16_T, "MPI_UINT16_T", EK::kUint16, TC::kInteger),
    basic<uint32_t>(MPI_UINT32_T, "MPI_UINT32_T", EK::kUint32, TC::kInteger),
    basic<uint64_t>(MPI_UINT64_T, "MPI_UINT64_T", EK::kUint64, TC::kInteger),

    basic<bool>(MPI_C_BOOL, "MPI_C_BOOL", EK::kBool, TC::kLogical),
    basic<ComplexOf<float>>(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", EK::kComplexFloat, TC::kComplex),
    basic<ComplexOf<double>>(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", EK::kComplexDouble,
                             TC::kComplex),
    basic<ComplexOf<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX",
                                  EK::kComplexLongDouble, TC::kComplex),
    basic<MPI_Aint>(MPI_AINT, "MPI_AINT", EK::kInt64, TC::kInteger),
    basic<MPI_Offset>(MPI_OFFSET, "MPI_OFFSET", EK::kInt64, TC::kInteger),
    basic<MPI_Count>(MPI_COUNT, "MPI_COUNT", EK::kInt64, TC::kInteger),

    basic<bool>(MPI_CXX_BOOL, "MPI_CXX_BOOL", EK::kBool, TC::kLogical),
    basic<ComplexOf<float>>(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", EK::kComplexFloat,
                            TC::kComplex),
    basic<ComplexOf<double>>(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", EK::kComplexDouble,
                             TC::kComplex),
    basic<ComplexOf<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
                                  EK::kComplexLongDouble, TC::kComplex),
#ifdef MPIX_C_FLOAT16
    // Stored and moved only: no reduction kernels for half precision.
    {MPIX_C_FLOAT16, "MPIX_C_FLOAT16", 2, 2, EK::kNone, TC::kNone},
#endif
};

// A value/index pair: the C struct the pair type describes.
template <class V, class I>
struct PairOf {
  V value;
  I index;
};

struct PairSpec {
  int handle;
  const char* name;
  int value_type;
  int index_type;
  MPI_Aint index_offset;
  MPI_Aint extent;
  MPI_Aint alignment;
  ElementKind kind;
};

template <class V, class I>
PairSpec pair(int handle, const char* name, int value_type, int index_type, ElementKind kind) {
  using Pair = PairOf<V, I>;
  return {handle,
          name,
          value_type,
          index_type,
          static_cast<MPI_Aint>(offsetof(Pair, index)),
          static_cast<MPI_Aint>(sizeof(Pair)),
          static_cast<MPI_Aint>(alignof(Pair)),
          kind};
}

const PairSpec kPairTypes[] = {
    pair<float, int>(MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, MPI_INT, EK::kFloatInt),
    pair<double, int>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT, EK::kDoubleInt),
    pair<long, int>(MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, MPI_INT, EK::kLongInt),
    pair<short, int>(MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, MPI_INT, EK::kShortInt),
    pair<long double, int>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT,
                           EK::kLongDoubleInt),
    pair<int, int>(MPI_2INT, "MPI_2INT", MPI_INT, MPI_INT, EK::kIntInt),
    pair<int32_t, int32_t>(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER, EK::kIntInt),
    pair<float, float>(MPI_2REAL, "MPI_2REAL", MPI_REAL, MPI_REAL, EK::kFloatFloat),
    pair<double, double>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION,
                         MPI_DOUBLE_PRECISION, EK::kDoubleDouble),
};

constexpr size_t kBasicCount = sizeof(kBasicTypes) / sizeof(kBasicTypes[0]);
constexpr size_t kPairCount = sizeof(kPairTypes) / sizeof(kPairTypes[0]);

Datatype g_basic[kBasicCount];
Datatype g_pairs[kPairCount];
Datatype g_lb_marker, g_ub_marker;
std::once_flag g_init_once;

void init_common(Datatype& type, int handle, const char* name) {
  type.handle = handle;
  type.name = name;
  type.predefined = true;
  type.committed = true;
  type.contents.combiner = MPI_COMBINER_NAMED;
  type.layout.has_entries = true;
}

void init_basic(Datatype& type, const BasicSpec& spec) {
  init_common(type, spec.handle, spec.name);
  type.size = spec.size;
  type.lb = 0;
  type.extent = spec.size;
  type.element_kind = spec.kind;
  type.type_class = spec.type_class;
  TypeLayout& layout = type.layout;
  layout.blocks = {{0, spec.size, 1, 0}};
  layout.signature = {{{{spec.size, 1}}, 1}};
  layout.element_count = 1;
  layout.alignment = spec.alignment;
  layout.base_type = spec.handle;
  layout.base_count = 1;
  layout_finalize(type);
}

void init_pair(Datatype& type, const PairSpec& spec) {
  const Datatype* value = datatype_get(spec.value_type);
  const Datatype* index = datatype_get(spec.index_type);
  LayoutBuilder builder;
  builder.add(*value, 0, 1);
  builder.add(*index, spec.index_offset, 1);
  builder.finish(type, false);
  init_common(type, spec.handle, spec.name);
  type.lb = 0;
  type.extent = spec.extent;
  type.element_kind = spec.kind;
  type.type_class = TypeClass::kPair;
  type.layout.alignment = spec.alignment;
  type.layout.base_type = spec.handle;
  type.layout.base_count = 1;
  layout_finalize(type);
}

void init_marker(Datatype& type, int handle, const char* name, bool lower) {
  init_common(type, handle, name);
  type.layout.lb_marker = lower;
  type.layout.ub_marker = !lower;
  layout_finalize(type);
}

void register_all() {
  auto& table = datatype_table();
  for (size_t i = 0; i < kBasicCount; ++i) {
    init_basic(g_basic[i], kBasicTypes[i]);
    table.add_predefined(g_basic[i].handle, &g_basic[i]);
  }
  // Pair layouts are built from their registered components.
  for (size_t i = 0; i < kPairCount; ++i) {
    init_pair(g_pairs[i], kPairTypes[i]);
    table.add_predefined(g_pairs[i].handle, &g_pairs[i]);
  }
  init_marker(g_lb_marker, MPI_LB, "MPI_LB", true);
  init_marker(g_ub_marker, MPI_UB, "MPI_UB", false);
  table.add_predefined(MPI_LB, &g_lb_marker);
  table.add_predefined(MPI_UB, &g_ub_marker);
}

}  // namespace

void datatype_init_predefined() { std::call_once(g_init_once, register_all); }

}  // namespace stmpi::mpi
