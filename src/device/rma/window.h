// The device's window: made from a window's memory and group, it holds how
// this process reaches every member (one Region for its window memory, one
// for its control block: lock word, accumulate lock, PSCW signals, queue
// nodes), the node segment, the passive locks, and the synchronization that
// fence and PSCW use. It picks each region's kind (region.h): the MPI layer
// (src/mpi/rma) never names a transport.
//
// Region kinds chosen here, per target:
//   kMapped  window memory in the node segment (allocate flavors), control
//            blocks, this process's own memory;
//   kCma     another local process's private memory, when single copy works;
//   kAm      the same when it does not (STMPI_RMA_SINGLE_COPY=no, ptrace rules);
//   kNet     a member on another node: memory the network module registered
//            (netmod/net_api.h: the owner's key blob, any size, exchanged
//            at creation and imported by each origin into Region::key);
//            dynamic windows reach such members' attached memory by active
//            messages (kAm), which need no registration per attach, and a
//            module without RMA reaches every such member that way.
//
// A window spanning nodes has one segment per node (created by the node's
// first member; ranks of other nodes have no memory in it), fences through
// a dissemination barrier of remote signals, and refuses
// MPI_Win_allocate_shared (MPI_ERR_RMA_SHARED).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "device/rma/lock/passive_lock.h"
#include "device/rma/region.h"
#include "device/rma/window_segment.h"

namespace stmpi::dev::rma {

// The collective steps window creation needs over the window's group. The
// MPI layer implements them with its collectives over the window's
// communicator (a cold path: a virtual call per step is fine).
class GroupExchange {
 public:
  virtual ~GroupExchange() = default;
  // Every member's `bytes` bytes at `mine`, in group order, into `all`.
  [[nodiscard]] virtual int allgather(const void* mine, std::size_t bytes, void* all) = 0;
  // The smallest of the members' values.
  [[nodiscard]] virtual int allreduce_min(int value, int* result) = 0;
};

enum class WindowMemory : uint8_t {
  kUser,      // MPI_Win_create: the caller's memory
  kAllocate,  // MPI_Win_allocate: placed in the node segment
  kShared,    // MPI_Win_allocate_shared: the node segment, contiguous unless noncontig
  kDynamic,   // MPI_Win_create_dynamic: attached regions
};

struct WindowSpec {
  WindowMemory memory = WindowMemory::kUser;
  int rank = 0;                  // this process in the group
  std::vector<int> world_ranks;  // the group, in order
  void* base = nullptr;          // kUser
  uint64_t size = 0;
  int disp_unit = 1;
  bool noncontig = false;   // kShared: alloc_shared_noncontig
  int attach_slots = 0;     // kDynamic
  bool single_copy = true;  // private memory of local peers by CMA (else active messages)
  // Test mode: other members' control blocks (lock words, PSCW signals)
  // through the active-message 64-bit atomics, as regions without native
  // remote atomics are reached.
  bool am_atomics = false;
  int local_error = 0;  // this process's argument error (MPI error code), 0 if none
};

// What members tell each other about their registered memory (window.cc).
struct NetInfo;

// One member as this process reaches it.
struct WindowTarget {
  Region memory;   // its window memory (dynamic windows: per attached region)
  Region control;  // its control block
  uint64_t size = 0;
  int disp_unit = 1;
  int world_rank = 0;
  char* shared_base = nullptr;  // its memory mapped here (allocate flavors), else nullptr
};

class Window {
 public:
  Window() = default;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // Collective over the group: exchanges sizes, addresses and keys, maps
  // the segment, picks every region's kind. Fails on every member if it
  // fails on one (a member's argument error is reported as such).
  [[nodiscard]] int create(const WindowSpec& spec, GroupExchange& group);
  // Collective: waits until every member is done with the window, then
  // releases what create() set up.
  void free();

  uint64_t id() const { return id_; }  // the same on every member
  // Whether some member is on another node (the network module reaches it).
  bool spans_nodes() const { return spans_nodes_; }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  const WindowTarget& target(int r) const { return targets_[r]; }
  // This process's window memory (the segment for allocate flavors).
  void* base() const { return base_; }
  lock::PassiveLocks& locks() { return locks_; }
  const lock::PassiveLocks& locks() const { return locks_; }
  const WindowLayout& layout() const { return layout_; }
  char* segment_base() const { return segment_.base(); }
  std::size_t segment_bytes() const { return segment_.bytes(); }
  char* control_of(int r) const { return segment_.base() + layout_.control(r); }
  char* my_control() const { return control_of(rank_); }

  // Synchronization for fence and PSCW. barrier(): every member arrives.
  // signal(): adds 1 to the word at `offset` of `peer`'s control block
  // (through its control region's kind); signal_count(): the value of this
  // process's own word at `offset`.
  // signal_after(): the same, once every operation this process issued to
  // `peer` is complete there (MPI_Win_complete's signal): on a network
  // module that orders it, one message that needs no answer; else a flush
  // of what went to `peer`, then signal(). An error code.
  void barrier();
  void signal(int peer, std::size_t offset);
  [[nodiscard]] int signal_after(int peer, std::size_t offset);
  // MPI_Win_unlock: releases this process's lock on `peer` once the
  // epoch's operations there are complete (a fence where the network module
  // orders operations: the release's first remote operation then lands
  // after them; else a flush). An error code.
  [[nodiscard]] int release_lock(int peer, lock::LockType type);
  uint64_t signal_count(std::size_t offset) const;

  // Dynamic windows: this process's attached regions, published for the
  // others; find_attached() looks one up in `target`'s table.
  void publish_attached(std::span<const AttachedRegion> regions);
  bool find_attached(int target, uint64_t low, uint64_t high, AttachedRegion* found) const;
  // The attached memory that holds [low, high) in `table` (reordered): one
  // region, or regions that follow each other without a gap, as one.
  static bool cover(std::vector<AttachedRegion>& table, uint64_t low, uint64_t high,
                    AttachedRegion* found);

 private:
  int map_segment(GroupExchange& group, uint64_t segment_id, int leader);
  int register_net(const WindowSpec& spec, void* memory, GroupExchange& group,
                   const std::vector<int64_t>& nodes, std::vector<NetInfo>* all);
  void dissemination_barrier();

  uint64_t id_ = 0;
  int rank_ = 0;
  int nranks_ = 0;
  void* base_ = nullptr;
  bool registered_ = false;
  bool spans_nodes_ = false;
  uint64_t fences_ = 0;             // dissemination barriers so far
  std::vector<void*> net_handles_;  // network registrations (netmod::deregister_memory)
  std::vector<std::pair<int, uint64_t>> net_keys_;  // imported (target, key): release_key
  SharedSegment segment_;
  WindowLayout layout_;
  std::vector<WindowTarget> targets_;
  lock::PassiveLocks locks_;
};

}  // namespace stmpi::dev::rma
