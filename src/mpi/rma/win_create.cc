// Window creation and destruction for the four flavors (MPI 4.1 section
// 12.2), MPI_Win_shared_query and MPI_Win_attach/detach.
//
// Creation is collective over the communicator and never leaves a process
// hanging when another one has bad arguments: every process announces its
// arguments (and any error) with one allgather, after which all of them
// agree on success or failure. Then local rank 0 creates the window segment
// (window_segment.h), everyone maps it, and the name is removed.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "binding/gen/impl.h"
#include "device/rma/am_rma.h"
#include "device/rma/cma_rma.h"
#include "device/rma/rma.h"
#include "device/rma/spin_wait.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/keyval.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/info/info.h"
#include "mpi/init/state.h"
#include "mpi/mpix/win_stream.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"
#include "pmi/client.h"

namespace stmpi::mpi::rma {
namespace {

using dev::rma::Region;
using dev::rma::RegionKind;
using dev::rma::WindowLayout;
using errhan::make_error;

// What every process tells the others when a window is created.
struct Announcement {
  int64_t error = 0;  // this process's MPI error class, 0 if its arguments are good
  int64_t size = 0;
  int64_t disp_unit = 1;
  uint64_t base = 0;   // its memory (windows over user memory)
  uint64_t probe = 0;  // an address in this process that single copy may read
  int64_t pid = 0;
  uint64_t id = 0;     // a window id unique in the job (rank 0's is used)
  int64_t noncontig = 0;
};

uint64_t g_windows_created = 0;
// A word peers read once per window to learn whether single copy is allowed.
uint64_t g_probe_word = 1;

struct CreateArgs {
  int flavor = MPI_WIN_FLAVOR_CREATE;
  void* base = nullptr;
  MPI_Aint size = 0;
  MPI_Aint disp_unit = 1;
  MPI_Info info = MPI_INFO_NULL;
};

bool memory_in_segment(int flavor) {
  return flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED;
}

int check_arguments(const CreateArgs& a) {
  if (a.size < 0)
    return make_error(MPI_ERR_SIZE, "size=%ld must be non-negative", static_cast<long>(a.size));
  if (a.disp_unit <= 0 || a.disp_unit > INT_MAX)
    return make_error(MPI_ERR_DISP, "disp_unit=%ld must be positive (and fit an int)",
                      static_cast<long>(a.disp_unit));
  if (a.info != MPI_INFO_NULL && info_get(a.info) == nullptr)
    return make_error(MPI_ERR_INFO, "info=0x%x is not a valid info object",
                      static_cast<unsigned>(a.info));
  if (a.flavor == MPI_WIN_FLAVOR_CREATE && a.base == nullptr && a.size > 0)
    return make_error(MPI_ERR_BASE, "base is NULL but size=%ld", static_cast<long>(a.size));
  return MPI_SUCCESS;
}

int int_min_allreduce(int value, Comm& comm, int* result) {
  Datatype& int_type = *datatype_get(MPI_INT);
  return coll::allreduce(&value, result, 1, int_type, coll::reduction_of(*op_get(MPI_MIN), int_type),
                         comm);
}

// Drops a window: its communicator, error handler and segment mapping.
void discard(Win* win) {
  if (win->comm != nullptr) {
    MPI_Comm handle = win->comm->handle;
    (void)impl::comm_free(&handle);
  }
  if (win->errhandler != nullptr) errhandler_release(win->errhandler);
  delete win;
}

struct Discard {
  void operator()(Win* win) const { discard(win); }
};
// A window under construction; released to the handle table on success.
using WinUnderConstruction = std::unique_ptr<Win, Discard>;

// Maps the window segment on every process. Returns an error everywhere if
// it failed anywhere.
int map_segment(Win& win, const std::vector<Announcement>& all) {
  const uint64_t id = all[0].id;
  const std::string name = "/stmpi-" + pmi::client().kvsname() + "-win" +
                           std::to_string(id >> 32) + "." + std::to_string(id & 0xffffffffu);
  Comm& comm = *win.comm;
  int status = MPI_SUCCESS;
  if (comm.rank == 0) status = win.segment.create(name, win.layout.total_bytes());
  int created = status == MPI_SUCCESS;
  if (int err = coll::bcast(&created, 1, *datatype_get(MPI_INT), 0, comm)) return err;
  if (!created)
    return comm.rank == 0 ? status
                          : make_error(MPI_ERR_NO_MEM, "rank 0 could not create window segment %s",
                                       name.c_str());
  if (comm.rank != 0) status = win.segment.open(name, win.layout.total_bytes());
  int everywhere = 0;
  if (int err = int_min_allreduce(status == MPI_SUCCESS, comm, &everywhere)) return err;
  win.segment.unlink();  // every process has mapped it, or gave up
  if (everywhere) return MPI_SUCCESS;
  return status != MPI_SUCCESS ? status
                               : make_error(MPI_ERR_OTHER, "another process could not map window segment %s",
                                            name.c_str());
}

// The targets as this process reaches them.
void build_targets(Win& win, const std::vector<Announcement>& all) {
  const int n = win.nranks;
  const bool in_segment = memory_in_segment(win.flavor);
  win.targets.resize(n);
  std::vector<Region> blocks(n);
  std::vector<uint64_t> node_offsets(n);
  for (int r = 0; r < n; ++r) {
    WinTarget& t = win.targets[r];
    t.world_rank = win.comm->world_rank(r);
    t.size = all[r].size;
    t.disp_unit = static_cast<int>(all[r].disp_unit);
    char* control = win.control_of(r);
    auto* acc_lock = reinterpret_cast<std::atomic<uint64_t>*>(control + WindowLayout::kAccumulateLock);
    t.control = Region{RegionKind::kMapped, false, t.world_rank, control, 0,
                       win.layout.block_bytes(), 0, acc_lock, win.id};
    blocks[r] = t.control;
    node_offsets[r] = win.layout.queue_node(r);
    if (in_segment) {
      t.shared_base = win.segment.base() + win.layout.data(r);
      t.memory = Region{RegionKind::kMapped, true, t.world_rank, t.shared_base, 0,
                        static_cast<uint64_t>(t.size), 0, acc_lock, win.id};
      continue;
    }
    const auto pid = static_cast<pid_t>(all[r].pid);
    RegionKind kind = RegionKind::kMapped;
    if (r != win.rank) {
      kind = settings().single_copy && dev::rma::CmaRma::reachable(pid, all[r].probe, 8)
                 ? RegionKind::kCma
                 : RegionKind::kAm;
    }
    t.memory = Region{kind, false, t.world_rank,
                      r == win.rank ? reinterpret_cast<char*>(all[r].base) : nullptr, all[r].base,
                      static_cast<uint64_t>(t.size), pid, acc_lock, win.id};
  }
  win.locks = dev::rma::lock::PassiveLocks(win.rank, std::move(blocks), std::move(node_offsets),
                                           WindowLayout::kLockWord);
  WinEpochs& e = win.epoch;
  e.locks.assign(n, LockState::kNone);
  e.lock_nocheck.assign(n, 0);
  e.start_state.assign(n, kNotStarted);
  e.posts_seen.assign(n, 0);
  e.completes_seen.assign(n, 0);
}

int create_window(Comm& comm, const CreateArgs& args, Win** out) {
  const int local_error = check_arguments(args);
  WinUnderConstruction win(new Win);
  win->flavor = args.flavor;
  apply_hints(*win, local_error == MPI_SUCCESS ? args.info : MPI_INFO_NULL);
  MPI_Comm dup = MPI_COMM_NULL;
  if (int err = impl::comm_dup(comm, &dup)) return err;
  win->comm = comm_get(dup);
  win->rank = win->comm->rank;
  win->nranks = win->comm->size;
  win->errhandler = errhandler_get(MPI_ERRORS_ARE_FATAL);
  errhandler_retain(win->errhandler);

  Announcement mine;
  mine.error = errhan::error_class_of(local_error);
  mine.size = args.size;
  mine.disp_unit = args.disp_unit;
  mine.base = reinterpret_cast<uint64_t>(args.base);
  mine.probe = reinterpret_cast<uint64_t>(&g_probe_word);
  mine.pid = getpid();
  mine.id = (static_cast<uint64_t>(win->comm->world_rank(win->rank)) << 32) | g_windows_created++;
  mine.noncontig = win->hints.alloc_shared_noncontig;
  std::vector<Announcement> all(static_cast<std::size_t>(win->nranks));
  Datatype& bytes = *datatype_get(MPI_BYTE);
  if (int err = coll::allgather(&mine, sizeof mine, &bytes, all.data(), sizeof mine, bytes,
                                *win->comm))
    return err;
  for (int r = 0; r < win->nranks; ++r) {
    if (all[r].error == 0) continue;
    if (local_error != MPI_SUCCESS) return local_error;
    return make_error(static_cast<int>(all[r].error),
                      "window creation failed: rank %d of the communicator passed bad arguments", r);
  }
  win->id = all[0].id;
  std::vector<uint64_t> data(static_cast<std::size_t>(win->nranks), 0);
  if (memory_in_segment(args.flavor))
    for (int r = 0; r < win->nranks; ++r) data[r] = static_cast<uint64_t>(all[r].size);
  const bool contiguous = args.flavor == MPI_WIN_FLAVOR_SHARED && all[0].noncontig == 0;
  const int slots = args.flavor == MPI_WIN_FLAVOR_DYNAMIC ? settings().attach_slots : 0;
  win->layout = WindowLayout(data, contiguous, slots);
  if (int err = map_segment(*win, all)) return err;
  build_targets(*win, all);
  win->bytes = args.size;
  win->disp_unit = static_cast<int>(args.disp_unit);
  win->base = memory_in_segment(args.flavor) ? win->targets[win->rank].shared_base : args.base;
  if (args.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    win->base = nullptr;
    win->bytes = 0;
  }
  dev::rma::am_register_window(win->id, win->targets[win->rank].memory.acc_lock);
  // Nobody may reach this process's window before it is registered.
  dev::rma::segment_barrier(win->segment.base(), win->nranks);
  win->handle = win_table().add(win.get());
  *out = win.release();
  return MPI_SUCCESS;
}

int create(const CreateArgs& args, Comm& comm, void* baseptr, MPI_Win* handle) {
  Win* win = nullptr;
  if (int err = create_window(comm, args, &win)) return err;
  if (baseptr != nullptr) *static_cast<void**>(baseptr) = win->base;
  *handle = win->handle;
  return MPI_SUCCESS;
}

void publish_attached(Win& win) {
  char* control = win.my_control();
  auto version = dev::rma::segment_word(control, WindowLayout::kAttachVersion);
  version.fetch_add(1, std::memory_order_acq_rel);  // odd: being changed
  for (std::size_t i = 0; i < win.attached.size(); ++i) {
    const std::size_t at = win.layout.attach_entry(static_cast<int>(i));
    dev::rma::segment_word(control, at).store(win.attached[i].base, std::memory_order_relaxed);
    dev::rma::segment_word(control, at + 8).store(win.attached[i].bytes, std::memory_order_relaxed);
  }
  dev::rma::segment_word(control, WindowLayout::kAttachCount)
      .store(win.attached.size(), std::memory_order_relaxed);
  version.fetch_add(1, std::memory_order_acq_rel);  // even: consistent
}

}  // namespace

bool find_attached(const Win& win, int target, uint64_t low, uint64_t high,
                   dev::rma::AttachedRegion* found) {
  char* control = win.control_of(target);
  auto version = dev::rma::segment_word(control, WindowLayout::kAttachVersion);
  dev::rma::SpinWait wait;
  for (;;) {
    const uint64_t before = version.load(std::memory_order_acquire);
    if (before & 1) {
      wait.pause();
      continue;
    }
    const uint64_t count = std::min<uint64_t>(
        dev::rma::segment_word(control, WindowLayout::kAttachCount).load(std::memory_order_acquire),
        static_cast<uint64_t>(win.layout.attach_slots()));
    bool hit = false;
    for (uint64_t i = 0; i < count && !hit; ++i) {
      const std::size_t at = win.layout.attach_entry(static_cast<int>(i));
      const uint64_t base = dev::rma::segment_word(control, at).load(std::memory_order_relaxed);
      const uint64_t bytes = dev::rma::segment_word(control, at + 8).load(std::memory_order_relaxed);
      if (low >= base && high <= base + bytes) {
        *found = {base, bytes};
        hit = true;
      }
    }
    if (version.load(std::memory_order_acquire) == before) return hit;
  }
}

}  // namespace stmpi::mpi::rma

