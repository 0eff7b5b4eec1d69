#include "stream/staging.h"

#include <bit>
#include <cstdlib>
#include <map>
#include <mutex>

#include <mpi.h>

#include "stream/gpu_stream.h"
#include "stream/settings.h"
#include "util/error.h"

namespace stmpi::stream {
namespace {

constexpr std::size_t kMinCapacity = 4096;

struct PoolBuffer {
  char* host;
  GpuRuntime* runtime;  // registered with (null: a host stream's, not registered)
};

// Free buffers by capacity (powers of two). Host functions return buffers
// from a GPU runtime's callback thread, so every access takes the mutex;
// nothing here calls the runtime while holding it.
struct Pool {
  std::mutex mutex;
  std::multimap<std::size_t, PoolBuffer> free;
  std::map<char*, GpuRuntime*> owner;  // every buffer allocated and not yet freed
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: host functions may return buffers late
  return *p;
}

std::size_t capacity_for(std::size_t bytes) { return std::bit_ceil(std::max(bytes, kMinCapacity)); }

int take(GpuRuntime* runtime, std::size_t capacity, char** out) {
  Pool& p = pool();
  {
    std::lock_guard lock(p.mutex);
    for (auto it = p.free.find(capacity); it != p.free.end() && it->first == capacity; ++it) {
      if (it->second.runtime != runtime) continue;
      *out = it->second.host;
      p.free.erase(it);
      return MPI_SUCCESS;
    }
  }
  auto* host = static_cast<char*>(std::aligned_alloc(kMinCapacity, capacity));
  if (host == nullptr)
    return util::make_error(MPI_ERR_NO_MEM, "no memory for a %zu-byte staging buffer", capacity);
  if (runtime != nullptr)
    if (int err = runtime->register_host(host, capacity); err != MPI_SUCCESS) {
      std::free(host);
      return err;
    }
  std::lock_guard lock(p.mutex);
  p.owner.emplace(host, runtime);
  *out = host;
  return MPI_SUCCESS;
}

void give_back(char* host, std::size_t capacity) {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  auto it = p.owner.find(host);
  if (it != p.owner.end()) p.free.emplace(capacity, PoolBuffer{host, it->second});
}

void release_op(void* arg) {
  auto* list = static_cast<std::vector<Staged>*>(arg);
  for (Staged& s : *list) release_now(s);
  delete list;
}

}  // namespace

int stage(Stream& stream, void* device, std::size_t bytes, Staged* out) {
  *out = Staged{};
  if (device == nullptr || bytes == 0) return MPI_SUCCESS;
  auto* gpu = dynamic_cast<GpuStream*>(&stream);
  GpuRuntime* runtime = gpu != nullptr ? &gpu->runtime() : nullptr;
  const bool needed = runtime != nullptr
                          ? runtime->is_device_memory(device)
                          : stream.backend() == BackendKind::kHost && settings().stage_host;
  if (!needed) return MPI_SUCCESS;
  const std::size_t capacity = capacity_for(bytes);
  char* host = nullptr;
  if (int err = take(runtime, capacity, &host); err != MPI_SUCCESS) return err;
  *out = Staged{device, host, bytes, capacity};
  return MPI_SUCCESS;
}

int copy_in(Stream& stream, const Staged& staged) {
  if (!staged) return MPI_SUCCESS;
  return stream.copy(staged.host, staged.device, staged.bytes);
}

int copy_out(Stream& stream, const Staged& staged) {
  if (!staged) return MPI_SUCCESS;
  return stream.copy(staged.device, staged.host, staged.bytes);
}

int release_after(Stream& stream, std::vector<Staged> staged) {
  std::erase_if(staged, [](const Staged& s) { return !s; });
  if (staged.empty()) return MPI_SUCCESS;
  auto* list = new std::vector<Staged>(std::move(staged));
  const int err = stream.launch(release_op, list);
  if (err != MPI_SUCCESS) release_op(list);
  return err;
}

void release_now(Staged& staged) {
  if (staged) give_back(staged.host, staged.capacity);
  staged = Staged{};
}

StagingCounts staging_counts() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  return {p.owner.size(), p.free.size()};
}

void free_staging_pool() {
  std::multimap<std::size_t, PoolBuffer> drained;
  {
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    drained.swap(p.free);
    for (const auto& [capacity, buffer] : drained) p.owner.erase(buffer.host);
  }
  for (const auto& [capacity, buffer] : drained) {
    if (buffer.runtime != nullptr) (void)buffer.runtime->unregister_host(buffer.host);
    std::free(buffer.host);
  }
}

}  // namespace stmpi::stream
