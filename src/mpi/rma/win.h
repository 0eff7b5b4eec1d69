// MPI_Win: a window, its targets as this process reaches them, and the
// state of its epochs. README.md in this folder explains the flavors and
// the synchronization calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "device/rma/region.h"
#include "device/rma/window.h"
#include "mpi/comm/attr_table.h"
#include "mpi/handle.h"

namespace stmpi::dev::rma::st {
class StreamWindow;
}

namespace stmpi::mpi {

struct Comm;
struct Errhandler;
struct Group;

// One target (a rank of the window's communicator), as the device reaches it.
using WinTarget = dev::rma::WindowTarget;

// The info hints a window understands (MPI 4.1 section 12.2.1).
struct WinHints {
  bool no_locks = false;
  bool same_size = false;
  bool same_disp_unit = false;
  bool alloc_shared_noncontig = false;
  std::string accumulate_ordering = "rar,raw,war,waw";
  std::string accumulate_ops = "same_op_no_op";
};

enum class LockState : int8_t { kNone, kShared, kExclusive };

// A target's place in this process's PSCW access epoch.
inline constexpr uint8_t kNotStarted = 0;
inline constexpr uint8_t kAwaitingPost = 1;
inline constexpr uint8_t kPostSeen = 2;

// Which epochs are open at this process.
struct WinEpochs {
  // A fence without MPI_MODE_NOSUCCEED opened a fence epoch; it becomes
  // binding once RMA calls or the matching fence use it, so that a program
  // may also fence once and then use other synchronization.
  bool fence = false;
  bool fence_used = false;
  // PSCW access epoch (MPI_Win_start): the targets, and by comm rank
  // kNotStarted, kAwaitingPost or kPostSeen.
  bool started = false;
  std::vector<int> start_ranks;
  std::vector<uint8_t> start_state;
  // PSCW exposure epoch (MPI_Win_post): the origins.
  bool posted = false;
  std::vector<int> post_ranks;
  // Passive target.
  std::vector<LockState> locks;  // by comm rank
  std::vector<uint8_t> lock_nocheck;
  int locks_held = 0;
  bool lock_all = false;
  bool lock_all_nocheck = false;
  // PSCW signals seen so far, by peer (the counters in the segment only grow).
  std::vector<uint64_t> posts_seen;
  std::vector<uint64_t> completes_seen;
  // Stream-triggered epochs (src/mpi/mpix): an access epoch opened with
  // MPIX_MODE_STREAM, an exposure epoch opened by MPIX_Win_post_stream. They
  // also set `started` / `posted`, so the rules about open epochs apply.
  bool stream_access = false;
  bool stream_exposure = false;
};

struct Win {
  int handle = 0;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  int model = MPI_WIN_UNIFIED;  // public and private copies are one memory
  Comm* comm = nullptr;         // a private duplicate of the creating communicator
  int rank = 0;
  int nranks = 0;
  void* base = nullptr;
  MPI_Aint bytes = 0;
  int disp_unit = 1;
  Errhandler* errhandler = nullptr;
  std::string name;
  AttributeTable<WinAttrs> attributes;
  WinHints hints;
  // The device's window: regions by comm rank, segment, passive locks,
  // fence/PSCW words. src/mpi/rma never picks how a target is reached.
  dev::rma::Window device;
  WinEpochs epoch;
  std::vector<dev::rma::AttachedRegion> attached;  // this process's, for dynamic windows
  // Stream-triggered state, created by the first stream epoch (src/mpi/mpix).
  std::shared_ptr<dev::rma::st::StreamWindow> stream;

  // This process's control block in its mapping.
  char* my_control() const { return device.my_control(); }
  char* control_of(int r) const { return device.control_of(r); }
  const WinTarget& target(int r) const { return device.target(r); }
};

HandleTable<Win, ObjectKind::kWin>& win_table();
inline Win* win_get(int handle) { return win_table().get(handle); }

// Applies the window's error handler to a failed call (as raise_on_comm).
int win_raise(Win* win, int code, const char* function);

// MPI_Win_set_attr / MPI_Win_get_attr with the value's language type (see
// mpi/comm/attr.h). Fortran reads the predefined attributes as values.
[[nodiscard]] int win_set_attr_as(Win& win, int keyval, void* value, AttrType type,
                                  const char* function);
[[nodiscard]] int win_get_attr_as(Win& win, int keyval, void* value, int* flag, AttrType as,
                                  const char* function);

}  // namespace stmpi::mpi
