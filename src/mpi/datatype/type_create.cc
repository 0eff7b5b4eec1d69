// Datatype constructors: MPI_Type_contiguous, _vector, _create_hvector,
// _indexed, _create_hindexed, _create_indexed_block, _create_hindexed_block,
// _create_struct, _create_resized, _dup, and their _c variants.
#include <new>
#include <optional>
#include <utility>

#include <mpi.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/datatype/layout_builder.h"
#include "mpi/datatype/type_attr.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::Datatype;
using mpi::LayoutBuilder;
using mpi::TypeContents;
using mpi::errhan::make_error;

int check_count(const char* what, MPI_Count value) {
  if (value < 0) {
    return make_error(MPI_ERR_COUNT, "%s = %lld must not be negative", what,
                      static_cast<long long>(value));
  }
  return MPI_SUCCESS;
}

int check_array(const char* what, const void* array, MPI_Count count) {
  if (count > 0 && array == nullptr) {
    return make_error(MPI_ERR_ARG, "%s is NULL but count = %lld", what,
                      static_cast<long long>(count));
  }
  return MPI_SUCCESS;
}

int check_newtype(const MPI_Datatype* newtype) {
  if (newtype == nullptr) return make_error(MPI_ERR_ARG, "newtype is NULL");
  return MPI_SUCCESS;
}

int overflow_error(bool size) {
  if (size)
    return make_error(MPI_ERR_COUNT,
                      "the new datatype would hold more bytes than MPI_Count holds (2^63 - 1)");
  return make_error(MPI_ERR_ARG,
                    "the new datatype's bounds or extent would not fit in MPI_Aint "
                    "(displacements, strides or extents too large)");
}

