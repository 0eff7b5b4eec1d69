#include "mpi/datatype/datatype.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "mpi/comm/keyval.h"

namespace stmpi::mpi {
namespace {

std::mutex g_table_mutex;  // serializes add/remove; lookups rely on the caller's lock

// Copies `n` runs of `len` bytes between a strided user buffer and a packed
// one. Small power-of-two lengths get a copy of constant size, which the
// compiler turns into a single load and store.
template <bool kPack, MPI_Aint kLen>
void copy_fixed(char* user, MPI_Aint stride, MPI_Count n, char* packed) {
  for (MPI_Count k = 0; k < n; ++k, user += stride, packed += kLen) {
    if constexpr (kPack) std::memcpy(packed, user, kLen);
    else std::memcpy(user, packed, kLen);
  }
}

template <bool kPack>
void copy_runs(char* user, MPI_Aint len, MPI_Aint stride, MPI_Count n, char* packed) {
  switch (len) {
    case 1: return copy_fixed<kPack, 1>(user, stride, n, packed);
    case 2: return copy_fixed<kPack, 2>(user, stride, n, packed);
    case 4: return copy_fixed<kPack, 4>(user, stride, n, packed);
    case 8: return copy_fixed<kPack, 8>(user, stride, n, packed);
    case 16: return copy_fixed<kPack, 16>(user, stride, n, packed);
    default: break;
  }
  for (MPI_Count k = 0; k < n; ++k, user += stride, packed += len) {
    if constexpr (kPack) std::memcpy(packed, user, len);
    else std::memcpy(user, packed, len);
  }
}

// Moves bytes [offset, offset + bytes) of the packed form of `count`
// instances between `user` (the typed buffer) and `packed`.
template <bool kPack>
void copy_range(const Datatype& type, char* user, MPI_Count count, MPI_Count offset,
                MPI_Count bytes, char* packed) {
  if (type.size <= 0 || count <= 0) return;
  bytes = std::min(bytes, count * type.size - offset);
  if (bytes <= 0) return;
  if (type.contiguous) {
    char* first = user + type.true_lb + offset;
    if constexpr (kPack) std::memcpy(packed, first, bytes);
    else std::memcpy(first, packed, bytes);
    return;
  }
  const std::vector<DataBlock>& blocks = type.layout.blocks;
  if (blocks.size() == 1 && blocks[0].count == 1 && offset == 0 && bytes == count * type.size) {
    // One run per instance (pair types, resized types): runs one extent apart.
    copy_runs<kPack>(user + blocks[0].disp, blocks[0].len, type.extent, count, packed);
    return;
  }
  MPI_Count instance = offset / type.size;
  MPI_Count skip = offset % type.size;  // bytes of this instance already done
  for (; instance < count; ++instance) {
    char* base = user + instance * type.extent;
    for (const DataBlock& block : type.layout.blocks) {
      const MPI_Count block_bytes = block.len * block.count;
      if (skip >= block_bytes) {
        skip -= block_bytes;
        continue;
      }
      MPI_Count run = skip / block.len;
      MPI_Aint run_offset = skip % block.len;
      skip = 0;
      if (run_offset != 0) {
        // Finish a run that an earlier call started.
        const MPI_Aint n = std::min<MPI_Count>(block.len - run_offset, bytes);
        char* at = base + block.disp + run * block.stride + run_offset;
        if constexpr (kPack) std::memcpy(packed, at, n);
        else std::memcpy(at, packed, n);
        packed += n;
        bytes -= n;
        ++run;
        if (bytes == 0) return;
      }
      const MPI_Count whole = std::min(block.count - run, bytes / block.len);
      copy_runs<kPack>(base + block.disp + run * block.stride, block.len, block.stride, whole,
                       packed);
      packed += whole * block.len;
      bytes -= whole * block.len;
      run += whole;
      if (run < block.count && bytes > 0) {
        // The range ends inside this run.
        char* at = base + block.disp + run * block.stride;
        if constexpr (kPack) std::memcpy(packed, at, bytes);
        else std::memcpy(at, packed, bytes);
        bytes = 0;
      }
      if (bytes == 0) return;
    }
  }
}

}  // namespace

void Datatype::pack(const void* src, MPI_Count count, void* dst) const {
  copy_range<true>(*this, const_cast<char*>(static_cast<const char*>(src)), count, 0, count * size,
                   static_cast<char*>(dst));
}

void Datatype::unpack(const void* src, MPI_Count bytes, MPI_Count count, void* dst) const {
  copy_range<false>(*this, static_cast<char*>(dst), count, 0, bytes,
                    const_cast<char*>(static_cast<const char*>(src)));
}

void Datatype::pack_range(const void* src, MPI_Count count, MPI_Count offset, MPI_Count bytes,
                          void* dst) const {
  copy_range<true>(*this, const_cast<char*>(static_cast<const char*>(src)), count, offset, bytes,
                   static_cast<char*>(dst));
}

void Datatype::unpack_range(const void* src, MPI_Count offset, MPI_Count bytes, MPI_Count count,
                            void* dst) const {
  copy_range<false>(*this, static_cast<char*>(dst), count, offset, bytes,
                    const_cast<char*>(static_cast<const char*>(src)));
}

MPI_Count Datatype::elements(MPI_Count bytes) const {
  if (bytes <= 0 || size <= 0) return 0;
  MPI_Count result = bytes / size * layout.element_count;
  MPI_Count rest = bytes % size;
  for (const ElementGroup& group : layout.signature) {
    if (rest == 0) break;
    MPI_Count group_bytes = 0, group_elements = 0;
    for (const ElementRun& run : group.runs) {
      group_bytes += run.size * run.count;
      group_elements += run.count;
    }
    const MPI_Count repeats = std::min(rest / group_bytes, group.repeat);
    result += repeats * group_elements;
    rest -= repeats * group_bytes;
    if (repeats == group.repeat) continue;
    for (const ElementRun& run : group.runs) {
      if (rest >= run.size * run.count) {
        result += run.count;
        rest -= run.size * run.count;
        continue;
      }
      return rest % run.size != 0 ? MPI_UNDEFINED : result + rest / run.size;
    }
  }
  return result;
}

constinit HandleTable<Datatype, ObjectKind::kDatatype> g_datatype_table;

int datatype_register(Datatype* type) {
  std::lock_guard lock(g_table_mutex);
  type->handle = datatype_table().add(type);
  return type->handle;
}

void datatype_retain(Datatype* type) {
  if (type == nullptr || type->predefined) return;
  type->refs.fetch_add(1, std::memory_order_relaxed);
}

void datatype_release(Datatype* type) {
  if (type == nullptr || type->predefined) return;
  if (type->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  {
    std::lock_guard lock(g_table_mutex);
    datatype_table().remove(type->handle);
  }
  for (Datatype* component : type->contents.types) datatype_release(component);
  // Attributes left by internal copies (the user's MPI_Type_free deletes its own first).
  type->attributes.release_all();
  delete type;
}

const char* datatype_name(int handle) {
  if (handle == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  const Datatype* type = datatype_get(handle);
  if (type == nullptr) return "invalid datatype";
  if (!type->name.empty()) return type->name.c_str();
  return "derived datatype";
}

}  // namespace stmpi::mpi
