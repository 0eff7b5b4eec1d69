// Builds the layout of a derived datatype from instances of existing types,
// added in type-map order. Used by the constructors and for the predefined
// pair types.
#pragma once

#include <vector>

#include "mpi/datatype/datatype.h"

namespace stmpi::mpi {

class LayoutBuilder {
 public:
  // `count` blocks of `blocklen` adjacent instances of `old` (adjacent = one
  // extent apart); block k starts `disp + k * stride` bytes after the start.
  void add(const Datatype& old, MPI_Aint disp, MPI_Count blocklen, MPI_Count count = 1,
           MPI_Aint stride = 0);

  // Writes size, bounds, layout and the derived flags into `type`.
  // `pad_extent` rounds the extent up to the strictest alignment of the
  // elements, as C does for structs (MPI's "epsilon"), unless an MPI_LB or
  // MPI_UB marker fixes the bounds.
  void finish(Datatype& type, bool pad_extent);

  // An instance's size, or a bound or extent, does not fit in MPI_Count /
  // MPI_Aint: the type cannot be built (known after finish).
  bool size_overflow() const { return size_overflow_; }
  bool bounds_overflow() const { return bounds_overflow_; }

 private:
  void add_blocks(const Datatype& old, MPI_Aint disp, MPI_Count n);
  void append_signature(const TypeLayout& old, MPI_Count n);
  void append_group(const std::vector<ElementRun>& runs, MPI_Count repeat);
  void append_run(MPI_Aint size, MPI_Count count);

  TypeLayout layout_;
  MPI_Count size_ = 0;
  bool mixed_base_ = false;
  bool size_overflow_ = false, bounds_overflow_ = false;
  bool have_lb_ = false, have_ub_ = false, have_marker_lb_ = false, have_marker_ub_ = false;
  MPI_Aint lb_ = 0, ub_ = 0;                // over entries that carry no marker
  MPI_Aint marker_lb_ = 0, marker_ub_ = 0;  // over entries that carry one
};

// Appends a data block, merging it into the previous one where the result
// still describes the same bytes in the same order.
void push_block(std::vector<DataBlock>& blocks, DataBlock block);

// Fills the fields that follow from layout, size, lb and extent: true_lb,
// true_extent, contiguous and layout.base_dense.
void layout_finalize(Datatype& type);

}  // namespace stmpi::mpi