// Registers a type with the layout of `builder`, records how it was made
// and retains its components.
int make_type(LayoutBuilder& builder, bool pad_extent, TypeContents contents,
              MPI_Datatype* newtype) {
  auto* type = new (std::nothrow) Datatype;
  if (type == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory creating a datatype");
  builder.finish(*type, pad_extent);
  if (builder.size_overflow() || builder.bounds_overflow()) {
    delete type;
    return overflow_error(builder.size_overflow());
  }
  for (Datatype* component : contents.types) mpi::datatype_retain(component);
  type->contents = std::move(contents);
  *newtype = mpi::datatype_register(type);
  return MPI_SUCCESS;
}

TypeContents contents_of(int combiner, Datatype& old) {
  TypeContents contents;
  contents.combiner = combiner;
  contents.types = {&old};
  return contents;
}

// A displacement in units of `unit` bytes; nullopt when it overflows.
template <class Disp>
std::optional<MPI_Aint> scaled(Disp disp, MPI_Aint unit) {
  MPI_Aint bytes = 0;
  if (__builtin_mul_overflow(static_cast<MPI_Aint>(disp), unit, &bytes)) return std::nullopt;
  return bytes;
}

// `count` blocks; block i holds blocklen_at(i) instances of `old` at byte
// displacement disp_at(i).
template <class BlocklenAt, class DispAt>
int build_blocks(MPI_Count count, const char* blocklens_name, BlocklenAt blocklen_at,
                 DispAt disp_at, Datatype& old, TypeContents contents, MPI_Datatype* newtype) {
  LayoutBuilder builder;
  for (MPI_Count i = 0; i < count; ++i) {
    const MPI_Count blocklen = blocklen_at(i);
    if (blocklen < 0) {
      return make_error(MPI_ERR_COUNT, "%s[%lld] = %lld must not be negative", blocklens_name,
                        static_cast<long long>(i), static_cast<long long>(blocklen));
    }
    const std::optional<MPI_Aint> disp = disp_at(i);
    if (!disp) return overflow_error(false);
    builder.add(old, *disp, blocklen);
  }
  return make_type(builder, false, std::move(contents), newtype);
}

int build_contiguous(MPI_Count count, Datatype& old, TypeContents contents, MPI_Datatype* newtype) {
  if (int err = check_count("count", count)) return err;
  if (int err = check_newtype(newtype)) return err;
  LayoutBuilder builder;
  builder.add(old, 0, count);
  return make_type(builder, false, std::move(contents), newtype);
}

int build_vector(MPI_Count count, MPI_Count blocklength, MPI_Aint stride_bytes, Datatype& old,
                 TypeContents contents, MPI_Datatype* newtype) {
  if (int err = check_count("count", count)) return err;
  if (int err = check_count("blocklength", blocklength)) return err;
  if (int err = check_newtype(newtype)) return err;
  LayoutBuilder builder;
  builder.add(old, 0, blocklength, count, stride_bytes);
  return make_type(builder, false, std::move(contents), newtype);
}

// MPI_Type_indexed and MPI_Type_create_hindexed; `unit` is old's extent
// for displacements in elements, 1 for displacements in bytes.
template <class Len, class Disp>
int build_indexed(MPI_Count count, const Len blocklens[], const Disp displs[], MPI_Aint unit,
                  Datatype& old, TypeContents contents, MPI_Datatype* newtype) {
  if (int err = check_count("count", count)) return err;
  if (int err = check_array("array_of_blocklengths", blocklens, count)) return err;
  if (int err = check_array("array_of_displacements", displs, count)) return err;
  if (int err = check_newtype(newtype)) return err;
  return build_blocks(
      count, "array_of_blocklengths", [&](MPI_Count i) { return MPI_Count{blocklens[i]}; },
      [&](MPI_Count i) { return scaled(displs[i], unit); }, old, std::move(contents), newtype);
}

template <class Disp>
int build_indexed_block(MPI_Count count, MPI_Count blocklength, const Disp displs[], MPI_Aint unit,
                        Datatype& old, TypeContents contents, MPI_Datatype* newtype) {
  if (int err = check_count("count", count)) return err;
  if (int err = check_count("blocklength", blocklength)) return err;
  if (int err = check_array("array_of_displacements", displs, count)) return err;
  if (int err = check_newtype(newtype)) return err;
  return build_blocks(
      count, "blocklength", [&](MPI_Count) { return blocklength; },
      [&](MPI_Count i) { return scaled(displs[i], unit); }, old, std::move(contents), newtype);
}

template <class Len, class Disp>
int build_struct(MPI_Count count, const Len blocklens[], const Disp displs[],
                 const MPI_Datatype types[], TypeContents contents, MPI_Datatype* newtype) {
  if (int err = check_count("count", count)) return err;
  if (int err = check_array("array_of_blocklengths", blocklens, count)) return err;
  if (int err = check_array("array_of_displacements", displs, count)) return err;
  if (int err = check_array("array_of_types", types, count)) return err;
  if (int err = check_newtype(newtype)) return err;
  contents.types.reserve(static_cast<size_t>(count));
  bool all_same = true;
  LayoutBuilder builder;
  for (MPI_Count i = 0; i < count; ++i) {
    Datatype* type = mpi::datatype_get(types[i]);
    if (type == nullptr) {
      if (types[i] == MPI_DATATYPE_NULL) {
        return make_error(MPI_ERR_TYPE, "array_of_types[%lld] is MPI_DATATYPE_NULL",
                          static_cast<long long>(i));
      }
      return make_error(MPI_ERR_TYPE, "array_of_types[%lld] = 0x%x is not a valid datatype",
                        static_cast<long long>(i), static_cast<unsigned>(types[i]));
    }
    if (blocklens[i] < 0) {
      return make_error(MPI_ERR_COUNT, "array_of_blocklengths[%lld] = %lld must not be negative",
                        static_cast<long long>(i), static_cast<long long>(blocklens[i]));
    }
    all_same = all_same && types[i] == types[0];
    contents.types.push_back(type);
    builder.add(*type, static_cast<MPI_Aint>(displs[i]), blocklens[i]);
  }
  // Blocks of one type only are an hindexed type: no struct padding.
  return make_type(builder, !all_same, std::move(contents), newtype);
}

// Copies everything that describes the data of `from`.
void copy_shape(const Datatype& from, Datatype& to) {
  to.size = from.size;
  to.lb = from.lb;
  to.extent = from.extent;
  to.layout = from.layout;
}

int build_resized(Datatype& old, MPI_Aint lb, MPI_Aint extent, TypeContents contents,
                  MPI_Datatype* newtype) {
  if (int err = check_newtype(newtype)) return err;
  MPI_Aint ub = 0;
  if (__builtin_add_overflow(lb, extent, &ub))
    return make_error(MPI_ERR_ARG, "lb = %lld plus extent = %lld does not fit in MPI_Aint",
                      static_cast<long long>(lb), static_cast<long long>(extent));
  auto* type = new (std::nothrow) Datatype;
  if (type == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory creating a datatype");
  copy_shape(old, *type);
  type->lb = lb;
  type->extent = extent;
  type->layout.lb_marker = false;
  type->layout.ub_marker = false;
  type->layout.has_entries = true;
  mpi::layout_finalize(*type);
  mpi::datatype_retain(&old);
  type->contents = std::move(contents);
  *newtype = mpi::datatype_register(type);
  return MPI_SUCCESS;
}

}  // namespace

int type_contiguous(int count, mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_CONTIGUOUS, oldtype);
  contents.ints = {count};
  return build_contiguous(count, oldtype, std::move(contents), newtype);
}