namespace stmpi::impl {

using mpi::Win;
using mpi::errhan::make_error;
using mpi::rma::CreateArgs;

int win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, mpi::Comm& comm,
                 MPI_Win* win) {
  return mpi::rma::create({MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info}, comm, nullptr, win);
}

int win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, mpi::Comm& comm,
               MPI_Win* win) {
  return win_create_c(base, size, disp_unit, info, comm, win);
}

int win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, mpi::Comm& comm,
                   void* baseptr, MPI_Win* win) {
  return mpi::rma::create({MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, info}, comm, baseptr,
                          win);
}

int win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, mpi::Comm& comm, void* baseptr,
                 MPI_Win* win) {
  return win_allocate_c(size, disp_unit, info, comm, baseptr, win);
}

int win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, mpi::Comm& comm,
                          void* baseptr, MPI_Win* win) {
  return mpi::rma::create({MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info}, comm, baseptr,
                          win);
}

int win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, mpi::Comm& comm,
                        void* baseptr, MPI_Win* win) {
  return win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
}

int win_create_dynamic(MPI_Info info, mpi::Comm& comm, MPI_Win* win) {
  return mpi::rma::create({MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1, info}, comm, nullptr, win);
}

int win_shared_query_c(mpi::Win& win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                       void* baseptr) {
  if (rank != MPI_PROC_NULL) {
    if (int err = mpi::rma::check_rank(win, rank, "rank")) return err;
  } else {
    rank = 0;
    for (int r = 0; r < win.nranks; ++r) {
      if (win.targets[r].size > 0) {
        rank = r;
        break;
      }
    }
  }
  const mpi::WinTarget& t = win.targets[rank];
  const bool shared = t.shared_base != nullptr;
  *size = shared ? t.size : 0;
  *disp_unit = t.disp_unit;
  *static_cast<void**>(baseptr) = shared ? t.shared_base : nullptr;
  return MPI_SUCCESS;
}

