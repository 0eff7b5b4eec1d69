#include "util/reduce.h"

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace stmpi::util {
namespace {

using EK = ElementKind;

// Loads and stores through memcpy: typed buffers may hold values at any
// offset the user's datatype chose.
template <class T>
inline T load(const char* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

template <class T>
inline void store(char* at, const T& value) {
  std::memcpy(at, &value, sizeof(T));
}

// Layout-compatible with C's _Complex and Fortran's COMPLEX.
template <class R>
struct Complex {
  R re, im;
};

template <class V, class I>
struct PairOf {
  V value;
  I index;
};

template <class T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
constexpr bool kIsReal = std::is_floating_point_v<T> || std::is_same_v<T, __float128>;
template <class T>
constexpr bool kIsComplex = false;
template <class R>
constexpr bool kIsComplex<Complex<R>> = true;

// Integer sums and products wrap (computed unsigned, at least as wide as
// unsigned int so that promotion cannot overflow a signed int).
template <class T>
using Wrapping =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

struct MaxOp {
  template <class T>
  static constexpr bool kApplies = kIsInteger<T> || kIsReal<T>;
  template <class T>
  static T apply(T in, T inout) {
    return in > inout ? in : inout;
  }
};

struct MinOp {
  template <class T>
  static constexpr bool kApplies = kIsInteger<T> || kIsReal<T>;
  template <class T>
  static T apply(T in, T inout) {
    return in < inout ? in : inout;
  }
};

struct SumOp {
  template <class T>
  static constexpr bool kApplies = kIsInteger<T> || kIsReal<T> || kIsComplex<T>;
  template <class T>
  static T apply(T in, T inout) {
    if constexpr (kIsInteger<T>) {
      return static_cast<T>(static_cast<Wrapping<T>>(in) + static_cast<Wrapping<T>>(inout));
    } else if constexpr (kIsComplex<T>) {
      return {in.re + inout.re, in.im + inout.im};
    } else {
      return in + inout;
    }
  }
};

struct ProdOp {
  template <class T>
  static constexpr bool kApplies = kIsInteger<T> || kIsReal<T> || kIsComplex<T>;
  template <class T>
  static T apply(T in, T inout) {
    if constexpr (kIsInteger<T>) {
      return static_cast<T>(static_cast<Wrapping<T>>(in) * static_cast<Wrapping<T>>(inout));
    } else if constexpr (kIsComplex<T>) {
      return {in.re * inout.re - in.im * inout.im, in.re * inout.im + in.im * inout.re};
    } else {
      return in * inout;
    }
  }
};

struct LandOp {
  template <class T>
  static constexpr bool kApplies = std::is_integral_v<T>;
  template <class T>
  static T apply(T in, T inout) {
    return static_cast<T>(in != T{0} && inout != T{0});
  }
};

struct LorOp {
  template <class T>
  static constexpr bool kApplies = std::is_integral_v<T>;
  template <class T>
  static T apply(T in, T inout) {
    return static_cast<T>(in != T{0} || inout != T{0});
  }
};

struct LxorOp {
  template <class T>
  static constexpr bool kApplies = std::is_integral_v<T>;
  template <class T>
  static T apply(T in, T inout) {
    return static_cast<T>((in != T{0}) != (inout != T{0}));
  }
};

struct BandOp {
  template <class T>
  static constexpr bool kApplies = kIsInteger<T>;
  template <class T>
  static T apply(T in, T inout) {
    return static_cast<T>(in & inout);
  }
};

struct BorOp {
  template <class T>
  static constexpr bool kApplies = kIsInteger<T>;
  template <class T>
  static T apply(T in, T inout) {
    return static_cast<T>(in | inout);
  }
};

struct BxorOp {
  template <class T>
  static constexpr bool kApplies = kIsInteger<T>;
  template <class T>
  static T apply(T in, T inout) {
    return static_cast<T>(in ^ inout);
  }
};

// GCC's -O2 cost model does not vectorize a loop that needs a run-time
// alias check, and this loop is the bulk of reductions and accumulates.
#if defined(__GNUC__) && !defined(__clang__)
#define STMPI_VECTORIZE __attribute__((optimize("tree-vectorize", "vect-cost-model=cheap")))
#else
#define STMPI_VECTORIZE
#endif

template <class Fn, class T>
STMPI_VECTORIZE void elementwise(const void* in, void* inout, MPI_Count n) {
  const char* a = static_cast<const char*>(in);
  char* b = static_cast<char*>(inout);
  for (MPI_Count i = 0; i < n; ++i, a += sizeof(T), b += sizeof(T)) {
    store(b, Fn::apply(load<T>(a), load<T>(b)));
  }
}

// MPI_MAXLOC / MPI_MINLOC: the better value wins with its index; on a tie
// the lower index wins.
template <class V, class I, bool kMax, bool kPacked>
void value_index(const void* in, void* inout, MPI_Count n) {
  using Pair = PairOf<V, I>;
  constexpr size_t kIndexOffset = kPacked ? sizeof(V) : offsetof(Pair, index);
  constexpr size_t kStride = kPacked ? sizeof(V) + sizeof(I) : sizeof(Pair);
  const char* a = static_cast<const char*>(in);
  char* b = static_cast<char*>(inout);
  for (MPI_Count i = 0; i < n; ++i, a += kStride, b += kStride) {
    const V value_in = load<V>(a);
    const V value_inout = load<V>(b);
    const I index_in = load<I>(a + kIndexOffset);
    const bool better = kMax ? value_in > value_inout : value_in < value_inout;
    if (better) {
      store(b, value_in);
      store(b + kIndexOffset, index_in);
    } else if (value_in == value_inout && index_in < load<I>(b + kIndexOffset)) {
      store(b + kIndexOffset, index_in);
    }
  }
}

template <class Fn, class T>
constexpr OpKernel pick() {
  if constexpr (Fn::template kApplies<T>) return &elementwise<Fn, T>;
  else return nullptr;
}

template <class Fn>
OpKernel basic_kernel(ElementKind kind) {
  switch (kind) {
    case EK::kInt8: return pick<Fn, int8_t>();
    case EK::kUint8: return pick<Fn, uint8_t>();
    case EK::kInt16: return pick<Fn, int16_t>();
    case EK::kUint16: return pick<Fn, uint16_t>();
    case EK::kInt32: return pick<Fn, int32_t>();
    case EK::kUint32: return pick<Fn, uint32_t>();
    case EK::kInt64: return pick<Fn, int64_t>();
    case EK::kUint64: return pick<Fn, uint64_t>();
    case EK::kFloat: return pick<Fn, float>();
    case EK::kDouble: return pick<Fn, double>();
    case EK::kLongDouble: return pick<Fn, long double>();
    case EK::kFloat128: return pick<Fn, __float128>();
    case EK::kComplexFloat: return pick<Fn, Complex<float>>();
    case EK::kComplexDouble: return pick<Fn, Complex<double>>();
    case EK::kComplexLongDouble: return pick<Fn, Complex<long double>>();
    case EK::kComplexFloat128: return pick<Fn, Complex<__float128>>();
    case EK::kBool: return pick<Fn, bool>();
    default: return nullptr;
  }
}

template <class V, class I, bool kMax>
OpKernel pair_layout(bool packed) {
  return packed ? &value_index<V, I, kMax, true> : &value_index<V, I, kMax, false>;
}

template <bool kMax>
OpKernel pair_kernel(ElementKind kind, bool packed) {
  switch (kind) {
    case EK::kFloatInt: return pair_layout<float, int, kMax>(packed);
    case EK::kDoubleInt: return pair_layout<double, int, kMax>(packed);
    case EK::kLongInt: return pair_layout<long, int, kMax>(packed);
    case EK::kShortInt: return pair_layout<short, int, kMax>(packed);
    case EK::kLongDoubleInt: return pair_layout<long double, int, kMax>(packed);
    case EK::kIntInt: return pair_layout<int, int, kMax>(packed);
    case EK::kFloatFloat: return pair_layout<float, float, kMax>(packed);
    case EK::kDoubleDouble: return pair_layout<double, double, kMax>(packed);
    default: return nullptr;
  }
}

}  // namespace

OpKernel op_kernel(OpKind op, ElementKind kind, bool packed) {
  switch (op) {
    case OpKind::kMax: return basic_kernel<MaxOp>(kind);
    case OpKind::kMin: return basic_kernel<MinOp>(kind);
    case OpKind::kSum: return basic_kernel<SumOp>(kind);
    case OpKind::kProd: return basic_kernel<ProdOp>(kind);
    case OpKind::kLand: return basic_kernel<LandOp>(kind);
    case OpKind::kLor: return basic_kernel<LorOp>(kind);
    case OpKind::kLxor: return basic_kernel<LxorOp>(kind);
    case OpKind::kBand: return basic_kernel<BandOp>(kind);
    case OpKind::kBor: return basic_kernel<BorOp>(kind);
    case OpKind::kBxor: return basic_kernel<BxorOp>(kind);
    case OpKind::kMaxloc: return pair_kernel<true>(kind, packed);
    case OpKind::kMinloc: return pair_kernel<false>(kind, packed);
    case OpKind::kReplace:
    case OpKind::kNoOp: return nullptr;
  }
  return nullptr;
}

}  // namespace stmpi::util
