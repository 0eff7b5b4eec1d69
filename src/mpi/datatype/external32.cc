// MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size and their
// _c forms (MPI 4.1 sections 5.2.3 and 14.5.2): the "external32" data
// representation, big-endian with the standard's fixed size per predefined
// type, no padding.
//
// Packing moves `count` instances into the native packed form (our
// MPI_Pack, in chunks) and converts that element by element; unpacking
// converts back into a native packed chunk and unpacks it. The elements of
// a type, in pack order, come from how it was built: a predefined type is
// itself; a type whose elements are all one predefined type (layout.base_type)
// is size/base size of those; a struct is its blocks in order; any other
// constructor has one component, repeated size/component size times.
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::Datatype;
using mpi::errhan::make_error;

enum class Conv : uint8_t {
  kSwap,        // same size; reverse the bytes of each `unit`
  kSigned,      // integer whose native size differs: sign-extended / range-checked
  kUnsigned,    // same, zero-extended
  kLongDouble,  // native long double(s) <-> IEEE binary128
  kPair,        // value type then index type
};

struct Ext32Type {
  int handle;
  MPI_Aint size;  // bytes in external32
  Conv conv;
  int unit = 0;               // kSwap: bytes per swapped unit (1: plain copy)
  int first = 0, second = 0;  // kPair: the value and index types
};

// The standard's table of external32 sizes (MPI 4.1 section 14.5.2).
const Ext32Type kTypes[] = {
    {MPI_PACKED, 1, Conv::kSwap, 1},
    {MPI_BYTE, 1, Conv::kSwap, 1},
    {MPI_CHAR, 1, Conv::kSwap, 1},
    {MPI_UNSIGNED_CHAR, 1, Conv::kSwap, 1},
    {MPI_SIGNED_CHAR, 1, Conv::kSwap, 1},
    {MPI_WCHAR, 2, Conv::kUnsigned},
    {MPI_SHORT, 2, Conv::kSwap, 2},
    {MPI_UNSIGNED_SHORT, 2, Conv::kSwap, 2},
    {MPI_INT, 4, Conv::kSwap, 4},
    {MPI_UNSIGNED, 4, Conv::kSwap, 4},
    {MPI_LONG, 4, Conv::kSigned},
    {MPI_UNSIGNED_LONG, 4, Conv::kUnsigned},
    {MPI_LONG_LONG_INT, 8, Conv::kSwap, 8},
    {MPI_UNSIGNED_LONG_LONG, 8, Conv::kSwap, 8},
    {MPI_FLOAT, 4, Conv::kSwap, 4},
    {MPI_DOUBLE, 8, Conv::kSwap, 8},
    {MPI_LONG_DOUBLE, 16, Conv::kLongDouble},
    {MPI_C_BOOL, 1, Conv::kSwap, 1},
    {MPI_CXX_BOOL, 1, Conv::kSwap, 1},
    {MPI_INT8_T, 1, Conv::kSwap, 1},
    {MPI_UINT8_T, 1, Conv::kSwap, 1},
    {MPI_INT16_T, 2, Conv::kSwap, 2},
    {MPI_UINT16_T, 2, Conv::kSwap, 2},
    {MPI_INT32_T, 4, Conv::kSwap, 4},
    {MPI_UINT32_T, 4, Conv::kSwap, 4},
    {MPI_INT64_T, 8, Conv::kSwap, 8},
    {MPI_UINT64_T, 8, Conv::kSwap, 8},
    {MPI_AINT, 8, Conv::kSwap, 8},
    {MPI_COUNT, 8, Conv::kSwap, 8},
    {MPI_OFFSET, 8, Conv::kSwap, 8},
    {MPI_C_FLOAT_COMPLEX, 8, Conv::kSwap, 4},
    {MPI_C_DOUBLE_COMPLEX, 16, Conv::kSwap, 8},
    {MPI_C_LONG_DOUBLE_COMPLEX, 32, Conv::kLongDouble},
    {MPI_CXX_FLOAT_COMPLEX, 8, Conv::kSwap, 4},
    {MPI_CXX_DOUBLE_COMPLEX, 16, Conv::kSwap, 8},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, 32, Conv::kLongDouble},
    {MPI_CHARACTER, 1, Conv::kSwap, 1},
    {MPI_LOGICAL, 4, Conv::kSwap, 4},
    {MPI_INTEGER, 4, Conv::kSwap, 4},
    {MPI_REAL, 4, Conv::kSwap, 4},
    {MPI_DOUBLE_PRECISION, 8, Conv::kSwap, 8},
    {MPI_COMPLEX, 8, Conv::kSwap, 4},
    {MPI_DOUBLE_COMPLEX, 16, Conv::kSwap, 8},
    {MPI_INTEGER1, 1, Conv::kSwap, 1},
    {MPI_INTEGER2, 2, Conv::kSwap, 2},
    {MPI_INTEGER4, 4, Conv::kSwap, 4},
    {MPI_INTEGER8, 8, Conv::kSwap, 8},
    {MPI_REAL4, 4, Conv::kSwap, 4},
    {MPI_REAL8, 8, Conv::kSwap, 8},
    {MPI_REAL16, 16, Conv::kSwap, 16},
    {MPI_COMPLEX8, 8, Conv::kSwap, 4},
    {MPI_COMPLEX16, 16, Conv::kSwap, 8},
    {MPI_COMPLEX32, 32, Conv::kSwap, 16},
    {MPI_FLOAT_INT, 8, Conv::kPair, 0, MPI_FLOAT, MPI_INT},
    {MPI_DOUBLE_INT, 12, Conv::kPair, 0, MPI_DOUBLE, MPI_INT},
    {MPI_LONG_INT, 8, Conv::kPair, 0, MPI_LONG, MPI_INT},
    {MPI_SHORT_INT, 6, Conv::kPair, 0, MPI_SHORT, MPI_INT},
    {MPI_LONG_DOUBLE_INT, 20, Conv::kPair, 0, MPI_LONG_DOUBLE, MPI_INT},
    {MPI_2INT, 8, Conv::kPair, 0, MPI_INT, MPI_INT},
    {MPI_2INTEGER, 8, Conv::kPair, 0, MPI_INTEGER, MPI_INTEGER},
    {MPI_2REAL, 8, Conv::kPair, 0, MPI_REAL, MPI_REAL},
    {MPI_2DOUBLE_PRECISION, 16, Conv::kPair, 0, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION},
};