int win_shared_query(mpi::Win& win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  MPI_Aint unit = 0;
  if (int err = win_shared_query_c(win, rank, size, &unit, baseptr)) return err;
  *disp_unit = static_cast<int>(unit);
  return MPI_SUCCESS;
}

int win_attach(mpi::Win& win, void* base, MPI_Aint size) {
  if (win.flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return make_error(MPI_ERR_RMA_FLAVOR,
                      "MPI_Win_attach needs a window made by MPI_Win_create_dynamic (win=0x%x is not)",
                      static_cast<unsigned>(win.handle));
  if (size < 0) return make_error(MPI_ERR_SIZE, "size=%ld must be non-negative", static_cast<long>(size));
  if (size == 0) return MPI_SUCCESS;
  if (base == nullptr) return make_error(MPI_ERR_BASE, "base is NULL but size=%ld", static_cast<long>(size));
  const auto low = reinterpret_cast<uint64_t>(base);
  const uint64_t high = low + static_cast<uint64_t>(size);
  for (const dev::rma::AttachedRegion& r : win.attached) {
    if (low < r.base + r.bytes && r.base < high)
      return make_error(MPI_ERR_RMA_ATTACH,
                        "memory [%p, +%ld) overlaps the attached region [%p, +%llu)", base,
                        static_cast<long>(size), reinterpret_cast<void*>(r.base),
                        static_cast<unsigned long long>(r.bytes));
  }
  if (static_cast<int>(win.attached.size()) >= win.layout.attach_slots())
    return make_error(MPI_ERR_RMA_ATTACH,
                      "no room to attach more memory: %d regions are attached "
                      "(STMPI_RMA_ATTACH_SLOTS=%d)",
                      static_cast<int>(win.attached.size()), win.layout.attach_slots());
  win.attached.push_back({low, static_cast<uint64_t>(size)});
  mpi::rma::publish_attached(win);
  return MPI_SUCCESS;
}

int win_detach(mpi::Win& win, const void* base) {
  if (win.flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return make_error(MPI_ERR_RMA_FLAVOR,
                      "MPI_Win_detach needs a window made by MPI_Win_create_dynamic (win=0x%x is not)",
                      static_cast<unsigned>(win.handle));
  const auto address = reinterpret_cast<uint64_t>(base);
  for (std::size_t i = 0; i < win.attached.size(); ++i) {
    if (win.attached[i].base != address) continue;
    win.attached.erase(win.attached.begin() + static_cast<std::ptrdiff_t>(i));
    mpi::rma::publish_attached(win);
    return MPI_SUCCESS;
  }
  return make_error(MPI_ERR_RMA_ATTACH, "base=%p is not the start of memory attached to the window",
                    base);
}

int win_free(MPI_Win* handle) {
  Win* win = mpi::win_get(*handle);
  const mpi::WinEpochs& e = win->epoch;
  if (e.locks_held != 0 || e.lock_all || e.started || e.posted)
    return make_error(MPI_ERR_RMA_SYNC, "MPI_Win_free: the window still has %s open; close it first",
                      mpi::rma::epoch_description(*win));
  if (int err = dev::rma::flush_all()) return err;
  if (int err = mpi::mpix::stream_free(*win)) return err;
  const int callback_error = mpi::rma::delete_attributes(*win);
  // Every process is done with the window before its memory goes away.
  dev::rma::segment_barrier(win->segment.base(), win->nranks);
  dev::rma::am_unregister_window(win->id);
  mpi::rma::stats_add_freed(win->locks.stats());
  for (const mpi::WinAttribute& attribute : win->attributes) mpi::keyval_release(attribute.keyval);
  mpi::win_table().remove(win->handle);
  mpi::rma::discard(win);
  *handle = MPI_WIN_NULL;
  return callback_error;
}

}  // namespace stmpi::impl
