// Flattened types (FlatType): the byte runs of one instance of a datatype
// as it lies in a file, computed once per (type, representation) and kept on
// the datatype object (Datatype::io_cache), so every view and file using the
// type shares them and they go when the type is freed.
//
// In "native" and "internal", and in any representation whose basic types
// take as many bytes in the file as in memory, the runs are the type's data
// blocks. Otherwise (external32's MPI_LONG is 4 bytes, a user representation
// may widen a type) the type map is rebuilt from how the type was made
// (its contents), each basic type taking its size in the representation:
// displacements counted in elements of an old type scale with that type's
// file extent, displacements in bytes stay. The file form is packed (no
// alignment padding), as external32 itself is; the data of one instance in
// the file is its elements in type order, which is exactly what external32
// packing or the program's conversion function produces for it.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <mpi.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/io/file.h"
#include "mpi/io/internal.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

std::atomic<uint64_t> g_flattens{0};
std::atomic<uint64_t> g_hits{0};

// What is kept on a datatype: its flattened forms, one per representation
// (nullptr: native, or one whose sizes equal memory's).
struct TypeCache {
  struct Entry {
    const Datarep* rep;
    unsigned generation;
    std::shared_ptr<const FlatType> flat;
  };
  std::vector<Entry> entries;
};

// Guards every type's cache (a view is set far less often than data moves).
std::mutex g_cache_mutex;

// One instance of a type in the file: runs in type order, bounds, and
// whether some basic type's size differs from memory's.
struct FileMap {
  std::vector<Run> runs;
  MPI_Count size = 0;
  MPI_Aint lb = 0, ub = 0;
  bool bounded = false;  // lb/ub set by some entry
  bool changed = false;

  void push(MPI_Offset at, MPI_Count len) {
    if (len == 0) return;
    if (!runs.empty() && runs.back().offset + runs.back().length == at) runs.back().length += len;
    else runs.push_back({at, len});
    size += len;
  }
  void bound(MPI_Aint lo, MPI_Aint hi) {
    lb = bounded ? std::min(lb, lo) : lo;
    ub = bounded ? std::max(ub, hi) : hi;
    bounded = true;
  }
  MPI_Aint extent() const { return ub - lb; }
  // `k` copies of `child`, the i-th at disp + i * stride.
  void repeat(const FileMap& child, MPI_Aint disp, MPI_Count k, MPI_Aint stride) {
    changed = changed || child.changed;
    if (k <= 0) return;
    if (!child.bounded) return;
    bound(disp + std::min<MPI_Aint>(child.lb, child.lb + (k - 1) * stride),
          disp + std::max<MPI_Aint>(child.ub, child.ub + (k - 1) * stride));
    const bool dense = child.runs.size() == 1 && child.runs[0].offset == child.lb &&
                       child.runs[0].length == child.extent() && stride == child.extent();
    if (dense) {
      push(disp + child.lb, child.extent() * k);
      return;
    }
    for (MPI_Count i = 0; i < k; ++i)
      for (const Run& r : child.runs) push(disp + i * stride + r.offset, r.length);
  }
};

int file_map(const Datarep& rep, const Datatype& type, FileMap& out);

// The size of one predefined `type` in `rep`.
int basic_size(const Datarep& rep, const Datatype& type, MPI_Count* bytes) {
  if (rep.kind == Datarep::Kind::kExternal32)
    return impl::pack_external_size_c("external32", 1, const_cast<Datatype&>(type), bytes);
  if (rep.kind == Datarep::Kind::kUser) {
    MPI_Aint extent = 0;
    if (int err = rep.extent_fn(type.handle, &extent, rep.extra_state)) return err;
    *bytes = extent;
    return MPI_SUCCESS;
  }
  *bytes = type.size;
  return MPI_SUCCESS;
}

// The integer arguments of a constructor in MPI_Type_get_contents order
// (integers then addresses, or the large counts of an _c constructor).
std::vector<MPI_Count> arguments(const TypeContents& c) {
  if (c.large_counts) return c.counts;
  std::vector<MPI_Count> a(c.ints.begin(), c.ints.end());
  a.insert(a.end(), c.aints.begin(), c.aints.end());
  return a;
}