int type_contiguous_c(MPI_Count count, mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_CONTIGUOUS, oldtype);
  contents.large_counts = true;
  contents.counts = {count};
  return build_contiguous(count, oldtype, std::move(contents), newtype);
}

int type_vector(int count, int blocklength, int stride, mpi::Datatype& oldtype,
                MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_VECTOR, oldtype);
  contents.ints = {count, blocklength, stride};
  MPI_Aint stride_bytes = 0;
  if (__builtin_mul_overflow(MPI_Aint{stride}, oldtype.extent, &stride_bytes))
    return overflow_error(false);
  return build_vector(count, blocklength, stride_bytes, oldtype, std::move(contents), newtype);
}

int type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, mpi::Datatype& oldtype,
                  MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_VECTOR, oldtype);
  contents.large_counts = true;
  contents.counts = {count, blocklength, stride};
  MPI_Aint stride_bytes = 0;
  if (__builtin_mul_overflow(stride, oldtype.extent, &stride_bytes)) return overflow_error(false);
  return build_vector(count, blocklength, stride_bytes, oldtype, std::move(contents), newtype);
}

int type_create_hvector(int count, int blocklength, MPI_Aint stride, mpi::Datatype& oldtype,
                        MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_HVECTOR, oldtype);
  contents.ints = {count, blocklength};
  contents.aints = {stride};
  return build_vector(count, blocklength, stride, oldtype, std::move(contents), newtype);
}

int type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                          mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_HVECTOR, oldtype);
  contents.large_counts = true;
  contents.counts = {count, blocklength, stride};
  return build_vector(count, blocklength, stride, oldtype, std::move(contents), newtype);
}

int type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                 mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_INDEXED, oldtype);
  if (count > 0 && array_of_blocklengths != nullptr && array_of_displacements != nullptr) {
    contents.ints = {count};
    contents.ints.insert(contents.ints.end(), array_of_blocklengths, array_of_blocklengths + count);
    contents.ints.insert(contents.ints.end(), array_of_displacements,
                         array_of_displacements + count);
  }
  return build_indexed(count, array_of_blocklengths, array_of_displacements, oldtype.extent,
                       oldtype, std::move(contents), newtype);
}

int type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                   const MPI_Count array_of_displacements[], mpi::Datatype& oldtype,
                   MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_INDEXED, oldtype);
  contents.large_counts = true;
  if (count > 0 && array_of_blocklengths != nullptr && array_of_displacements != nullptr) {
    contents.counts = {count};
    contents.counts.insert(contents.counts.end(), array_of_blocklengths,
                           array_of_blocklengths + count);
    contents.counts.insert(contents.counts.end(), array_of_displacements,
                           array_of_displacements + count);
  }
  return build_indexed(count, array_of_blocklengths, array_of_displacements, oldtype.extent,
                       oldtype, std::move(contents), newtype);
}

int type_create_hindexed(int count, const int array_of_blocklengths[],
                         const MPI_Aint array_of_displacements[], mpi::Datatype& oldtype,
                         MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_HINDEXED, oldtype);
  if (count > 0 && array_of_blocklengths != nullptr && array_of_displacements != nullptr) {
    contents.ints = {count};
    contents.ints.insert(contents.ints.end(), array_of_blocklengths, array_of_blocklengths + count);
    contents.aints.assign(array_of_displacements, array_of_displacements + count);
  }
  return build_indexed(count, array_of_blocklengths, array_of_displacements, 1, oldtype,
                       std::move(contents), newtype);
}

int type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                           const MPI_Count array_of_displacements[], mpi::Datatype& oldtype,
                           MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_HINDEXED, oldtype);
  contents.large_counts = true;
  if (count > 0 && array_of_blocklengths != nullptr && array_of_displacements != nullptr) {
    contents.counts = {count};
    contents.counts.insert(contents.counts.end(), array_of_blocklengths,
                           array_of_blocklengths + count);
    contents.counts.insert(contents.counts.end(), array_of_displacements,
                           array_of_displacements + count);
  }
  return build_indexed(count, array_of_blocklengths, array_of_displacements, 1, oldtype,
                       std::move(contents), newtype);
}

