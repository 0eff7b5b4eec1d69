// Decoding datatypes (MPI_Type_get_envelope, MPI_Type_get_contents) from the
// TypeContents every constructor records, and the constructors that are
// compositions of others: MPI_Type_create_subarray (nested hvectors moved to
// the subarray's start and resized to the whole array), MPI_Type_match_size
// and the MPI_Type_create_f90_* parameterized types.
#include <mpi.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <map>
#include <tuple>
#include <type_traits>
#include <vector>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/datatype/type_compose.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::Datatype;
using mpi::set_contents;
using mpi::TypeContents;
using mpi::TypeRef;
using mpi::errhan::make_error;

int named_error(const Datatype& type) {
  return make_error(MPI_ERR_TYPE,
                    "datatype %s is predefined (combiner MPI_COMBINER_NAMED): it "
                    "has no contents",
                    mpi::datatype_name(type.handle));
}

// Copies the component types out; each derived one is retained, as MPI
// hands them to the caller to free.
void copy_types(const TypeContents& c, MPI_Datatype out[]) {
  for (std::size_t i = 0; i < c.types.size(); ++i) {
    Datatype* component = c.types[i];
    if (!component->predefined) mpi::datatype_retain(component);
    out[i] = component->handle;
  }
}

// Counts of an array dimension; `Int` is int or MPI_Count.
template <class Int>
int check_subarray(int ndims, const Int sizes[], const Int subsizes[], const Int starts[],
                   int order) {
  if (ndims <= 0) return make_error(MPI_ERR_ARG, "ndims=%d must be positive", ndims);
  if (sizes == nullptr || subsizes == nullptr || starts == nullptr)
    return make_error(MPI_ERR_ARG, "array_of_%s is NULL",
                      sizes == nullptr      ? "sizes"
                      : subsizes == nullptr ? "subsizes"
                                            : "starts");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return make_error(MPI_ERR_ARG, "order=%d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  for (int d = 0; d < ndims; ++d) {
    const long long size = sizes[d], sub = subsizes[d], start = starts[d];
    if (size <= 0)
      return make_error(MPI_ERR_ARG, "array_of_sizes[%d]=%lld must be positive", d, size);
    if (sub <= 0 || sub > size)
      return make_error(MPI_ERR_ARG, "array_of_subsizes[%d]=%lld must be in 1..%lld", d, sub, size);
    if (start < 0 || start > size - sub)
      return make_error(MPI_ERR_ARG,
                        "array_of_starts[%d]=%lld must be in 0..%lld (size %lld, subsize %lld)", d,
                        start, size - sub, size, sub);
  }
  return MPI_SUCCESS;
}

// Builds the subarray: the fastest dimension is a contiguous run, each slower
// one an hvector of the faster ones; the result is placed at the start
// offset and resized to span the whole array (lb 0, as the standard says).
template <class Int>
int build_subarray(int ndims, const Int sizes[], const Int subsizes[], const Int starts[],
                   int order, Datatype& oldtype, MPI_Datatype* newtype) {
  std::vector<int> dims(static_cast<std::size_t>(ndims));  // fastest first
  for (int i = 0; i < ndims; ++i) dims[i] = order == MPI_ORDER_C ? ndims - 1 - i : i;
  MPI_Count stride = oldtype.extent;  // bytes between consecutive indices of dims[i]
  MPI_Count offset = 0;               // bytes from the array's start to the subarray's
  TypeRef current;
  for (int i = 0; i < ndims; ++i) {
    const int d = dims[i];
    TypeRef next;
    const int err =
        i == 0 ? type_contiguous_c(subsizes[d], oldtype, &next.handle)
               : type_create_hvector_c(subsizes[d], 1, stride, current.get(), &next.handle);
    if (err != MPI_SUCCESS) return err;
    std::swap(current.handle, next.handle);
    MPI_Count start_bytes = 0;
    if (__builtin_mul_overflow(static_cast<MPI_Count>(starts[d]), stride, &start_bytes) ||
        __builtin_add_overflow(offset, start_bytes, &offset) ||
        __builtin_mul_overflow(stride, static_cast<MPI_Count>(sizes[d]), &stride))
      return make_error(MPI_ERR_ARG, "the array's extent in bytes overflows MPI_Count");
  }
  const MPI_Count whole = stride;  // bytes of the whole array
  TypeRef placed;
  const MPI_Count one = 1;
  if (int err = type_create_hindexed_c(1, &one, &offset, current.get(), &placed.handle)) return err;
  return type_create_resized_c(placed.get(), 0, whole, newtype);
}

