#include "stream/registry.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include <mpi.h>

#include "stream/backend.h"
#include "stream/gpu_stream.h"
#include "util/error.h"
#include "util/pvar.h"

namespace stmpi::stream {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<const void*, std::shared_ptr<HostStream>> host;
  // One wrapper per GPU stream handle ever seen; a handle the user destroys
  // and the runtime reuses gets the same (stateless) wrapper.
  std::unordered_map<const void*, std::shared_ptr<GpuStream>> gpu;
  HostStreamCounters freed;  // of host streams already freed
};

// Bumped (under the mutex) whenever a host stream is registered or freed:
// a thread's cached lookup is valid while the generation it saw is current.
std::atomic<uint64_t> g_generation{1};

// The last host stream this thread looked up: every MPIX_*_stream call and
// every launch resolves its stream argument, and a program uses one or two
// streams, so most lookups take no lock.
struct LookupCache {
  const void* handle = nullptr;
  uint64_t generation = 0;
  std::shared_ptr<HostStream> stream;
};
thread_local LookupCache tl_lookup;

// Never destroyed: streams may be used until the process exits.
Registry& registry() {
  static Registry* const instance = new Registry;
  return *instance;
}

void add(HostStreamCounters& total, const HostStreamCounters& more) {
  total.enqueued += more.enqueued;
  total.executor_ops += more.executor_ops;
  total.caller_ops += more.caller_ops;
  total.inline_ops += more.inline_ops;
  total.inline_waits += more.inline_waits;
  total.handoffs += more.handoffs;
  total.takeovers += more.takeovers;
  total.wakeups += more.wakeups;
  total.sync_waits += more.sync_waits;
}

// The counters of every host stream of the process, freed ones included.
HostStreamCounters totals() {
  Registry& reg = registry();
  std::lock_guard lock(reg.mutex);
  HostStreamCounters total = reg.freed;
  for (const auto& [handle, stream] : reg.host) add(total, stream->executor().counters());
  return total;
}

// Performance variables (util/pvar.h): host-stream statistics.
const util::Pvar kPvars[] = {
    {"host_streams", util::Pvar::Class::kLevel, [] { return uint64_t{host_stream_count()}; },
     "live host streams (MPIX_Host_stream_create, not yet freed)"},
    {"host_enqueued", util::Pvar::Class::kCounter, [] { return totals().enqueued; },
     "operations queued on host streams (those done at once on an idle stream excluded)"},
    {"host_executor_ops", util::Pvar::Class::kCounter, [] { return totals().executor_ops; },
     "host-stream operations run by the streams' own threads"},
    {"host_caller_ops", util::Pvar::Class::kCounter, [] { return totals().caller_ops; },
     "host-stream operations run by a thread in a synchronize call"},
    {"host_inline_ops", util::Pvar::Class::kCounter, [] { return totals().inline_ops; },
     "host-stream operations done at enqueue on an idle stream, never queued"},
    {"host_handoffs", util::Pvar::Class::kCounter, [] { return totals().handoffs; },
     "times a host stream's thread took the token to run queued work"},
    {"host_takeovers", util::Pvar::Class::kCounter, [] { return totals().takeovers; },
     "times a synchronizing thread took queued work over from a stream's thread"},
    {"host_wakeups", util::Pvar::Class::kCounter, [] { return totals().wakeups; },
     "wakes of a sleeping host-stream thread"},
    {"host_sync_waits", util::Pvar::Class::kCounter, [] { return totals().sync_waits; },
     "synchronize calls that had to wait at all"},
};
const util::PvarTable kPvarTable{"stream", kPvars};
const util::PvarRegistration kPvarRegistration{&kPvarTable};

}  // namespace

int create_host_stream(std::shared_ptr<HostStream>* out) {
  std::shared_ptr<HostStream> stream;
  if (int err = HostStream::create(&stream); err != MPI_SUCCESS) return err;
  Registry& reg = registry();
  std::lock_guard lock(reg.mutex);
  reg.host.emplace(stream->handle(), stream);
  g_generation.fetch_add(1, std::memory_order_release);
  *out = std::move(stream);
  return MPI_SUCCESS;
}

HostStream* find_host_stream_borrowed(const void* handle) {
  const uint64_t generation = g_generation.load(std::memory_order_acquire);
  LookupCache& cache = tl_lookup;
  if (cache.handle == handle && cache.generation == generation && handle != nullptr)
    return cache.stream.get();
  Registry& reg = registry();
  std::lock_guard lock(reg.mutex);
  const auto it = reg.host.find(handle);
  if (it == reg.host.end()) return nullptr;
  cache = {handle, g_generation.load(std::memory_order_relaxed), it->second};
  return cache.stream.get();
}

std::shared_ptr<HostStream> find_host_stream(const void* handle) {
  HostStream* host = find_host_stream_borrowed(handle);
  if (host == nullptr) return nullptr;
  return tl_lookup.stream;
}

int free_host_stream(const void* handle) {
  Registry& reg = registry();
  std::shared_ptr<HostStream> stream;
  {
    std::lock_guard lock(reg.mutex);
    const auto it = reg.host.find(handle);
    if (it == reg.host.end())
      return util::make_error(
          MPI_ERR_ARG, "stream=%p is not a live MPIX_Host_stream (never created, or already freed)",
          handle);
    if (it->second->executor().on_executor_thread())
      return util::make_error(MPI_ERR_OTHER, "host stream %p freed from an operation running on it",
                              handle);
    stream = std::move(it->second);
    reg.host.erase(it);
    g_generation.fetch_add(1, std::memory_order_release);
  }
  // This thread's cache must not keep the freed stream alive.
  if (tl_lookup.handle == handle) tl_lookup = {};
  // Work enqueued before this point runs; the object itself lives on while
  // a concurrent call still holds it (its enqueues then fail).
  stream->shut_down();
  std::lock_guard lock(reg.mutex);
  add(reg.freed, stream->executor().counters());
  return MPI_SUCCESS;
}

int resolve_borrowed(void* handle, Stream** out) {
  if (HostStream* host = find_host_stream_borrowed(handle)) {
    *out = host;
    return MPI_SUCCESS;
  }
  BackendKind kind;
  GpuRuntime* gpu;
  if (int err = active_backend(&kind, &gpu); err != MPI_SUCCESS) return err;
  if (gpu != nullptr && gpu->is_stream(handle)) {
    Registry& reg = registry();
    std::lock_guard lock(reg.mutex);
    std::shared_ptr<GpuStream>& wrapper = reg.gpu[handle];
    if (wrapper == nullptr) wrapper = std::make_shared<GpuStream>(*gpu, handle);
    *out = wrapper.get();  // never erased: lives as long as the process
    return MPI_SUCCESS;
  }
  if (handle == nullptr)
    return util::make_error(MPI_ERR_ARG,
                            "stream=NULL is not a stream this library can use (backend: %s)",
                            backend_name(kind));
  return util::make_error(MPI_ERR_ARG,
                          "stream=%p is not a stream this library can use (backend: %s)", handle,
                          backend_name(kind));
}

int resolve(void* handle, std::shared_ptr<Stream>* out) {
  Stream* stream = nullptr;
  if (int err = resolve_borrowed(handle, &stream); err != MPI_SUCCESS) return err;
  *out = stream->shared_from_this();
  return MPI_SUCCESS;
}

std::size_t host_stream_count() {
  Registry& reg = registry();
  std::lock_guard lock(reg.mutex);
  return reg.host.size();
}

}  // namespace stmpi::stream
