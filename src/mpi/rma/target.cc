#include "mpi/rma/target.h"

#include <algorithm>

#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"

namespace stmpi::mpi::rma {

void RunList::push(int64_t offset, uint64_t bytes) {
  if (bytes == 0) return;
  low_ = std::min(low_, offset);
  high_ = std::max(high_, offset + static_cast<int64_t>(bytes));
  std::span<dev::rma::Run> runs = mutable_span();
  if (!runs.empty()) {
    dev::rma::Run& last = runs.back();
    if (static_cast<int64_t>(last.offset + last.bytes) == offset) {
      last.bytes += bytes;
      return;
    }
  }
  // Offsets are stored as given; resolve_target rebases them once checked.
  const dev::rma::Run run{static_cast<uint64_t>(offset), bytes};
  if (heap_.empty() && size_ < inline_.size()) {
    inline_[size_++] = run;
    return;
  }
  if (heap_.empty())
    heap_.assign(inline_.begin(), inline_.begin() + static_cast<std::ptrdiff_t>(size_));
  heap_.push_back(run);
}

namespace {

using errhan::make_error;

void flatten(int64_t start, MPI_Count count, const Datatype& type, RunList& runs) {
  if (type.contiguous) {
    runs.push(start + type.true_lb, static_cast<uint64_t>(count * type.size));
    return;
  }
  for (MPI_Count i = 0; i < count; ++i) {
    const int64_t base = start + i * type.extent;
    for (const DataBlock& block : type.layout.blocks)
      for (MPI_Count k = 0; k < block.count; ++k)
        runs.push(base + block.disp + k * block.stride, static_cast<uint64_t>(block.len));
  }
}

}  // namespace

int resolve_target(const Win& win, int target, MPI_Aint disp, MPI_Count count, const Datatype& type,
                   const char* function, TargetSpan* out) {
  const WinTarget& t = win.target(target);
  if (win.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    // target_disp is an address in the target (MPI_Get_address there).
    flatten(disp, count, type, out->runs);
    dev::rma::AttachedRegion region;
    if (!win.device.find_attached(target, static_cast<uint64_t>(out->runs.low()),
                                  static_cast<uint64_t>(out->runs.high()), &region))
      return make_error(MPI_ERR_RMA_RANGE,
                        "%s: target_disp=0x%lx with target_count=%lld of %s reaches addresses "
                        "[0x%llx, 0x%llx), which are not inside one region rank %d has attached",
                        function, static_cast<unsigned long>(disp), static_cast<long long>(count),
                        datatype_name(type.handle),
                        static_cast<unsigned long long>(out->runs.low()),
                        static_cast<unsigned long long>(out->runs.high()), target);
    out->region = t.memory;
    out->region.remote = region.base;
    out->region.bytes = region.bytes;
    out->region.mapped = target == win.rank ? reinterpret_cast<char*>(region.base) : nullptr;
    for (dev::rma::Run& run : out->runs.mutable_span()) run.offset -= region.base;
    return MPI_SUCCESS;
  }
  if (disp < 0)
    return make_error(MPI_ERR_DISP, "%s: target_disp=%ld must be non-negative", function,
                      static_cast<long>(disp));
  flatten(static_cast<int64_t>(disp) * t.disp_unit, count, type, out->runs);
  if (out->runs.low() < 0 || out->runs.high() > static_cast<int64_t>(t.size))
    return make_error(MPI_ERR_RMA_RANGE,
                      "%s: target_disp=%ld (disp_unit %d) with target_count=%lld of %s reaches "
                      "bytes [%lld, %lld) of rank %d's window, which has %ld bytes",
                      function, static_cast<long>(disp), t.disp_unit, static_cast<long long>(count),
                      datatype_name(type.handle), static_cast<long long>(out->runs.low()),
                      static_cast<long long>(out->runs.high()), target, static_cast<long>(t.size));
  out->region = t.memory;
  return MPI_SUCCESS;
}

const char* packed_origin(const void* buf, MPI_Count count, const Datatype& type,
                          std::vector<char>& storage) {
  if (type.contiguous) return static_cast<const char*>(buf) + type.true_lb;
  storage.resize(static_cast<std::size_t>(count * type.size));
  type.pack(buf, count, storage.data());
  return storage.data();
}

}  // namespace stmpi::mpi::rma