template <class Int>
TypeContents subarray_contents(int ndims, const Int sizes[], const Int subsizes[],
                               const Int starts[], int order, Datatype& oldtype, bool large) {
  TypeContents c;
  c.combiner = MPI_COMBINER_SUBARRAY;
  c.large_counts = large;
  c.types = {&oldtype};
  if (large) {
    c.ints = {ndims, order};
    for (const Int* a : {sizes, subsizes, starts}) c.counts.insert(c.counts.end(), a, a + ndims);
  } else {
    c.ints = {ndims};
    for (const Int* a : {sizes, subsizes, starts}) c.ints.insert(c.ints.end(), a, a + ndims);
    c.ints.push_back(order);
  }
  return c;
}

// A predefined type standing for a Fortran parameterized type (MPI 4.1
// 19.3.4): made once per (combiner, p, r) from the matching type, recording
// the parameters as its contents, and never freed, like other predefined types.
int create_f90(int combiner, int p, int r, Datatype& base, MPI_Datatype* newtype) {
  static std::map<std::tuple<int, int, int>, MPI_Datatype> made;
  const auto key = std::make_tuple(combiner, p, r);
  if (auto it = made.find(key); it != made.end()) {
    *newtype = it->second;
    return MPI_SUCCESS;
  }
  if (int err = type_dup(base, newtype)) return err;
  Datatype& type = *mpi::datatype_get(*newtype);
  TypeContents c;
  c.combiner = combiner;
  c.ints = combiner == MPI_COMBINER_F90_INTEGER ? std::vector<int>{r} : std::vector<int>{p, r};
  set_contents(type, std::move(c));
  type.predefined = true;
  type.committed = true;
  made.emplace(key, *newtype);
  return MPI_SUCCESS;
}

}  // namespace

int type_get_envelope(mpi::Datatype& datatype, int* num_integers, int* num_addresses,
                      int* num_datatypes, int* combiner) {
  const TypeContents& c = datatype.contents;
  if (c.large_counts)
    return make_error(MPI_ERR_TYPE,
                      "datatype was built by a large-count constructor: decode it "
                      "with MPI_Type_get_envelope_c");
  *num_integers = static_cast<int>(c.ints.size());
  *num_addresses = static_cast<int>(c.aints.size());
  *num_datatypes = static_cast<int>(c.types.size());
  *combiner = c.combiner;
  return MPI_SUCCESS;
}

int type_get_envelope_c(mpi::Datatype& datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                        MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  const TypeContents& c = datatype.contents;
  *num_integers = static_cast<MPI_Count>(c.ints.size());
  *num_addresses = static_cast<MPI_Count>(c.aints.size());
  *num_large_counts = static_cast<MPI_Count>(c.counts.size());
  *num_datatypes = static_cast<MPI_Count>(c.types.size());
  *combiner = c.combiner;
  return MPI_SUCCESS;
}

int type_get_contents(mpi::Datatype& datatype, int max_integers, int max_addresses,
                      int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                      MPI_Datatype array_of_datatypes[]) {
  const TypeContents& c = datatype.contents;
  if (c.combiner == MPI_COMBINER_NAMED) return named_error(datatype);
  if (c.large_counts)
    return make_error(MPI_ERR_TYPE,
                      "datatype was built by a large-count constructor: decode it "
                      "with MPI_Type_get_contents_c");
  if (max_integers < static_cast<int>(c.ints.size()) ||
      max_addresses < static_cast<int>(c.aints.size()) ||
      max_datatypes < static_cast<int>(c.types.size()))
    return make_error(MPI_ERR_ARG,
                      "max_integers=%d, max_addresses=%d, max_datatypes=%d are less "
                      "than the envelope's %zu, %zu, %zu",
                      max_integers, max_addresses, max_datatypes, c.ints.size(), c.aints.size(),
                      c.types.size());
  std::copy(c.ints.begin(), c.ints.end(), array_of_integers);
  std::copy(c.aints.begin(), c.aints.end(), array_of_addresses);
  copy_types(c, array_of_datatypes);
  return MPI_SUCCESS;
}

int type_get_contents_c(mpi::Datatype& datatype, MPI_Count max_integers, MPI_Count max_addresses,
                        MPI_Count max_large_counts, MPI_Count max_datatypes,
                        int array_of_integers[], MPI_Aint array_of_addresses[],
                        MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
  const TypeContents& c = datatype.contents;
  if (c.combiner == MPI_COMBINER_NAMED) return named_error(datatype);
  if (max_integers < static_cast<MPI_Count>(c.ints.size()) ||
      max_addresses < static_cast<MPI_Count>(c.aints.size()) ||
      max_large_counts < static_cast<MPI_Count>(c.counts.size()) ||
      max_datatypes < static_cast<MPI_Count>(c.types.size()))
    return make_error(MPI_ERR_ARG,
                      "max_integers=%lld, max_addresses=%lld, max_large_counts=%lld, "
                      "max_datatypes=%lld are less than the envelope's %zu, %zu, %zu, %zu",
                      static_cast<long long>(max_integers), static_cast<long long>(max_addresses),
                      static_cast<long long>(max_large_counts),
                      static_cast<long long>(max_datatypes), c.ints.size(), c.aints.size(),
                      c.counts.size(), c.types.size());
  std::copy(c.ints.begin(), c.ints.end(), array_of_integers);
  std::copy(c.aints.begin(), c.aints.end(), array_of_addresses);
  std::copy(c.counts.begin(), c.counts.end(), array_of_large_counts);
  copy_types(c, array_of_datatypes);
  return MPI_SUCCESS;
}