// C-order subarray of `old` (dims, sizes, subsizes, starts), Fortran order
// turned around by the caller.
void subarray(const FileMap& old, const std::vector<MPI_Count>& sizes,
              const std::vector<MPI_Count>& subsizes, const std::vector<MPI_Count>& starts,
              FileMap& out) {
  const std::size_t n = sizes.size();
  const MPI_Aint e = old.extent();
  std::vector<MPI_Aint> stride(n, e);
  for (std::size_t d = n - 1; d > 0; --d) stride[d - 1] = stride[d] * sizes[d];
  std::vector<MPI_Count> at(n, 0);
  bool empty = false;
  for (MPI_Count s : subsizes) empty = empty || s == 0;
  while (!empty) {
    MPI_Aint disp = 0;
    for (std::size_t d = 0; d + 1 < n; ++d) disp += (starts[d] + at[d]) * stride[d];
    out.repeat(old, disp + starts[n - 1] * e, subsizes[n - 1], e);
    std::size_t d = n - 1;
    while (d > 0 && ++at[d - 1] == subsizes[d - 1]) at[--d] = 0;
    if (d == 0) break;
  }
  MPI_Aint whole = e;
  for (MPI_Count s : sizes) whole *= s;
  out.lb = 0;
  out.ub = whole;
  out.bounded = true;
}

int file_map(const Datarep& rep, const Datatype& type, FileMap& out) {
  if (type.predefined) {
    MPI_Count bytes = 0;
    if (int err = basic_size(rep, type, &bytes)) return err;
    out.push(0, bytes);
    out.bound(0, bytes);
    out.changed = bytes != type.size;
    return MPI_SUCCESS;
  }
  const TypeContents& c = type.contents;
  const std::vector<MPI_Count> a = arguments(c);
  std::vector<FileMap> kids(c.types.size());
  for (std::size_t i = 0; i < c.types.size(); ++i)
    if (int err = file_map(rep, *c.types[i], kids[i])) return err;
  const MPI_Count n = a.empty() ? 0 : a[0];
  auto unit = [&](int combiner) {
    const bool bytes = combiner == MPI_COMBINER_HVECTOR || combiner == MPI_COMBINER_HINDEXED ||
                       combiner == MPI_COMBINER_HINDEXED_BLOCK;
    return bytes ? MPI_Aint{1} : kids[0].extent();
  };
  switch (c.combiner) {
    case MPI_COMBINER_DUP: out = kids[0]; return MPI_SUCCESS;
    case MPI_COMBINER_CONTIGUOUS: out.repeat(kids[0], 0, n, kids[0].extent()); break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
      for (MPI_Count i = 0; i < n; ++i)
        out.repeat(kids[0], i * a[2] * unit(c.combiner), a[1], kids[0].extent());
      break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
      for (MPI_Count i = 0; i < n; ++i)
        out.repeat(kids[0], a[1 + n + i] * unit(c.combiner), a[1 + i], kids[0].extent());
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
      for (MPI_Count i = 0; i < n; ++i)
        out.repeat(kids[0], a[2 + i] * unit(c.combiner), a[1], kids[0].extent());
      break;
    case MPI_COMBINER_STRUCT:
      for (MPI_Count i = 0; i < n; ++i)
        out.repeat(kids[i], a[1 + n + i], a[1 + i], kids[i].extent());
      break;
    case MPI_COMBINER_RESIZED:
      out.repeat(kids[0], 0, 1, 0);
      out.lb = a[0];
      out.ub = a[0] + a[1];
      out.bounded = true;
      break;
    case MPI_COMBINER_SUBARRAY: {
      const auto dims = static_cast<std::size_t>(c.ints[0]);
      const std::vector<MPI_Count>& v = c.large_counts ? c.counts : a;
      const std::size_t base = c.large_counts ? 0 : 1;
      const int order = c.large_counts ? c.ints[1] : c.ints[1 + 3 * dims];
      std::vector<MPI_Count> sizes(v.begin() + base, v.begin() + base + dims);
      std::vector<MPI_Count> subs(v.begin() + base + dims, v.begin() + base + 2 * dims);
      std::vector<MPI_Count> starts(v.begin() + base + 2 * dims, v.begin() + base + 3 * dims);
      if (order == MPI_ORDER_FORTRAN) {
        std::reverse(sizes.begin(), sizes.end());
        std::reverse(subs.begin(), subs.end());
        std::reverse(starts.begin(), starts.end());
      }
      subarray(kids[0], sizes, subs, starts, out);
      break;
    }
    default:
      return make_error(MPI_ERR_UNSUPPORTED_DATAREP,
                        "datarep \"%s\": %s changes size in the file and is built by a "
                        "constructor (combiner %d) whose file layout is not computed",
                        rep.name.c_str(), datatype_name(type.handle), c.combiner);
  }
  for (const FileMap& k : kids) out.changed = out.changed || k.changed;
  return MPI_SUCCESS;
}

