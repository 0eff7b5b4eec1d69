// Window creation and destruction for the four flavors (MPI 4.1 section
// 12.2), MPI_Win_shared_query and MPI_Win_attach/detach.
//
// Creation is collective over the communicator and never leaves a process
// hanging when another one has bad arguments: the device window
// (device/rma/window.h) announces every process's arguments (and any error)
// with one allgather over the communicator, after which all of them agree on
// success or failure; it then sets up the memory and picks how each target
// is reached.

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "device/rma/rma.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/comm/keyval.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/info/info.h"
#include "mpi/init/state.h"
#include "mpi/rma/impl_rma.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/stream_hooks.h"
#include "mpi/rma/win.h"

namespace stmpi::mpi::rma {
namespace {

using errhan::make_error;

struct CreateArgs {
  int flavor = MPI_WIN_FLAVOR_CREATE;
  void* base = nullptr;
  MPI_Aint size = 0;
  MPI_Aint disp_unit = 1;
  MPI_Info info = MPI_INFO_NULL;
};

dev::rma::WindowMemory memory_of(int flavor) {
  switch (flavor) {
    case MPI_WIN_FLAVOR_ALLOCATE: return dev::rma::WindowMemory::kAllocate;
    case MPI_WIN_FLAVOR_SHARED: return dev::rma::WindowMemory::kShared;
    case MPI_WIN_FLAVOR_DYNAMIC: return dev::rma::WindowMemory::kDynamic;
    default: return dev::rma::WindowMemory::kUser;
  }
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

// The device window's collective steps, over the window's communicator.
class CommExchange final : public dev::rma::GroupExchange {
 public:
  explicit CommExchange(Comm& comm) : comm_(comm) {}
  int allgather(const void* mine, std::size_t bytes, void* all) override {
    Datatype& byte = *datatype_get(MPI_BYTE);
    const auto count = static_cast<MPI_Count>(bytes);
    return coll::allgather(mine, count, &byte, all, count, byte, comm_);
  }
  int allreduce_min(int value, int* result) override {
    Datatype& int_type = *datatype_get(MPI_INT);
    return coll::allreduce(&value, result, 1, int_type,
                           coll::reduction_of(*op_get(MPI_MIN), int_type), comm_);
  }

 private:
  Comm& comm_;
};

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

void reset_epochs(Win& win) {
  const int n = win.nranks;
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

  dev::rma::WindowSpec spec;
  spec.memory = memory_of(args.flavor);
  spec.rank = win->rank;
  spec.world_ranks.resize(static_cast<std::size_t>(win->nranks));
  for (int r = 0; r < win->nranks; ++r) spec.world_ranks[r] = win->comm->world_rank(r);
  spec.base = args.base;
  spec.size = static_cast<uint64_t>(std::max<MPI_Aint>(args.size, 0));
  spec.disp_unit = local_error == MPI_SUCCESS ? static_cast<int>(args.disp_unit) : 1;
  spec.noncontig = win->hints.alloc_shared_noncontig;
  spec.attach_slots = settings().attach_slots;
  spec.single_copy = settings().single_copy;
  spec.am_atomics = settings().am_atomics;
  spec.local_error = local_error;
  CommExchange exchange(*win->comm);
  if (int err = win->device.create(spec, exchange)) return err;
  reset_epochs(*win);
  win->bytes = args.flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : args.size;
  win->disp_unit = static_cast<int>(args.disp_unit);
  win->base = win->device.base();
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

}  // namespace

}  // namespace stmpi::mpi::rma

namespace stmpi::impl {

using mpi::Win;
using mpi::errhan::make_error;
using mpi::rma::CreateArgs;

int win_create_any(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, mpi::Comm& comm,
                   MPI_Win* win) {
  return mpi::rma::create({MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info}, comm, nullptr, win);
}

// MPI_WIN_FLAVOR_ALLOCATE or MPI_WIN_FLAVOR_SHARED.
int win_allocate_any(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, mpi::Comm& comm,
                     void* baseptr, MPI_Win* win, int flavor) {
  return mpi::rma::create({flavor, nullptr, size, disp_unit, info}, comm, baseptr, win);
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
      if (win.target(r).size > 0) {
        rank = r;
        break;
      }
    }
  }
  const mpi::WinTarget& t = win.target(rank);
  const bool shared = t.shared_base != nullptr;
  *size = shared ? static_cast<MPI_Aint>(t.size) : 0;
  *disp_unit = t.disp_unit;
  // A segment of size 0 has no address of its own: NULL, as in MPICH.
  *static_cast<void**>(baseptr) = shared && t.size > 0 ? t.shared_base : nullptr;
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
    return make_error(
        MPI_ERR_RMA_FLAVOR,
        "MPI_Win_attach needs a window made by MPI_Win_create_dynamic (win=0x%x is not)",
        static_cast<unsigned>(win.handle));
  if (size < 0)
    return make_error(MPI_ERR_SIZE, "size=%ld must be non-negative", static_cast<long>(size));
  if (size == 0) return MPI_SUCCESS;
  if (base == nullptr)
    return make_error(MPI_ERR_BASE, "base is NULL but size=%ld", static_cast<long>(size));
  const auto low = reinterpret_cast<uint64_t>(base);
  const uint64_t high = low + static_cast<uint64_t>(size);
  for (const dev::rma::AttachedRegion& r : win.attached) {
    if (low < r.base + r.bytes && r.base < high)
      return make_error(MPI_ERR_RMA_ATTACH,
                        "memory [%p, +%ld) overlaps the attached region [%p, +%llu)", base,
                        static_cast<long>(size), reinterpret_cast<void*>(r.base),
                        static_cast<unsigned long long>(r.bytes));
  }
  if (static_cast<int>(win.attached.size()) >= win.device.layout().attach_slots())
    return make_error(MPI_ERR_RMA_ATTACH,
                      "no room to attach more memory: %d regions are attached "
                      "(STMPI_RMA_ATTACH_SLOTS=%d)",
                      static_cast<int>(win.attached.size()), win.device.layout().attach_slots());
  win.attached.push_back({low, static_cast<uint64_t>(size)});
  win.device.publish_attached(win.attached);
  return MPI_SUCCESS;
}

int win_detach(mpi::Win& win, const void* base) {
  if (win.flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return make_error(
        MPI_ERR_RMA_FLAVOR,
        "MPI_Win_detach needs a window made by MPI_Win_create_dynamic (win=0x%x is not)",
        static_cast<unsigned>(win.handle));
  const auto address = reinterpret_cast<uint64_t>(base);
  for (std::size_t i = 0; i < win.attached.size(); ++i) {
    if (win.attached[i].base != address) continue;
    win.attached.erase(win.attached.begin() + static_cast<std::ptrdiff_t>(i));
    win.device.publish_attached(win.attached);
    return MPI_SUCCESS;
  }
  return make_error(MPI_ERR_RMA_ATTACH, "base=%p is not the start of memory attached to the window",
                    base);
}

int win_free(MPI_Win* handle) {
  Win* win = mpi::win_get(*handle);
  const mpi::WinEpochs& e = win->epoch;
  if (e.locks_held != 0 || e.lock_all || e.started || e.posted)
    return make_error(MPI_ERR_RMA_SYNC,
                      "MPI_Win_free: the window still has %s open; close it first",
                      mpi::rma::epoch_description(*win));
  if (int err = dev::rma::flush_all()) return err;
  if (int err = mpi::mpix::stream_free(*win)) return err;
  const int callback_error = win->attributes.delete_all(win->handle);
  // Every process is done with the window before its memory goes away.
  mpi::rma::stats_add_freed(win->device.locks().stats());
  win->device.free();
  win->attributes.release_all();
  mpi::win_table().remove(win->handle);
  mpi::rma::discard(win);
  *handle = MPI_WIN_NULL;
  return callback_error;
}

}  // namespace stmpi::impl
