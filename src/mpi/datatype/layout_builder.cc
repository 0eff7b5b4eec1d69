#include "mpi/datatype/layout_builder.h"

#include <algorithm>

namespace stmpi::mpi {
namespace {

// Signatures with at most this many runs are repeated as one group instead
// of being appended copy by copy.
constexpr size_t kMaxFlattenedRuns = 256;

std::vector<ElementRun> flatten(const std::vector<ElementGroup>& signature) {
  std::vector<ElementRun> runs;
  for (const ElementGroup& group : signature) {
    for (MPI_Count r = 0; r < group.repeat; ++r) {
      for (const ElementRun& run : group.runs) {
        if (!runs.empty() && runs.back().size == run.size) runs.back().count += run.count;
        else runs.push_back(run);
        if (runs.size() > kMaxFlattenedRuns) return {};
      }
    }
  }
  return runs;
}

MPI_Aint round_up(MPI_Aint value, MPI_Aint alignment) {
  if (alignment <= 1 || value <= 0) return value;
  const MPI_Aint rest = value % alignment;
  return rest == 0 ? value : value + alignment - rest;
}

}  // namespace

void push_block(std::vector<DataBlock>& blocks, DataBlock block) {
  if (block.len <= 0 || block.count <= 0) return;
  if (block.count == 1) block.stride = 0;
  if (block.count > 1 && block.stride == block.len) {
    block.len *= block.count;
    block.count = 1;
    block.stride = 0;
  }
  if (blocks.empty()) {
    blocks.push_back(block);
    return;
  }
  DataBlock& prev = blocks.back();
  if (prev.count == 1 && block.count == 1 && prev.disp + prev.len == block.disp) {
    prev.len += block.len;
    return;
  }
  if (prev.len == block.len) {
    if (prev.count == 1 && block.count == 1) {
      prev.stride = block.disp - prev.disp;
      prev.count = 2;
      return;
    }
    if (prev.count > 1 && block.disp == prev.disp + prev.count * prev.stride &&
        (block.count == 1 || block.stride == prev.stride)) {
      prev.count += block.count;
      return;
    }
    if (prev.count == 1 && block.count > 1 && block.disp - prev.disp == block.stride) {
      prev.count = block.count + 1;
      prev.stride = block.stride;
      return;
    }
  }
  blocks.push_back(block);
}

void LayoutBuilder::add(const Datatype& old, MPI_Aint disp, MPI_Count blocklen, MPI_Count count,
                        MPI_Aint stride) {
  if (blocklen <= 0 || count <= 0) return;
  const TypeLayout& from = old.layout;

  // Instance (j, k) of old starts at disp + j*extent + k*stride and puts
  // its lower bound at that + old.lb and its upper bound at that + old.lb +
  // old.extent (below the lower bound when the extent is negative). The new
  // bounds are the lowest lower bound and the highest upper bound.
  MPI_Aint within = 0, across = 0, lo = 0, hi = 0, n = 0, bytes = 0, elements = 0;
  MPI_Aint first_lo = 0, first_hi = 0;
  if (__builtin_mul_overflow(blocklen - 1, old.extent, &within) ||
      __builtin_mul_overflow(count - 1, stride, &across) ||
      __builtin_add_overflow(disp, old.lb, &first_lo) ||
      __builtin_add_overflow(first_lo, old.extent, &first_hi) ||
      __builtin_add_overflow(first_lo, std::min<MPI_Aint>(0, within), &lo) ||
      __builtin_add_overflow(lo, std::min<MPI_Aint>(0, across), &lo) ||
      __builtin_add_overflow(first_hi, std::max<MPI_Aint>(0, within), &hi) ||
      __builtin_add_overflow(hi, std::max<MPI_Aint>(0, across), &hi))
    bounds_overflow_ = true;
  if (__builtin_mul_overflow(blocklen, count, &n) || __builtin_mul_overflow(n, old.size, &bytes) ||
      __builtin_add_overflow(size_, bytes, &size_) ||
      __builtin_mul_overflow(n, from.element_count, &elements))
    size_overflow_ = true;
  if (bounds_overflow_ || size_overflow_) return;

  if (from.has_entries) {
    if (from.lb_marker) {
      marker_lb_ = have_marker_lb_ ? std::min(marker_lb_, lo) : lo;
      have_marker_lb_ = true;
    }
    if (from.ub_marker) {
      marker_ub_ = have_marker_ub_ ? std::max(marker_ub_, hi) : hi;
      have_marker_ub_ = true;
    }
    // A type made of markers only sets no bound of its own.
    const bool only_markers = old.size == 0 && (from.lb_marker || from.ub_marker);
    if (!from.lb_marker && !only_markers) {
      lb_ = have_lb_ ? std::min(lb_, lo) : lo;
      have_lb_ = true;
    }
    if (!from.ub_marker && !only_markers) {
      ub_ = have_ub_ ? std::max(ub_, hi) : hi;
      have_ub_ = true;
    }
    layout_.has_entries = true;
  }
  layout_.lb_marker |= from.lb_marker;
  layout_.ub_marker |= from.ub_marker;

  layout_.element_count += elements;
  layout_.alignment = std::max(layout_.alignment, from.alignment);
  if (old.size > 0) {
    if (from.base_type == 0) mixed_base_ = true;
    else if (layout_.base_type == 0) layout_.base_type = from.base_type;
    else if (layout_.base_type != from.base_type) mixed_base_ = true;
    layout_.base_count += n * from.base_count;
  }
  append_signature(from, n);

  if (from.blocks.empty()) return;
  if (old.contiguous) {
    // Each block of instances is one run.
    const DataBlock& run = from.blocks[0];
    push_block(layout_.blocks, {disp + run.disp, run.len * blocklen, count, stride});
    return;
  }
  for (MPI_Count k = 0; k < count; ++k) add_blocks(old, disp + k * stride, blocklen);
}

// `n` adjacent instances of `old` at `disp`.
void LayoutBuilder::add_blocks(const Datatype& old, MPI_Aint disp, MPI_Count n) {
  const std::vector<DataBlock>& from = old.layout.blocks;
  if (from.size() == 1) {
    const DataBlock& only = from[0];
    if (only.count == 1) {
      push_block(layout_.blocks, {disp + only.disp, only.len, n, old.extent});
      return;
    }
    if (old.extent == only.count * only.stride) {
      // The instances continue the block's own stride.
      push_block(layout_.blocks, {disp + only.disp, only.len, only.count * n, only.stride});
      return;
    }
  }
  for (MPI_Count i = 0; i < n; ++i) {
    for (const DataBlock& block : from) {
      push_block(layout_.blocks,
                 {disp + i * old.extent + block.disp, block.len, block.count, block.stride});
    }
  }
}

void LayoutBuilder::append_signature(const TypeLayout& old, MPI_Count n) {
  if (n <= 0 || old.signature.empty()) return;
  if (old.signature.size() == 1) {
    const ElementGroup& group = old.signature[0];
    append_group(group.runs, group.repeat * n);
    return;
  }
  if (n > 1) {
    std::vector<ElementRun> runs = flatten(old.signature);
    if (!runs.empty()) {
      append_group(runs, n);
      return;
    }
  }
  for (MPI_Count i = 0; i < n; ++i) {
    for (const ElementGroup& group : old.signature) append_group(group.runs, group.repeat);
  }
}

void LayoutBuilder::append_group(const std::vector<ElementRun>& runs, MPI_Count repeat) {
  if (runs.empty() || repeat <= 0) return;
  if (runs.size() == 1) {
    append_run(runs[0].size, runs[0].count * repeat);
    return;
  }
  std::vector<ElementGroup>& sig = layout_.signature;
  if (!sig.empty() && sig.back().runs == runs) {
    sig.back().repeat += repeat;
    return;
  }
  sig.push_back({runs, repeat});
}

void LayoutBuilder::append_run(MPI_Aint size, MPI_Count count) {
  if (count <= 0) return;
  std::vector<ElementGroup>& sig = layout_.signature;
  if (!sig.empty() && sig.back().repeat == 1 && sig.back().runs.size() == 1 &&
      sig.back().runs[0].size == size) {
    sig.back().runs[0].count += count;
    return;
  }
  sig.push_back({{{size, count}}, 1});
}

void LayoutBuilder::finish(Datatype& type, bool pad_extent) {
  // Bounds from the entries without markers; a marker overrides the bound
  // it sets. The padding makes the span up to the unmarked upper bound a
  // multiple of the alignment.
  // With no entry but markers, the unmarked bounds are 0 (as MPICH has it:
  // {(LB,10)} has ub 0 and extent -10, {(UB,10)} lb 0 and extent 10).
  const bool markers_only = !have_lb_ && !have_ub_ && (have_marker_lb_ || have_marker_ub_);
  MPI_Aint lb = have_marker_lb_ ? marker_lb_ : have_lb_ ? lb_ : 0;
  MPI_Aint ub = have_marker_ub_ ? marker_ub_ : have_ub_ ? ub_ : markers_only ? 0 : lb;
  if (!have_marker_lb_ && !have_lb_ && !markers_only) lb = ub;
  if (pad_extent && !have_marker_ub_ && have_ub_) {
    const MPI_Aint from = have_lb_ ? lb_ : lb;
    ub = from + round_up(ub - from, layout_.alignment);
  }
  MPI_Aint extent = 0;
  if (__builtin_sub_overflow(ub, lb, &extent)) bounds_overflow_ = true;
  if (mixed_base_) {
    layout_.base_type = 0;
    layout_.base_count = 0;
  }
  type.size = size_;
  type.lb = lb;
  type.extent = extent;
  type.layout = std::move(layout_);
  layout_ = TypeLayout{};
  layout_finalize(type);
}

void layout_finalize(Datatype& type) {
  TypeLayout& layout = type.layout;
  if (layout.blocks.empty()) {
    type.true_lb = 0;
    type.true_extent = 0;
  } else {
    MPI_Aint lo = 0, hi = 0;
    bool first = true;
    for (const DataBlock& block : layout.blocks) {
      const MPI_Aint last = block.disp + (block.count - 1) * block.stride;
      const MPI_Aint block_lo = std::min(block.disp, last);
      const MPI_Aint block_hi = std::max(block.disp, last) + block.len;
      lo = first ? block_lo : std::min(lo, block_lo);
      hi = first ? block_hi : std::max(hi, block_hi);
      first = false;
    }
    type.true_lb = lo;
    type.true_extent = hi - lo;
  }
  type.contiguous =
      type.size == 0 || (layout.blocks.size() == 1 && layout.blocks[0].count == 1 &&
                         layout.blocks[0].len == type.size && type.extent == type.size);

  layout.base_dense = false;
  if (layout.base_type == 0) return;
  if (layout.base_type == type.handle) {
    layout.base_dense = true;  // a predefined type is its own base
    return;
  }
  const Datatype* base = datatype_get(layout.base_type);
  if (base == nullptr || type.extent != layout.base_count * base->extent) return;
  if (base->contiguous) {
    layout.base_dense = type.contiguous;
    return;
  }
  // Compare with the layout of base_count adjacent base values at true_lb.
  std::vector<DataBlock> dense;
  const MPI_Aint start = type.true_lb - base->true_lb;
  for (MPI_Count i = 0; i < layout.base_count; ++i) {
    for (const DataBlock& block : base->layout.blocks) {
      push_block(dense,
                 {start + i * base->extent + block.disp, block.len, block.count, block.stride});
    }
    if (dense.size() > layout.blocks.size()) return;
  }
  layout.base_dense = dense == layout.blocks;
}

}  // namespace stmpi::mpi
