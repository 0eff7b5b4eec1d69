// The device window (window.h): creation (one exchange of sizes and
// addresses, the node segment, the regions), synchronization words and the
// attached-region tables of dynamic windows.
#include "device/rma/window.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>

#include <mpi.h>

#include "device/device.h"
#include "device/rma/am_rma.h"
#include "device/rma/cma_rma.h"
#include "device/rma/rma.h"
#include "device/rma/spin_wait.h"
#include "util/error.h"
#include "pmi/client.h"

namespace stmpi::dev::rma {

// What every member tells the others when a window is created.
struct Announcement {
  int64_t error = 0;  // this member's MPI error class, 0 if its arguments are good
  int64_t size = 0;
  int64_t disp_unit = 1;
  uint64_t base = 0;   // its memory (windows over user memory)
  uint64_t probe = 0;  // an address in this process that single copy may read
  int64_t pid = 0;
  uint64_t id = 0;     // a window id unique in the job (rank 0's is used)
  int64_t noncontig = 0;
  int64_t node = 0;    // its node (peer table)
};

namespace {

using util::make_error;

uint64_t g_windows_created = 0;
// A word peers read once per window to learn whether single copy is allowed.
uint64_t g_probe_word = 1;

bool memory_in_segment(WindowMemory memory) {
  return memory == WindowMemory::kAllocate || memory == WindowMemory::kShared;
}

}  // namespace

// Maps the window segment on every member. Fails everywhere if it failed
// anywhere.
int Window::map_segment(GroupExchange& group, uint64_t segment_id) {
  const std::string name = "/stmpi-" + pmi::client().kvsname() + "-win" +
                           std::to_string(segment_id >> 32) + "." +
                           std::to_string(segment_id & 0xffffffffu);
  int status = MPI_SUCCESS;
  if (rank_ == 0) status = segment_.create(name, layout_.total_bytes());
  // Rank 0 says whether it created it; the others contribute "yes".
  int created = 0;
  if (int err = group.allreduce_min(rank_ != 0 || status == MPI_SUCCESS, &created)) return err;
  if (!created)
    return rank_ == 0 ? status
                      : make_error(MPI_ERR_NO_MEM, "rank 0 could not create window segment %s",
                                   name.c_str());
  if (rank_ != 0) status = segment_.open(name, layout_.total_bytes());
  int everywhere = 0;
  if (int err = group.allreduce_min(status == MPI_SUCCESS, &everywhere)) return err;
  segment_.unlink();  // every member has mapped it, or gave up
  if (everywhere) return MPI_SUCCESS;
  return status != MPI_SUCCESS
             ? status
             : make_error(MPI_ERR_OTHER, "another process could not map window segment %s",
                          name.c_str());
}

namespace {

// How this process reaches every member's memory and control block.
void build_targets(const WindowSpec& spec, std::span<const Announcement> all,
                   std::span<const uint64_t> controls, uint64_t id, char* segment,
                   const WindowLayout& layout, std::vector<WindowTarget>* targets,
                   lock::PassiveLocks* locks) {
  const int n = static_cast<int>(all.size());
  const bool in_segment = memory_in_segment(spec.memory);
  targets->assign(n, WindowTarget{});
  std::vector<Region> blocks(n);
  std::vector<uint64_t> node_offsets(n);
  for (int r = 0; r < n; ++r) {
    WindowTarget& t = (*targets)[r];
    t.world_rank = spec.world_ranks[r];
    t.size = static_cast<uint64_t>(all[r].size);
    t.disp_unit = static_cast<int>(all[r].disp_unit);
    char* control = segment + layout.control(r);
    auto* acc_lock = reinterpret_cast<std::atomic<uint64_t>*>(control + WindowLayout::kAccumulateLock);
    t.control.kind = RegionKind::kMapped;
    t.control.target = t.world_rank;
    t.control.mapped = control;
    t.control.bytes = layout.block_bytes();
    t.control.acc_lock = acc_lock;
    t.control.am_window = id;
    t.memory = t.control;
    t.memory.bytes = t.size;
    t.control.remote = controls[r];
    if (spec.am_atomics && r != spec.rank) t.control.kind = RegionKind::kAm;
    blocks[r] = t.control;
    node_offsets[r] = layout.queue_node(r);
    if (in_segment) {
      t.shared_base = segment + layout.data(r);
      t.memory.mapped = t.shared_base;
      t.memory.native_atomics = true;
      continue;
    }
    const auto pid = static_cast<pid_t>(all[r].pid);
    t.memory.mapped = r == spec.rank ? reinterpret_cast<char*>(all[r].base) : nullptr;
    t.memory.remote = all[r].base;
    t.memory.pid = pid;
    if (r != spec.rank) {
      t.memory.kind = spec.single_copy && CmaRma::reachable(pid, all[r].probe, 8) ? RegionKind::kCma
                                                                                 : RegionKind::kAm;
    }
  }
  *locks = lock::PassiveLocks(spec.rank, std::move(blocks), std::move(node_offsets),
                              WindowLayout::kLockWord);
}

}  // namespace

int Window::create(const WindowSpec& spec, GroupExchange& group) {
  rank_ = spec.rank;
  nranks_ = static_cast<int>(spec.world_ranks.size());
  Announcement mine;
  mine.error = util::error_class_of(spec.local_error);
  mine.size = static_cast<int64_t>(spec.size);
  mine.disp_unit = spec.disp_unit;
  mine.base = reinterpret_cast<uint64_t>(spec.base);
  mine.probe = reinterpret_cast<uint64_t>(&g_probe_word);
  mine.pid = getpid();
  mine.id = (static_cast<uint64_t>(world_rank()) << 32) | g_windows_created++;
  mine.noncontig = spec.noncontig;
  mine.node = my_node();
  std::vector<Announcement> all(static_cast<std::size_t>(nranks_));
  if (int err = group.allgather(&mine, sizeof mine, all.data())) return err;
  for (int r = 0; r < nranks_; ++r) {
    if (all[r].error == 0) continue;
    if (spec.local_error != MPI_SUCCESS) return spec.local_error;
    return make_error(static_cast<int>(all[r].error),
                      "window creation failed: rank %d of the communicator passed bad arguments", r);
  }
  // Members on other nodes need memory registered with the network module
  // (NetRegistration); no module here provides it yet.
  for (int r = 0; r < nranks_; ++r) {
    if (all[r].node != mine.node)
      return make_error(MPI_ERR_OTHER,
                        "window creation: rank %d of the communicator is on node %lld and this "
                        "process on node %lld; windows across nodes need the network module's RMA",
                        r, static_cast<long long>(all[r].node), static_cast<long long>(mine.node));
  }
  id_ = all[0].id;
  std::vector<uint64_t> data(static_cast<std::size_t>(nranks_), 0);
  if (memory_in_segment(spec.memory))
    for (int r = 0; r < nranks_; ++r) data[r] = static_cast<uint64_t>(all[r].size);
  const bool contiguous = spec.memory == WindowMemory::kShared && all[0].noncontig == 0;
  const int slots = spec.memory == WindowMemory::kDynamic ? spec.attach_slots : 0;
  layout_ = WindowLayout(data, contiguous, slots);
  if (int err = map_segment(group, id_)) return err;
  // Each member's control block at its own address, for regions that reach
  // it by active messages or the network.
  std::vector<uint64_t> controls(static_cast<std::size_t>(nranks_));
  const auto my_control_address = reinterpret_cast<uint64_t>(my_control());
  if (int err = group.allgather(&my_control_address, sizeof my_control_address, controls.data()))
    return err;
  build_targets(spec, all, controls, id_, segment_.base(), layout_, &targets_, &locks_);
  base_ = memory_in_segment(spec.memory) ? static_cast<void*>(targets_[rank_].shared_base)
          : spec.memory == WindowMemory::kDynamic ? nullptr
                                                  : spec.base;
  am_register_window(id_, targets_[rank_].memory.acc_lock);
  registered_ = true;
  // Nobody may reach this process's window before it is registered.
  barrier();
  return MPI_SUCCESS;
}

void Window::free() {
  if (segment_.base() != nullptr) barrier();  // every member is done with it
  if (registered_) am_unregister_window(id_);
  registered_ = false;
  segment_ = SharedSegment{};
  targets_.clear();
}

void Window::barrier() { segment_barrier(segment_.base(), nranks_); }

void Window::signal(int peer, std::size_t offset) {
  (void)fetch_add64(targets_[peer].control, offset, 1);
}

uint64_t Window::signal_count(std::size_t offset) const {
  return segment_word(my_control(), offset).load(std::memory_order_acquire);
}

void Window::publish_attached(std::span<const AttachedRegion> regions) {
  char* control = my_control();
  auto version = segment_word(control, WindowLayout::kAttachVersion);
  version.fetch_add(1, std::memory_order_acq_rel);  // odd: being changed
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const std::size_t at = layout_.attach_entry(static_cast<int>(i));
    segment_word(control, at).store(regions[i].base, std::memory_order_relaxed);
    segment_word(control, at + 8).store(regions[i].bytes, std::memory_order_relaxed);
  }
  segment_word(control, WindowLayout::kAttachCount).store(regions.size(), std::memory_order_relaxed);
  version.fetch_add(1, std::memory_order_acq_rel);  // even: consistent
}

bool Window::find_attached(int target, uint64_t low, uint64_t high, AttachedRegion* found) const {
  char* control = control_of(target);
  auto version = segment_word(control, WindowLayout::kAttachVersion);
  SpinWait wait;
  for (;;) {
    const uint64_t before = version.load(std::memory_order_acquire);
    if (before & 1) {
      wait.pause();
      continue;
    }
    const uint64_t count =
        std::min<uint64_t>(segment_word(control, WindowLayout::kAttachCount).load(std::memory_order_acquire),
                           static_cast<uint64_t>(layout_.attach_slots()));
    bool hit = false;
    for (uint64_t i = 0; i < count && !hit; ++i) {
      const std::size_t at = layout_.attach_entry(static_cast<int>(i));
      const uint64_t base = segment_word(control, at).load(std::memory_order_relaxed);
      const uint64_t bytes = segment_word(control, at + 8).load(std::memory_order_relaxed);
      if (low >= base && high <= base + bytes) {
        *found = {base, bytes};
        hit = true;
      }
    }
    if (version.load(std::memory_order_acquire) == before) return hit;
  }
}

}  // namespace stmpi::dev::rma
