// The device window (window.h): creation (one exchange of sizes and
// addresses, the node segment, the regions), synchronization words and the
// attached-region tables of dynamic windows.
#include "device/rma/window.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include <mpi.h>

#include "device/device.h"
#include "device/netmod/net_api.h"
#include "device/progress.h"
#include "device/rma/am_rma.h"
#include "device/rma/cma_rma.h"
#include "device/rma/rma.h"
#include "pmi/client.h"
#include "util/error.h"

namespace stmpi::dev::rma {

// What every member tells the others when a window is created.
struct Announcement {
  int64_t error = 0;  // this member's MPI error class, 0 if its arguments are good
  int64_t size = 0;
  int64_t disp_unit = 1;
  uint64_t base = 0;   // its memory (windows over user memory)
  uint64_t probe = 0;  // an address in this process that single copy may read
  int64_t pid = 0;
  uint64_t id = 0;  // a window id unique in the job (rank 0's is used)
  int64_t noncontig = 0;
  int64_t node = 0;  // its node (peer table)
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
// anywhere. The node's first member (`leader`) creates it under a random
// name (util::ShmSegment) and tells the others "N<name>", or "E<why it
// failed>" so that every member reports the cause (a /dev/shm too small
// names the size needed and free).
int Window::map_segment(GroupExchange& group, uint64_t segment_id, int leader) {
  const std::string what =
      "win" + std::to_string(segment_id >> 32) + "." + std::to_string(segment_id & 0xffffffffu);
  constexpr std::size_t kAnnouncement = 1024;
  std::vector<char> mine(kAnnouncement, 0);
  std::string error;
  if (rank_ == leader) {
    const bool created =
        segment_.create(pmi::client().kvsname(), what, layout_.total_bytes(), &error);
    std::snprintf(mine.data(), kAnnouncement, "%c%s", created ? 'N' : 'E',
                  created ? segment_.name().c_str() : error.c_str());
  }
  std::vector<char> all(kAnnouncement * static_cast<std::size_t>(nranks_));
  if (int err = group.allgather(mine.data(), kAnnouncement, all.data())) return err;
  const char* announcement = all.data() + kAnnouncement * static_cast<std::size_t>(leader);
  int status = MPI_SUCCESS;
  if (announcement[0] != 'N') {
    status = rank_ == leader ? make_error(MPI_ERR_NO_MEM, "%s", announcement + 1)
                             : make_error(MPI_ERR_NO_MEM, "rank %d of the window: %s", leader,
                                          announcement + 1);
  } else if (rank_ != leader && !segment_.open(announcement + 1, layout_.total_bytes(), &error)) {
    status = make_error(MPI_ERR_NO_MEM, "%s", error.c_str());
  }
  int everywhere = 0;
  if (int err = group.allreduce_min(status == MPI_SUCCESS, &everywhere)) return err;
  segment_.unlink();  // every member has mapped it, or gave up
  if (everywhere) return MPI_SUCCESS;
  return status != MPI_SUCCESS ? status
                               : make_error(MPI_ERR_OTHER,
                                            "another process of the window could not map its "
                                            "node's window segment");
}

// What each member registered with the network module (windows spanning
// nodes; zero otherwise): its control block and its window memory, at the
// owner's addresses, with the keys this process imported from the owner's
// key blobs, and what the module does on them.
struct NetInfo {
  uint64_t control = 0;
  uint64_t control_key = 0;
  uint64_t memory = 0;
  uint64_t memory_key = 0;
  uint64_t rma = 0;             // registered: reached as kNet regions (else kAm)
  uint64_t native_atomics = 0;  // the module's 64-bit atomics work on them
  uint64_t control_blob = 0;    // bytes of the key blobs (the second exchange)
  uint64_t memory_blob = 0;
};

namespace {

// Every member's key blobs (control, then memory), each `slot` bytes.
int exchange_blobs(GroupExchange& group, const netmod::KeyBlob& control,
                   const netmod::KeyBlob& memory, std::size_t slot, std::vector<std::byte>* all,
                   int nranks) {
  std::vector<std::byte> mine(2 * slot);
  std::copy(control.begin(), control.end(), mine.begin());
  std::copy(memory.begin(), memory.end(), mine.begin() + static_cast<std::ptrdiff_t>(slot));
  all->resize(2 * slot * static_cast<std::size_t>(nranks));
  return group.allgather(mine.data(), mine.size(), all->data());
}

}  // namespace

// Registers this member's control block and window memory (members on
// other nodes reach them with the network module's RMA), exchanges the key
// blobs (any size: the largest sets the slot) and imports the blobs of the
// members on other nodes. Collective; fails everywhere if it failed
// anywhere. Without RMA in the module nothing is registered: such members
// are reached by active messages.
int Window::register_net(const WindowSpec& spec, void* memory, GroupExchange& group,
                         const std::vector<int64_t>& nodes, std::vector<NetInfo>* all) {
  NetInfo mine;
  mine.control = reinterpret_cast<uint64_t>(my_control());
  mine.memory = reinterpret_cast<uint64_t>(memory);
  netmod::KeyBlob control_blob, memory_blob;
  int status = MPI_SUCCESS;
  const netmod::Capabilities caps = netmod::capabilities();
  if (spans_nodes_ && caps.rma) {
    void* handle = nullptr;
    status = netmod::register_memory(my_control(), layout_.block_bytes(), &control_blob, &handle);
    if (status == MPI_SUCCESS) net_handles_.push_back(handle);
    if (status == MPI_SUCCESS && spec.memory != WindowMemory::kDynamic && spec.size > 0) {
      status = netmod::register_memory(memory, spec.size, &memory_blob, &handle);
      if (status == MPI_SUCCESS) net_handles_.push_back(handle);
    }
    mine.rma = status == MPI_SUCCESS;
    mine.native_atomics = caps.atomics64;
    mine.control_blob = control_blob.size();
    mine.memory_blob = memory_blob.size();
  }
  all->resize(static_cast<std::size_t>(nranks_));
  if (int err = group.allgather(&mine, sizeof mine, all->data())) return err;
  if (spans_nodes_) {
    std::size_t slot = 0;
    for (const NetInfo& info : *all)
      slot = std::max<std::size_t>({slot, info.control_blob, info.memory_blob});
    std::vector<std::byte> blobs;
    if (int err = exchange_blobs(group, control_blob, memory_blob, slot, &blobs, nranks_))
      return err;
    for (int r = 0; r < nranks_ && status == MPI_SUCCESS; ++r) {
      NetInfo& info = (*all)[r];
      if (nodes[r] == nodes[rank_] || !info.rma || !caps.rma) continue;
      const std::byte* at = blobs.data() + 2 * slot * static_cast<std::size_t>(r);
      const int target = spec.world_ranks[r];
      status = netmod::import_key(target, {at, info.control_blob}, &info.control_key);
      if (status != MPI_SUCCESS) break;
      net_keys_.emplace_back(target, info.control_key);
      if (info.memory_blob == 0) continue;
      status = netmod::import_key(target, {at + slot, info.memory_blob}, &info.memory_key);
      if (status == MPI_SUCCESS) net_keys_.emplace_back(target, info.memory_key);
    }
  }
  int everywhere = 0;
  if (int err = group.allreduce_min(status == MPI_SUCCESS, &everywhere)) return err;
  if (everywhere) return MPI_SUCCESS;
  return status != MPI_SUCCESS ? status
                               : make_error(MPI_ERR_OTHER,
                                            "window creation: another process "
                                            "could not register its window memory "
                                            "with the network module");
}

namespace {

// How this process reaches every member's memory and control block.
void build_targets(const WindowSpec& spec, std::span<const Announcement> all,
                   std::span<const NetInfo> net, uint64_t id, char* segment,
                   const WindowLayout& layout, std::vector<WindowTarget>* targets,
                   lock::PassiveLocks* locks) {
  const int n = static_cast<int>(all.size());
  const bool in_segment = memory_in_segment(spec.memory);
  const int64_t my_node = all[spec.rank].node;
  targets->assign(n, WindowTarget{});
  std::vector<Region> blocks(n);
  std::vector<uint64_t> node_offsets(n);
  for (int r = 0; r < n; ++r) {
    WindowTarget& t = (*targets)[r];
    t.world_rank = spec.world_ranks[r];
    t.size = static_cast<uint64_t>(all[r].size);
    t.disp_unit = static_cast<int>(all[r].disp_unit);
    node_offsets[r] = layout.queue_node(r);
    t.control.target = t.world_rank;
    t.control.bytes = layout.block_bytes();
    t.control.am_window = id;
    t.control.remote = net[r].control;
    if (all[r].node != my_node) {
      // Another node: its registered control block and memory (by active
      // messages where the network module has no RMA).
      t.control.kind = spec.am_atomics || !net[r].rma ? RegionKind::kAm : RegionKind::kNet;
      t.control.key = net[r].control_key;
      t.control.native_atomics = net[r].native_atomics != 0;
      t.memory = t.control;
      t.memory.native_atomics = in_segment && net[r].native_atomics != 0;
      t.memory.bytes = t.size;
      t.memory.remote = net[r].memory;
      t.memory.key = net[r].memory_key;
      t.memory.control_remote = net[r].control;
      t.memory.control_key = net[r].control_key;
      if (spec.memory == WindowMemory::kDynamic) t.memory.kind = RegionKind::kAm;
      blocks[r] = t.control;
      continue;
    }
    char* control = segment + layout.control(r);
    auto* acc_lock =
        reinterpret_cast<std::atomic<uint64_t>*>(control + WindowLayout::kAccumulateLock);
    t.control.kind = RegionKind::kMapped;
    t.control.mapped = control;
    t.control.acc_lock = acc_lock;
    t.memory = t.control;
    t.memory.bytes = t.size;
    if (spec.am_atomics && r != spec.rank) t.control.kind = RegionKind::kAm;
    blocks[r] = t.control;
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
                      "window creation failed: rank %d of the communicator passed bad arguments",
                      r);
  }
  for (int r = 0; r < nranks_; ++r) spans_nodes_ = spans_nodes_ || all[r].node != mine.node;
  if (spans_nodes_ && spec.memory == WindowMemory::kShared)
    return make_error(MPI_ERR_RMA_SHARED,
                      "MPI_Win_allocate_shared: the communicator spans more than one node (rank "
                      "%d is on node %lld, rank %d on node %lld); memory can be shared only within "
                      "a node (split the communicator with MPI_COMM_TYPE_SHARED)",
                      0, static_cast<long long>(all[0].node), nranks_ - 1,
                      static_cast<long long>(all[nranks_ - 1].node));
  id_ = all[0].id;
  // This node's segment holds the control blocks of every member and the
  // window memory of this node's members (allocate flavors).
  int leader = rank_;
  std::vector<uint64_t> data(static_cast<std::size_t>(nranks_), 0);
  for (int r = 0; r < nranks_; ++r) {
    if (all[r].node != mine.node) continue;
    leader = std::min(leader, r);
    if (memory_in_segment(spec.memory)) data[r] = static_cast<uint64_t>(all[r].size);
  }
  const bool contiguous = spec.memory == WindowMemory::kShared && all[0].noncontig == 0;
  const int slots = spec.memory == WindowMemory::kDynamic ? spec.attach_slots : 0;
  layout_ = WindowLayout(data, contiguous, slots);
  if (int err = map_segment(group, id_, leader)) return err;
  void* memory = memory_in_segment(spec.memory)          ? segment_.base() + layout_.data(rank_)
                 : spec.memory == WindowMemory::kDynamic ? nullptr
                                                         : spec.base;
  // Each member's control block and memory at its own address (regions
  // that reach it by active messages or the network), with the keys.
  std::vector<NetInfo> net;
  std::vector<int64_t> nodes(static_cast<std::size_t>(nranks_));
  for (int r = 0; r < nranks_; ++r) nodes[r] = all[r].node;
  if (int err = register_net(spec, memory, group, nodes, &net)) return err;
  build_targets(spec, all, net, id_, segment_.base(), layout_, &targets_, &locks_);
  base_ = memory;
  am_register_window(id_, targets_[rank_].memory.acc_lock, memory_in_segment(spec.memory));
  registered_ = true;
  // Nobody may reach this process's window before it is registered.
  barrier();
  return MPI_SUCCESS;
}

void Window::free() {
  if (segment_.base() != nullptr) barrier();  // every member is done with it
  if (registered_) am_unregister_window(id_);
  registered_ = false;
  for (const auto& [target, key] : net_keys_) netmod::release_key(target, key);
  net_keys_.clear();
  for (void* handle : net_handles_) netmod::deregister_memory(handle);
  net_handles_.clear();
  segment_ = SharedSegment{};
  targets_.clear();
}

void Window::barrier() {
  if (spans_nodes_) dissemination_barrier();
  else segment_barrier(segment_.base(), nranks_);
}

// Round k: add 1 to fence[k] of the member 2^k ranks after this one, then
// wait until this member's fence[k] has counted this fence. Each member
// signals a given member once per fence in a given round, in order, so the
// counts need no reset. Members on other nodes are signalled with the
// network module's atomics (or active messages), members of this node with
// CPU atomics: the signal's region kind decides.
void Window::dissemination_barrier() {
  ++fences_;
  for (int k = 0, step = 1; step < nranks_; ++k, step *= 2) {
    signal((rank_ + step) % nranks_, layout_.fence_round(k));
    const std::size_t word = layout_.fence_round(k);
    wait_until([&] { return signal_count(word) >= fences_; });
  }
}

void Window::signal(int peer, std::size_t offset) {
  (void)fetch_add64(targets_[peer].control, offset, 1);
}

// Whether this process's operations to `t` all go through the network
// module (memory and control block), where the module may order them.
// Active messages to `t` (a fallback an accumulate may have taken) are not
// ordered with the module's operations: callers complete those first.
static bool network_only(const WindowTarget& t) {
  return t.control.kind == RegionKind::kNet && t.control.native_atomics &&
         t.memory.kind == RegionKind::kNet;
}

int Window::signal_after(int peer, std::size_t offset) {
  const WindowTarget& t = targets_[peer];
  if (network_only(t)) {
    if (int err = AmRma::flush(t.world_rank)) return err;
    return netmod::add64_after(t.control, offset, 1);
  }
  if (int err = flush(t.world_rank)) return err;
  signal(peer, offset);
  return MPI_SUCCESS;
}

int Window::release_lock(int peer, lock::LockType type) {
  const WindowTarget& t = targets_[peer];
  bool fenced = false;
  if (network_only(t)) {
    if (int err = AmRma::flush(t.world_rank)) return err;
    if (int err = netmod::order_after(t.world_rank, &fenced)) return err;
  } else if (int err = flush(t.world_rank)) {
    return err;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  locks_.release(peer, type, fenced ? lock::Completion::kOrdered : lock::Completion::kComplete);
  return MPI_SUCCESS;
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
  segment_word(control, WindowLayout::kAttachCount)
      .store(regions.size(), std::memory_order_relaxed);
  version.fetch_add(1, std::memory_order_acq_rel);  // even: consistent
}

bool Window::find_attached(int target, uint64_t low, uint64_t high, AttachedRegion* found) const {
  // The target's table, read in place on this node and with remote 64-bit
  // loads (network or active messages) from another node.
  const Region& control = targets_[target].control;
  char* mapped = control.kind == RegionKind::kMapped ? control.mapped : nullptr;
  auto word = [&](std::size_t offset, std::memory_order order) {
    return mapped != nullptr ? segment_word(mapped, offset).load(order) : load64(control, offset);
  };
  ProgressWait wait;
  for (;;) {
    const uint64_t before = word(WindowLayout::kAttachVersion, std::memory_order_acquire);
    if (before & 1) {
      wait.pause();
      continue;
    }
    const uint64_t count =
        std::min<uint64_t>(word(WindowLayout::kAttachCount, std::memory_order_acquire),
                           static_cast<uint64_t>(layout_.attach_slots()));
    auto entry = [&](uint64_t i) {
      const std::size_t at = layout_.attach_entry(static_cast<int>(i));
      return AttachedRegion{word(at, std::memory_order_relaxed),
                            word(at + 8, std::memory_order_relaxed)};
    };
    // Most accesses lie in one region: stop at it, without allocating.
    // Otherwise the whole table is needed to join adjacent regions.
    bool hit = false;
    for (uint64_t i = 0; i < count && !hit; ++i) {
      const AttachedRegion r = entry(i);
      if (low >= r.base && high <= r.base + r.bytes) *found = r, hit = true;
    }
    if (!hit) {
      std::vector<AttachedRegion> table(count);
      for (uint64_t i = 0; i < count; ++i) table[i] = entry(i);
      hit = cover(table, low, high, found);
    }
    if (word(WindowLayout::kAttachVersion, std::memory_order_acquire) == before) return hit;
  }
}

bool Window::cover(std::vector<AttachedRegion>& table, uint64_t low, uint64_t high,
                   AttachedRegion* found) {
  // One region that holds [low, high), or a run of regions that follow each
  // other without a gap (memory attached in pieces, e.g. two halves of one
  // array): every path reaches attached memory by the target's virtual
  // addresses (mapped, CMA or active messages), so the run acts as one.
  std::sort(table.begin(), table.end(),
            [](const AttachedRegion& a, const AttachedRegion& b) { return a.base < b.base; });
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (low < table[i].base || low >= table[i].base + table[i].bytes) continue;
    uint64_t end = table[i].base + table[i].bytes;
    for (std::size_t j = i + 1; j < table.size() && end < high && table[j].base == end; ++j)
      end += table[j].bytes;
    if (high > end) return false;
    *found = {table[i].base, end - table[i].base};
    return true;
  }
  return false;
}

}  // namespace stmpi::dev::rma