// The MPI_Count form records its sizes as large counts in the envelope.
template <class Count>
int type_create_subarray_any(int ndims, const Count array_of_sizes[],
                             const Count array_of_subsizes[], const Count array_of_starts[],
                             int order, mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  if (int err = check_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order))
    return err;
  if (int err = build_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                               oldtype, newtype))
    return err;
  set_contents(*mpi::datatype_get(*newtype),
               subarray_contents(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                                 oldtype, std::is_same_v<Count, MPI_Count>));
  return MPI_SUCCESS;
}
template decltype(type_create_subarray_any<int>) type_create_subarray_any<int>;
template decltype(type_create_subarray_any<MPI_Count>) type_create_subarray_any<MPI_Count>;

int type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  // The Fortran types of each class by size, as MPICH maps them.
  struct Match {
    int typeclass, size;
    MPI_Datatype type;
  };
  static const Match kMatches[] = {
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},   {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},   {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
      {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, 4, MPI_REAL4},
      {MPI_TYPECLASS_REAL, 8, MPI_REAL8},         {MPI_TYPECLASS_REAL, 16, MPI_REAL16},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},   {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
      {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
  };
  if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
      typeclass != MPI_TYPECLASS_COMPLEX)
    return make_error(MPI_ERR_ARG, "typeclass=%d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX",
                      typeclass);
  for (const Match& m : kMatches)
    if (m.typeclass == typeclass && m.size == size) {
      *datatype = m.type;
      return MPI_SUCCESS;
    }
  return make_error(MPI_ERR_ARG, "no predefined type of typeclass %d has size=%d", typeclass, size);
}

int type_create_f90_integer(int r, MPI_Datatype* newtype) {
  // Decimal exponent range r: the smallest integer holding 10^r.
  const MPI_Datatype base = r <= 2    ? MPI_INTEGER1
                            : r <= 4  ? MPI_INTEGER2
                            : r <= 9  ? MPI_INTEGER4
                            : r <= 18 ? MPI_INTEGER8
                                      : MPI_DATATYPE_NULL;
  if (r < 0 || base == MPI_DATATYPE_NULL)
    return make_error(MPI_ERR_ARG, "r=%d: no integer type has a decimal range of %d digits", r, r);
  return create_f90(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, *mpi::datatype_get(base), newtype);
}

namespace {
// The real type of precision p and exponent range r (MPI_UNDEFINED: any).
MPI_Datatype f90_real_base(int p, int r, bool complex) {
  const bool any_p = p == MPI_UNDEFINED, any_r = r == MPI_UNDEFINED;
  if ((any_p || p <= FLT_DIG) && (any_r || r <= FLT_MAX_10_EXP))
    return complex ? MPI_COMPLEX8 : MPI_REAL4;
  if ((any_p || p <= DBL_DIG) && (any_r || r <= DBL_MAX_10_EXP))
    return complex ? MPI_COMPLEX16 : MPI_REAL8;
  if ((any_p || p <= LDBL_DIG) && (any_r || r <= LDBL_MAX_10_EXP))
    return complex ? MPI_COMPLEX32 : MPI_REAL16;
  return MPI_DATATYPE_NULL;
}
}  // namespace

// MPI_Type_create_f90_real and _complex: combiner MPI_COMBINER_F90_REAL or
// MPI_COMBINER_F90_COMPLEX.
int type_create_f90_float(int p, int r, MPI_Datatype* newtype, int combiner) {
  if ((p != MPI_UNDEFINED && p < 0) || (r != MPI_UNDEFINED && r < 0) ||
      (p == MPI_UNDEFINED && r == MPI_UNDEFINED))
    return make_error(MPI_ERR_ARG, "p=%d, r=%d: give a non-negative precision or range", p, r);
  const MPI_Datatype base = f90_real_base(p, r, combiner == MPI_COMBINER_F90_COMPLEX);
  if (base == MPI_DATATYPE_NULL || mpi::datatype_get(base) == nullptr)
    return make_error(MPI_ERR_ARG, "p=%d, r=%d: no real type has that precision and range", p, r);
  return create_f90(combiner, p, r, *mpi::datatype_get(base), newtype);
}

}  // namespace stmpi::impl
