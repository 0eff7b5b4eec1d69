// MPI_Type_create_darray(_c) (MPI 4.1 section 5.1.4): the part of a global
// array that one process of a process grid owns under block, cyclic(k) or no
// distribution per dimension, as a type over the whole array.
//
// Every distribution is cyclic(k) over P processes: block with block size b
// is cyclic(b), where only one block falls on each process; none is
// cyclic(gsize) over one process. Process `coord` of a dimension owns the
// blocks starting at coord*k, coord*k + P*k, ...; all but possibly the last
// have k indices. So one dimension is at most two pieces, built from the
// type of the faster dimensions (resized to the stride of this one): an
// hvector of the full blocks and a contiguous run for a short last block.
// The dimensions nest from the fastest (the last in C order, the first in
// Fortran order) out, so the type map follows the local array in `order`;
// the result is resized to the whole array (lb 0), as for subarrays.
// The process grid is row-major whatever `order` says, as the standard fixes.
#include <type_traits>

#include <mpi.h>

#include <vector>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/datatype/type_compose.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::Datatype;
using mpi::TypeContents;
using mpi::TypeRef;
using mpi::errhan::make_error;

const char* distrib_name(int distrib) {
  switch (distrib) {
    case MPI_DISTRIBUTE_BLOCK: return "MPI_DISTRIBUTE_BLOCK";
    case MPI_DISTRIBUTE_CYCLIC: return "MPI_DISTRIBUTE_CYCLIC";
    default: return "MPI_DISTRIBUTE_NONE";
  }
}

// One dimension as cyclic(k) over `procs` processes, seen from `coord`.
struct Cyclic {
  MPI_Count gsize = 0;
  MPI_Count k = 0;
  MPI_Count procs = 1;
  MPI_Count coord = 0;
};

template <class Int>
int check_darray(int size, int rank, int ndims, const Int gsizes[], const int distribs[],
                 const int dargs[], const int psizes[], int order, std::vector<Cyclic>* dims) {
  if (size <= 0) return make_error(MPI_ERR_ARG, "size=%d must be positive", size);
  if (rank < 0 || rank >= size)
    return make_error(MPI_ERR_RANK, "rank=%d is not in 0..%d (size %d)", rank, size - 1, size);
  if (ndims <= 0) return make_error(MPI_ERR_ARG, "ndims=%d must be positive", ndims);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return make_error(MPI_ERR_ARG, "order=%d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  long long grid = 1;
  for (int d = 0; d < ndims; ++d) {
    const long long gsize = gsizes[d];
    const int psize = psizes[d], distrib = distribs[d], darg = dargs[d];
    if (gsize <= 0)
      return make_error(MPI_ERR_ARG, "array_of_gsizes[%d]=%lld must be positive", d, gsize);
    if (psize <= 0)
      return make_error(MPI_ERR_ARG, "array_of_psizes[%d]=%d must be positive", d, psize);
    if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC &&
        distrib != MPI_DISTRIBUTE_NONE)
      return make_error(MPI_ERR_ARG,
                        "array_of_distribs[%d]=%d is not MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE", d,
                        distrib);
    if (distrib == MPI_DISTRIBUTE_NONE && psize != 1)
      return make_error(MPI_ERR_ARG,
                        "array_of_psizes[%d]=%d must be 1 for a dimension with "
                        "MPI_DISTRIBUTE_NONE",
                        d, psize);
    if (distrib != MPI_DISTRIBUTE_NONE && darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
      return make_error(MPI_ERR_ARG,
                        "array_of_dargs[%d]=%d must be positive or MPI_DISTRIBUTE_DFLT_DARG (%s)",
                        d, darg, distrib_name(distrib));
    if (distrib == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
        static_cast<long long>(darg) * psize < gsize)
      return make_error(MPI_ERR_ARG,
                        "array_of_dargs[%d]=%d is too small: %d blocks of %d cover fewer than "
                        "array_of_gsizes[%d]=%lld elements (MPI_DISTRIBUTE_BLOCK)",
                        d, darg, psize, darg, d, gsize);
    if (__builtin_mul_overflow(grid, static_cast<long long>(psize), &grid) || grid > size)
      grid = static_cast<long long>(size) + 1;
  }
  if (grid != size) {
    long long product = 1;
    for (int d = 0; d < ndims && product <= size; ++d) product *= psizes[d];
    return make_error(MPI_ERR_ARG, "the product of array_of_psizes (%s%lld) differs from size=%d",
                      product > size ? "more than " : "", product > size ? size : product, size);
  }
  // Row-major process grid: the last dimension's coordinate varies fastest.
  dims->resize(static_cast<std::size_t>(ndims));
  int rest = rank;
  for (int d = ndims - 1; d >= 0; --d) {
    Cyclic& c = (*dims)[d];
    c.gsize = gsizes[d];
    c.procs = psizes[d];
    c.coord = rest % psizes[d];
    rest /= psizes[d];
    switch (distribs[d]) {
      case MPI_DISTRIBUTE_BLOCK:
        c.k = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (c.gsize + c.procs - 1) / c.procs : dargs[d];
        break;
      case MPI_DISTRIBUTE_CYCLIC: c.k = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d]; break;
      default: c.k = c.gsize; break;
    }
  }
  return MPI_SUCCESS;
}