const Ext32Type* find_basic(int handle) {
  for (const Ext32Type& t : kTypes)
    if (t.handle == handle) return &t;
  return nullptr;
}

constexpr bool kLittleEndian = std::endian::native == std::endian::little;

// Copies `units` units of `unit` bytes, reversing each on a little-endian host.
void swap_copy(const char* in, char* out, MPI_Count units, int unit) {
  if (!kLittleEndian || unit == 1) {
    std::memcpy(out, in, static_cast<size_t>(units * unit));
    return;
  }
  for (MPI_Count i = 0; i < units; ++i, in += unit, out += unit)
    for (int b = 0; b < unit; ++b) out[b] = in[unit - 1 - b];
}

int no_representation(const Datatype& type) {
  return make_error(MPI_ERR_TYPE, "datatype %s has no external32 representation",
                    mpi::datatype_name(type.handle));
}

// External32 bytes of one instance of `type`; -1 for a type with an element
// that has no external32 form.
MPI_Count ext_size(const Datatype& type) {
  if (type.size == 0) return 0;
  if (const Ext32Type* basic = find_basic(type.handle)) return basic->size;
  if (const Datatype* base = mpi::datatype_get(type.layout.base_type);
      base != nullptr && base != &type && base->size > 0) {
    const MPI_Count each = ext_size(*base);
    return each < 0 ? -1 : type.size / base->size * each;
  }
  const mpi::TypeContents& c = type.contents;
  if (c.combiner == MPI_COMBINER_STRUCT) {
    MPI_Count total = 0;
    for (size_t i = 0; i < c.types.size(); ++i) {
      const MPI_Count blocklength = c.large_counts ? c.counts[i + 1] : c.ints[i + 1];
      const MPI_Count each = ext_size(*c.types[i]);
      if (each < 0) return -1;
      total += blocklength * each;
    }
    return total;
  }
  if (c.types.size() == 1 && c.types[0]->size > 0) {
    const MPI_Count each = ext_size(*c.types[0]);
    return each < 0 ? -1 : type.size / c.types[0]->size * each;
  }
  return -1;
}