int type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                              mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_INDEXED_BLOCK, oldtype);
  if (count > 0 && array_of_displacements != nullptr) {
    contents.ints = {count, blocklength};
    contents.ints.insert(contents.ints.end(), array_of_displacements,
                         array_of_displacements + count);
  }
  return build_indexed_block(count, blocklength, array_of_displacements, oldtype.extent, oldtype,
                             std::move(contents), newtype);
}

int type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                const MPI_Count array_of_displacements[], mpi::Datatype& oldtype,
                                MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_INDEXED_BLOCK, oldtype);
  contents.large_counts = true;
  if (count > 0 && array_of_displacements != nullptr) {
    contents.counts = {count, blocklength};
    contents.counts.insert(contents.counts.end(), array_of_displacements,
                           array_of_displacements + count);
  }
  return build_indexed_block(count, blocklength, array_of_displacements, oldtype.extent, oldtype,
                             std::move(contents), newtype);
}

int type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                               mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_HINDEXED_BLOCK, oldtype);
  contents.ints = {count, blocklength};
  if (count > 0 && array_of_displacements != nullptr) {
    contents.aints.assign(array_of_displacements, array_of_displacements + count);
  }
  return build_indexed_block(count, blocklength, array_of_displacements, 1, oldtype,
                             std::move(contents), newtype);
}

int type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                 const MPI_Count array_of_displacements[], mpi::Datatype& oldtype,
                                 MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_HINDEXED_BLOCK, oldtype);
  contents.large_counts = true;
  if (count > 0 && array_of_displacements != nullptr) {
    contents.counts = {count, blocklength};
    contents.counts.insert(contents.counts.end(), array_of_displacements,
                           array_of_displacements + count);
  }
  return build_indexed_block(count, blocklength, array_of_displacements, 1, oldtype,
                             std::move(contents), newtype);
}

int type_create_struct(int count, const int array_of_blocklengths[],
                       const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                       MPI_Datatype* newtype) {
  TypeContents contents;
  contents.combiner = MPI_COMBINER_STRUCT;
  if (count > 0 && array_of_blocklengths != nullptr && array_of_displacements != nullptr) {
    contents.ints = {count};
    contents.ints.insert(contents.ints.end(), array_of_blocklengths, array_of_blocklengths + count);
    contents.aints.assign(array_of_displacements, array_of_displacements + count);
  }
  return build_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                      std::move(contents), newtype);
}

int type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                         const MPI_Count array_of_displacements[],
                         const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  TypeContents contents;
  contents.combiner = MPI_COMBINER_STRUCT;
  contents.large_counts = true;
  if (count > 0 && array_of_blocklengths != nullptr && array_of_displacements != nullptr) {
    contents.counts = {count};
    contents.counts.insert(contents.counts.end(), array_of_blocklengths,
                           array_of_blocklengths + count);
    contents.counts.insert(contents.counts.end(), array_of_displacements,
                           array_of_displacements + count);
  }
  return build_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                      std::move(contents), newtype);
}

int type_create_resized(mpi::Datatype& oldtype, MPI_Aint lb, MPI_Aint extent,
                        MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_RESIZED, oldtype);
  contents.aints = {lb, extent};
  return build_resized(oldtype, lb, extent, std::move(contents), newtype);
}

int type_create_resized_c(mpi::Datatype& oldtype, MPI_Count lb, MPI_Count extent,
                          MPI_Datatype* newtype) {
  TypeContents contents = contents_of(MPI_COMBINER_RESIZED, oldtype);
  contents.large_counts = true;
  contents.counts = {lb, extent};
  return build_resized(oldtype, lb, extent, std::move(contents), newtype);
}

int type_dup(mpi::Datatype& oldtype, MPI_Datatype* newtype) {
  if (int err = check_newtype(newtype)) return err;
  auto* type = new (std::nothrow) Datatype;
  if (type == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory creating a datatype");
  copy_shape(oldtype, *type);
  mpi::layout_finalize(*type);
  type->committed = oldtype.committed;
  type->contents = contents_of(MPI_COMBINER_DUP, oldtype);
  mpi::datatype_retain(&oldtype);
  const MPI_Datatype handle = mpi::datatype_register(type);
  // A failing copy callback fails the dup: the new type is freed again.
  if (int err = mpi::type_attr_copy_all(oldtype, *type)) {
    (void)mpi::type_attr_delete_all(*type);
    mpi::datatype_release(type);
    *newtype = MPI_DATATYPE_NULL;
    return err;
  }
  *newtype = handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