std::shared_ptr<const FlatType> from_runs(std::vector<Run> runs, MPI_Count size, MPI_Aint extent) {
  auto flat = std::make_shared<FlatType>();
  flat->size = size;
  flat->extent = extent;
  MPI_Count data = 0;
  for (const Run& r : runs) {
    flat->data_start.push_back(data);
    data += r.length;
  }
  flat->runs = std::move(runs);
  flat->contiguous =
      flat->runs.size() == 1 && flat->runs[0].offset == 0 && flat->runs[0].length == flat->extent;
  return flat;
}

std::shared_ptr<const FlatType> flatten_native(const Datatype& type) {
  std::vector<Run> runs;
  for (const DataBlock& b : type.layout.blocks) {
    for (MPI_Count k = 0; k < b.count; ++k) {
      const MPI_Offset at = b.disp + k * b.stride;
      if (b.len == 0) continue;
      if (!runs.empty() && runs.back().offset + runs.back().length == at)
        runs.back().length += b.len;
      else runs.push_back({at, b.len});
    }
  }
  return from_runs(std::move(runs), type.size, type.extent);
}

int flatten(const Datarep* rep, const Datatype& type, std::shared_ptr<const FlatType>* out) {
  if (rep == nullptr || rep->kind == Datarep::Kind::kNative ||
      rep->kind == Datarep::Kind::kInternal) {
    *out = flatten_native(type);
    return MPI_SUCCESS;
  }
  FileMap map;
  if (int err = file_map(*rep, type, map)) return err;
  *out =
      map.changed ? from_runs(std::move(map.runs), map.size, map.extent()) : flatten_native(type);
  return MPI_SUCCESS;
}

}  // namespace

uint64_t filetype_flattens() { return g_flattens.load(std::memory_order_relaxed); }
uint64_t filetype_cache_hits() { return g_hits.load(std::memory_order_relaxed); }

int flat_type(const Datarep* rep, const Datatype& type, std::shared_ptr<const FlatType>* out) {
  if (rep != nullptr && rep->kind == Datarep::Kind::kInternal) rep = nullptr;
  const unsigned generation = datarep_generation();
  auto& slot = const_cast<Datatype&>(type).io_cache;
  {
    std::lock_guard<std::mutex> guard(g_cache_mutex);
    if (auto* cache = static_cast<TypeCache*>(slot.get()))
      for (const TypeCache::Entry& e : cache->entries)
        if (e.rep == rep && e.generation == generation) {
          *out = e.flat;
          g_hits.fetch_add(1, std::memory_order_relaxed);
          return MPI_SUCCESS;
        }
  }
  std::shared_ptr<const FlatType> flat;
  if (int err = flatten(rep, type, &flat)) return err;
  g_flattens.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> guard(g_cache_mutex);
  if (!slot) slot = std::make_shared<TypeCache>();
  auto& entries = static_cast<TypeCache*>(slot.get())->entries;
  std::erase_if(entries, [&](const TypeCache::Entry& e) { return e.generation != generation; });
  entries.push_back({rep, generation, flat});
  *out = std::move(flat);
  return MPI_SUCCESS;
}

int stream_bytes(const Datarep* rep, const Datatype& type, MPI_Count count, MPI_Count* bytes) {
  if (rep == nullptr) {
    *bytes = count * type.size;
    return MPI_SUCCESS;
  }
  std::shared_ptr<const FlatType> flat;
  if (int err = flat_type(rep, type, &flat)) return err;
  *bytes = count * flat->size;
  return MPI_SUCCESS;
}

MPI_Count memory_bytes(const Datarep* rep, const Datatype& type, MPI_Count file_bytes) {
  if (rep == nullptr) return file_bytes;
  std::shared_ptr<const FlatType> flat;
  if (flat_type(rep, type, &flat) != MPI_SUCCESS || flat->size == 0) return 0;
  return file_bytes / flat->size * type.size;
}

}  // namespace stmpi::mpi::io