// Converts `n` elements of a basic type; kPack: native -> external32.
template <bool kPack>
int convert_basic(const Ext32Type& t, const Datatype& type, MPI_Count n, const char*& in,
                  char*& out) {
  const MPI_Count native = type.size;
  const MPI_Count from = kPack ? native : t.size, to = kPack ? t.size : native;
  switch (t.conv) {
    case Conv::kSwap:
      if (native != t.size) return no_representation(type);  // not this platform's size
      swap_copy(in, out, n * t.size / t.unit, t.unit);
      break;
    case Conv::kSigned:
    case Conv::kUnsigned: {
      const bool is_signed = t.conv == Conv::kSigned;
      for (MPI_Count i = 0; i < n; ++i) {
        uint64_t bits = 0;  // the value, in the low `from` bytes
        if (kPack) {
          std::memcpy(&bits, in + i * from, static_cast<size_t>(from));  // little-endian host
          if constexpr (!kLittleEndian) bits >>= 8 * (8 - from);
        } else {
          for (MPI_Count b = 0; b < from; ++b)
            bits = bits << 8 | static_cast<unsigned char>(in[i * from + b]);
        }
        const int shift = 64 - 8 * static_cast<int>(from);
        int64_t value =
            is_signed ? static_cast<int64_t>(bits << shift) >> shift : static_cast<int64_t>(bits);
        if (kPack && to < 8) {
          const int64_t lo = is_signed ? -(int64_t{1} << (8 * to - 1)) : 0;
          const int64_t hi =
              is_signed ? (int64_t{1} << (8 * to - 1)) - 1 : (int64_t{1} << (8 * to)) - 1;
          if (value < lo || value > hi)
            return make_error(MPI_ERR_CONVERSION,
                              "element %lld of %s is %lld, which does not fit in the %lld bytes "
                              "external32 gives %s",
                              static_cast<long long>(i), mpi::datatype_name(type.handle),
                              static_cast<long long>(value), static_cast<long long>(to),
                              mpi::datatype_name(type.handle));
        }
        if (kPack) {
          for (MPI_Count b = 0; b < to; ++b)
            out[i * to + b] = static_cast<char>(value >> (8 * (to - 1 - b)));
        } else {
          uint64_t native_bits = static_cast<uint64_t>(value);
          if constexpr (!kLittleEndian) native_bits <<= 8 * (8 - to);
          std::memcpy(out + i * to, &native_bits, static_cast<size_t>(to));
        }
      }
      break;
    }
    case Conv::kLongDouble: {
      const MPI_Count values = n * t.size / 16;  // complex long doubles hold two
      for (MPI_Count i = 0; i < values; ++i) {
        if (kPack) {
          long double value = 0;
          std::memcpy(&value, in + i * sizeof(long double), sizeof(long double));
          const __float128 quad = static_cast<__float128>(value);
          swap_copy(reinterpret_cast<const char*>(&quad), out + i * 16, 1, 16);
        } else {
          __float128 quad = 0;
          swap_copy(in + i * 16, reinterpret_cast<char*>(&quad), 1, 16);
          const long double value = static_cast<long double>(quad);
          std::memcpy(out + i * sizeof(long double), &value, sizeof(long double));
        }
      }
      break;
    }
    case Conv::kPair: break;  // handled by the caller
  }
  in += n * from;
  out += n * to;
  return MPI_SUCCESS;
}

