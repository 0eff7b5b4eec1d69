// A collective as a schedule: steps (sends, receives, local copies and
// reductions) in program order, cut into rounds by fences. Starting a
// round runs its local steps and starts its sends and receives in the
// order they were added; the next round starts once every send and
// receive of the round has completed. Blocking collectives build a
// schedule and run it to completion; nonblocking ones hand it to the
// engine (engine.h), which advances it from the progress loop; persistent
// ones keep it and start it again on every MPI_Start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"

namespace stmpi::mpi {
struct Comm;
struct Datatype;
struct Op;
struct Request;
}  // namespace stmpi::mpi

namespace stmpi::mpi::coll {

// The tag of a blocking collective that runs without a Schedule (direct.h):
// takes the next number of `comm`'s blocking sequence, as a Schedule does.
[[nodiscard]] int take_blocking_tag(Comm& comm);

class Schedule {
 public:
  // Messages use the communicator's collective context and a tag drawn
  // from its collective sequence (the same on every member, since
  // collectives start in the same order everywhere), so schedules in
  // flight at the same time never match each other's messages. Blocking and
  // nonblocking/persistent collectives draw from two sequences, as MPICH's
  // tags do, so a program that orders an MPI_I* call differently from a
  // blocking one across ranks (mpi4py's agreement fallback) still matches.
  explicit Schedule(Comm& comm, bool nonblocking = false);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  Comm& comm() const { return *comm_; }
  // This collective's number in the communicator's sequence (the same on
  // every member; see the constructor).
  uint32_t sequence() const { return sequence_; }
  int rank() const;
  int size() const;

  // ---- building ----
  // Keeps a datatype or op alive as long as the schedule (nonblocking
  // calls return before the schedule runs; the user may free them).
  void hold(Datatype* type);
  void hold(Op* op);
  // The combining step used by reduce(): inout = in (op) inout.
  void set_reduction(Reduction reduction) { reduction_ = std::move(reduction); }
  const Reduction& reduction() const { return reduction_; }
  // Room for `count` instances of `type` laid out as in a user buffer, or
  // raw bytes; owned by the schedule.
  void* scratch(MPI_Count count, const Datatype& type);
  char* scratch_bytes(MPI_Count bytes);

  void send(const void* buf, MPI_Count count, Datatype& type, int peer);
  void recv(void* buf, MPI_Count count, Datatype& type, int peer);
  // Local copy, converting between type signatures (packs/unpacks).
  void copy(const void* src, MPI_Count scount, Datatype& stype, void* dst, MPI_Count rcount,
            Datatype& rtype);
  // inout = in (op) inout over `count` instances of the reduction's type.
  void reduce(const void* in, void* inout, MPI_Count count);
  // A local step that runs fn(*this) when its round starts; its return
  // value is an MPI error code. fn may append steps (ended by fence()):
  // they run after every round built so far, so a schedule can decide at
  // run time to add rounds (the context id agreement retries this way).
  // Schedules that grow are for one run only, not for persistent requests.
  using Call = std::function<int(Schedule&)>;
  void call(Call fn);
  // Holds its round open until the next advance(): other schedules and the
  // device progress first (a retry that must wait for another collective
  // in flight uses it, so that it cannot spin without messages).
  void defer();
  // Ends a round: later steps wait for everything before.
  void fence();

  // ---- running ----
  // Starts from the first round (again, for persistent collectives).
  void start();
  // Makes what progress is possible without blocking; true once complete.
  bool advance();
  bool done() const { return done_; }
  // The first error met by the last run (MPI_SUCCESS if none).
  int error() const { return error_; }

  // Runs to completion, polling the device. Returns error().
  [[nodiscard]] int run();

 private:
  enum class Kind : uint8_t { kSend, kRecv, kCopy, kReduce, kCall, kDefer };
  struct Step {
    Kind kind;
    const void* src;
    void* dst;
    MPI_Count count;
    Datatype* type;
    MPI_Count count2;
    Datatype* type2;
    int peer;
  };

  void run_round();
  void finish_round();

  Comm* comm_;
  uint32_t sequence_;
  int tag_;
  Reduction reduction_;
  std::vector<Step> steps_;
  std::vector<std::size_t> round_end_;  // steps_[round_end_[i-1], round_end_[i]) is round i
  std::vector<Datatype*> types_;
  std::vector<Op*> ops_;
  std::vector<Call> calls_;  // kCall steps: count indexes this
  std::vector<std::unique_ptr<ScratchBuffer>> scratch_;
  std::vector<Request*> pending_;
  std::size_t round_ = 0;
  bool done_ = true;
  bool deferred_ = false;  // a kDefer step holds the current round
  int error_ = MPI_SUCCESS;
};

}  // namespace stmpi::mpi::coll