// The indices of one dimension that `c.coord` owns, as a type over `row`
// (one index of this dimension, `stride` bytes apart).
int build_dimension(const Cyclic& c, Datatype& row, MPI_Count stride, MPI_Datatype* out) {
  const MPI_Count start = c.coord * c.k;
  if (start >= c.gsize) return type_contiguous_c(0, row, out);
  const MPI_Count period = c.procs * c.k;  // indices from one owned block to the next
  const MPI_Count blocks = (c.gsize - start + period - 1) / period;
  const MPI_Count last_start = start + (blocks - 1) * period;
  const MPI_Count last_len = c.gsize - last_start < c.k ? c.gsize - last_start : c.k;
  const MPI_Count full = last_len == c.k ? blocks : blocks - 1;
  MPI_Count period_bytes = 0, start_bytes = 0, last_bytes = 0;
  if (__builtin_mul_overflow(period, stride, &period_bytes) ||
      __builtin_mul_overflow(start, stride, &start_bytes) ||
      __builtin_mul_overflow(last_start, stride, &last_bytes))
    return make_error(MPI_ERR_ARG, "the array's extent in bytes overflows MPI_Count");
  TypeRef pieces[2];
  MPI_Count displs[2] = {start_bytes, last_bytes};
  MPI_Count lengths[2] = {1, 1};
  MPI_Datatype types[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  int n = 0;
  if (full > 0) {
    if (int err = type_create_hvector_c(full, c.k, period_bytes, row, &pieces[n].handle))
      return err;
    types[n++] = pieces[0].handle;
  }
  if (full < blocks) {
    if (int err = type_contiguous_c(last_len, row, &pieces[n].handle)) return err;
    displs[n] = last_bytes;
    types[n] = pieces[n].handle;
    ++n;
  }
  if (n == 1) return type_create_hindexed_c(1, lengths, displs, pieces[0].get(), out);
  return type_create_struct_c(2, lengths, displs, types, out);
}

int build_darray(const std::vector<Cyclic>& dims, int order, Datatype& oldtype,
                 MPI_Datatype* newtype) {
  const int ndims = static_cast<int>(dims.size());
  MPI_Count stride = oldtype.extent;  // bytes between consecutive indices of the dimension
  TypeRef current;
  for (int i = 0; i < ndims; ++i) {
    const int d = order == MPI_ORDER_C ? ndims - 1 - i : i;
    TypeRef row;  // one index of dimension d: the faster dimensions' part, spanning `stride`
    if (i > 0) {
      if (int err = type_create_resized_c(current.get(), 0, stride, &row.handle)) return err;
    }
    TypeRef next;
    if (int err = build_dimension(dims[d], i == 0 ? oldtype : row.get(), stride, &next.handle))
      return err;
    std::swap(current.handle, next.handle);
    if (__builtin_mul_overflow(stride, dims[d].gsize, &stride))
      return make_error(MPI_ERR_ARG, "the array's extent in bytes overflows MPI_Count");
  }
  return type_create_resized_c(current.get(), 0, stride, newtype);
}

template <class Int>
TypeContents darray_contents(int size, int rank, int ndims, const Int gsizes[],
                             const int distribs[], const int dargs[], const int psizes[], int order,
                             Datatype& oldtype, bool large) {
  TypeContents c;
  c.combiner = MPI_COMBINER_DARRAY;
  c.large_counts = large;
  c.types = {&oldtype};
  c.ints = {size, rank, ndims};
  if (large) c.counts.assign(gsizes, gsizes + ndims);
  else c.ints.insert(c.ints.end(), gsizes, gsizes + ndims);
  for (const int* a : {distribs, dargs, psizes}) c.ints.insert(c.ints.end(), a, a + ndims);
  c.ints.push_back(order);
  return c;
}

}  // namespace

// The MPI_Count form records its global sizes as large counts in the envelope.
template <class Count>
int type_create_darray_any(int size, int rank, int ndims, const Count array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, mpi::Datatype& oldtype,
                           MPI_Datatype* newtype) {
  std::vector<Cyclic> dims;
  if (int err = check_darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                             array_of_psizes, order, &dims))
    return err;
  if (int err = build_darray(dims, order, oldtype, newtype)) return err;
  mpi::set_contents(
      *mpi::datatype_get(*newtype),
      darray_contents(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                      array_of_psizes, order, oldtype, std::is_same_v<Count, MPI_Count>));
  return MPI_SUCCESS;
}
template decltype(type_create_darray_any<int>) type_create_darray_any<int>;
template decltype(type_create_darray_any<MPI_Count>) type_create_darray_any<MPI_Count>;

}  // namespace stmpi::impl