// Converts `n` instances of `type` (native packed form <-> external32),
// advancing both cursors.
template <bool kPack>
int convert(const Datatype& type, MPI_Count n, const char*& in, char*& out) {
  if (type.size == 0 || n == 0) return MPI_SUCCESS;
  if (const Ext32Type* basic = find_basic(type.handle)) {
    if (basic->conv != Conv::kPair) return convert_basic<kPack>(*basic, type, n, in, out);
    const Datatype& value = *mpi::datatype_get(basic->first);
    const Datatype& index = *mpi::datatype_get(basic->second);
    for (MPI_Count i = 0; i < n; ++i) {
      if (int err = convert<kPack>(value, 1, in, out)) return err;
      if (int err = convert<kPack>(index, 1, in, out)) return err;
    }
    return MPI_SUCCESS;
  }
  if (const Datatype* base = mpi::datatype_get(type.layout.base_type);
      base != nullptr && base != &type && base->size > 0)
    return convert<kPack>(*base, n * (type.size / base->size), in, out);
  const mpi::TypeContents& c = type.contents;
  if (c.combiner == MPI_COMBINER_STRUCT) {
    for (MPI_Count k = 0; k < n; ++k) {
      for (size_t i = 0; i < c.types.size(); ++i) {
        const MPI_Count blocklength = c.large_counts ? c.counts[i + 1] : c.ints[i + 1];
        if (int err = convert<kPack>(*c.types[i], blocklength, in, out)) return err;
      }
    }
    return MPI_SUCCESS;
  }
  if (c.types.size() == 1 && c.types[0]->size > 0)
    return convert<kPack>(*c.types[0], n * (type.size / c.types[0]->size), in, out);
  return no_representation(type);
}

int check_datarep(const char* datarep) {
  if (std::strcmp(datarep, "external32") == 0) return MPI_SUCCESS;
  return make_error(MPI_ERR_UNSUPPORTED_DATAREP,
                    "datarep \"%.64s\" is not supported: the only one is \"external32\"", datarep);
}

// The external32 bytes of `count` instances, or an error.
int total_size(const Datatype& type, MPI_Count count, const char* count_name, MPI_Count* bytes) {
  if (count < 0)
    return make_error(MPI_ERR_COUNT, "%s = %lld must not be negative", count_name,
                      static_cast<long long>(count));
  const MPI_Count each = ext_size(type);
  if (each < 0) return no_representation(type);
  if (__builtin_mul_overflow(each, count, bytes))
    return make_error(MPI_ERR_COUNT, "%s = %lld instances of %s take more than 2^63 bytes",
                      count_name, static_cast<long long>(count), mpi::datatype_name(type.handle));
  return MPI_SUCCESS;
}

// Instances per conversion chunk: about 1 MiB of native data, at least one.
MPI_Count chunk_instances(const Datatype& type) {
  constexpr MPI_Count kChunkBytes = MPI_Count{1} << 20;
  return type.size >= kChunkBytes ? 1 : kChunkBytes / type.size;
}

int check_position(MPI_Count position, MPI_Count bytes, MPI_Count limit, const char* limit_name,
                   const char* verb) {
  if (position < 0)
    return make_error(MPI_ERR_ARG, "*position = %lld must not be negative",
                      static_cast<long long>(position));
  if (limit < 0)
    return make_error(MPI_ERR_ARG, "%s = %lld must not be negative", limit_name,
                      static_cast<long long>(limit));
  if (position > limit || bytes > limit - position)
    return make_error(MPI_ERR_TRUNCATE,
                      "%s %lld external32 bytes at position %lld overruns %s = %lld", verb,
                      static_cast<long long>(bytes), static_cast<long long>(position), limit_name,
                      static_cast<long long>(limit));
  return MPI_SUCCESS;
}

template <class Int>
int pack_external_any(const char* datarep, const void* inbuf, Int incount, Datatype& type,
                      void* outbuf, Int outsize, Int* position) {
  if (int err = check_datarep(datarep)) return err;
  MPI_Count bytes = 0;
  if (int err = total_size(type, incount, "incount", &bytes)) return err;
  if (int err = check_position(*position, bytes, outsize, "outsize", "packing")) return err;
  if (bytes == 0) return MPI_SUCCESS;
  if (outbuf == nullptr) return make_error(MPI_ERR_BUFFER, "outbuf is NULL");
  char* out = static_cast<char*>(outbuf) + *position;
  if (type.contiguous) {
    const char* in = static_cast<const char*>(inbuf) + type.true_lb;
    if (int err = convert<true>(type, incount, in, out)) return err;
  } else {
    const MPI_Count chunk = chunk_instances(type);
    std::vector<char> native(static_cast<size_t>(std::min<MPI_Count>(chunk, incount) * type.size));
    for (MPI_Count done = 0; done < incount; done += chunk) {
      const MPI_Count n = std::min<MPI_Count>(chunk, incount - done);
      type.pack_range(inbuf, incount, done * type.size, n * type.size, native.data());
      const char* in = native.data();
      if (int err = convert<true>(type, n, in, out)) return err;
    }
  }
  *position += static_cast<Int>(bytes);
  return MPI_SUCCESS;
}

template <class Int>
int unpack_external_any(const char* datarep, const void* inbuf, Int insize, Int* position,
                        void* outbuf, Int outcount, Datatype& type) {
  if (int err = check_datarep(datarep)) return err;
  MPI_Count bytes = 0;
  if (int err = total_size(type, outcount, "outcount", &bytes)) return err;
  if (int err = check_position(*position, bytes, insize, "insize", "unpacking")) return err;
  if (bytes == 0) return MPI_SUCCESS;
  if (inbuf == nullptr) return make_error(MPI_ERR_BUFFER, "inbuf is NULL");
  const char* in = static_cast<const char*>(inbuf) + *position;
  if (type.contiguous) {
    char* out = static_cast<char*>(outbuf) + type.true_lb;
    if (int err = convert<false>(type, outcount, in, out)) return err;
  } else {
    const MPI_Count chunk = chunk_instances(type);
    std::vector<char> native(static_cast<size_t>(std::min<MPI_Count>(chunk, outcount) * type.size));
    for (MPI_Count done = 0; done < outcount; done += chunk) {
      const MPI_Count n = std::min<MPI_Count>(chunk, outcount - done);
      char* out = native.data();
      if (int err = convert<false>(type, n, in, out)) return err;
      type.unpack_range(native.data(), done * type.size, n * type.size, outcount, outbuf);
    }
  }
  *position += static_cast<Int>(bytes);
  return MPI_SUCCESS;
}

template <class Int>
int pack_external_size_any(const char* datarep, Int incount, Datatype& type, Int* size) {
  if (int err = check_datarep(datarep)) return err;
  MPI_Count bytes = 0;
  if (int err = total_size(type, incount, "incount", &bytes)) return err;
  *size = static_cast<Int>(bytes);
  return MPI_SUCCESS;
}

}  // namespace

int pack_external(const char* datarep, const void* inbuf, int incount, mpi::Datatype& datatype,
                  void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  return pack_external_any<MPI_Aint>(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount,
                    mpi::Datatype& datatype, void* outbuf, MPI_Count outsize, MPI_Count* position) {
  return pack_external_any<MPI_Count>(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int unpack_external(const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                    void* outbuf, int outcount, mpi::Datatype& datatype) {
  return unpack_external_any<MPI_Aint>(datarep, inbuf, insize, position, outbuf, outcount,
                                       datatype);
}

int unpack_external_c(const char* datarep, const void* inbuf, MPI_Count insize, MPI_Count* position,
                      void* outbuf, MPI_Count outcount, mpi::Datatype& datatype) {
  return unpack_external_any<MPI_Count>(datarep, inbuf, insize, position, outbuf, outcount,
                                        datatype);
}

int pack_external_size(const char* datarep, int incount, mpi::Datatype& datatype, MPI_Aint* size) {
  return pack_external_size_any<MPI_Aint>(datarep, incount, datatype, size);
}

int pack_external_size_c(const char* datarep, MPI_Count incount, mpi::Datatype& datatype,
                         MPI_Count* size) {
  return pack_external_size_any<MPI_Count>(datarep, incount, datatype, size);
}

}  // namespace stmpi::impl
