// stmpi::stream::Stream: an in-order queue of device work that MPI enqueues
// on and returns from at once. The ST layer calls it a few times per epoch
// (one virtual call per enqueued operation); per-byte work happens inside the
// backend (a memcpy on the host executor, a kernel on a GPU), never through a
// virtual call.
//
// Operations, all executed in enqueue order on the stream, never on the CPU
// that enqueues them:
//   launch(fn, arg)          a host callback (a user "kernel")
//   write_values(writes)     stores to signal words, possibly in another
//                            process's shared or IPC-mapped memory: one merged
//                            signal kernel for any number of words
//   wait_values(waits, cmp)  blocks the stream (not the CPU) until every word
//                            satisfies cmp: one merged wait kernel
//   copy(ranges)             many (dst, src, bytes) triples: one merged copy kernel
//   wait_copy_signal(step)   an epoch's wait, copies and signals in that order:
//                            one operation on a host stream; on a GPU stream
//                            one epoch kernel up to STMPI_STREAM_GPU_EPOCH_BYTES
//                            of copies, else the three above
//   run_program(program)     several epoch steps recorded once, their values
//                            shifted by a bias per run (a persistent epoch
//                            started again): one operation on a host stream,
//                            the steps' launches elsewhere
//   synchronize()            the CPU waits until everything enqueued so far ran
// Every call returns MPI_SUCCESS or an MPI error code with a message.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace stmpi::stream {

enum class BackendKind : uint8_t { kHost, kHip, kCuda };
const char* backend_name(BackendKind kind);

// What a launch counted in the statistics was for.
enum class OpKind : uint8_t { kSignal, kCopy, kWait, kUser };
inline constexpr std::size_t kOpKinds = 4;
const char* op_kind_name(OpKind kind);

// How a wait compares its word w with the target t. Signal words are counters
// that only grow, so kGreaterEqual is wrap-around safe: (int64_t)(w - t) >= 0,
// which equals w >= t while the two are less than 2^63 apart (the rule of
// CU_STREAM_WAIT_VALUE_GEQ).
enum class Cmp : uint8_t { kGreaterEqual, kEqual };

inline bool wait_satisfied(uint64_t word, uint64_t target, Cmp cmp) {
  return cmp == Cmp::kEqual ? word == target : static_cast<int64_t>(word - target) >= 0;
}

using HostFn = void (*)(void* arg);

struct SignalWrite {
  uint64_t* addr;  // 8-byte aligned
  uint64_t value;
};

struct SignalWait {
  const volatile uint64_t* addr;  // 8-byte aligned
  uint64_t value;
};

struct CopyRange {
  void* dst;
  const void* src;
  std::size_t bytes;
};

// One step of an epoch: wait until every word of `waits` satisfies `cmp`,
// then do the copies, then the writes, in that order. The arrays are not
// copied: they are read when the stream runs the step and must stay
// unchanged until then. Nothing is read after the last write, so that write
// may tell the caller the arrays are free again.
struct EpochStep {
  std::span<const SignalWait> waits;
  Cmp cmp = Cmp::kGreaterEqual;
  std::span<const CopyRange> copies;
  std::span<const SignalWrite> writes;
};

// Epoch steps recorded once and run many times (a persistent stream epoch):
// each run executes the steps in order, adding `bias` to every wait and
// write value of the steps (signal words count epochs, so the k-th run of
// an epoch recorded with base values waits for and writes base + k), then
// stores `last` unchanged (when last.addr is not null). The steps' arrays
// are read while the run executes and must stay unchanged until `last` is
// stored; nothing is read after it.
struct StepProgram {
  std::span<const EpochStep> steps;
  uint64_t bias = 0;
  SignalWrite last{nullptr, 0};
};

// Launches by kind: one per enqueued merged operation (a kernel, a stream
// memory operation, a host callback), whatever its number of entries.
struct LaunchCounts {
  std::array<uint64_t, kOpKinds> by_kind{};
  uint64_t operator[](OpKind kind) const { return by_kind[static_cast<std::size_t>(kind)]; }
  uint64_t total() const { return by_kind[0] + by_kind[1] + by_kind[2] + by_kind[3]; }
};

// Always owned by a std::shared_ptr (the registry's), so a caller holding
// only a reference can take shared ownership (shared_from_this).
class Stream : public std::enable_shared_from_this<Stream> {
 public:
  // Adds this stream's launches to the process totals of freed streams.
  virtual ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  virtual BackendKind backend() const = 0;
  // The user's handle: an MPIX_Host_stream, a hipStream_t or a cudaStream_t.
  virtual void* handle() const = 0;

  [[nodiscard]] virtual int launch(HostFn fn, void* arg) = 0;
  // The entries are copied: the spans may be reused once the call returns.
  // An empty span enqueues nothing.
  [[nodiscard]] virtual int write_values(std::span<const SignalWrite> writes) = 0;
  [[nodiscard]] virtual int wait_values(std::span<const SignalWait> waits, Cmp cmp) = 0;
  [[nodiscard]] virtual int copy(std::span<const CopyRange> ranges) = 0;
  [[nodiscard]] virtual int synchronize() = 0;
  // Counts one launch per non-empty part. The default enqueues the parts as
  // wait_values, copy and write_values (each copies its entries); the host
  // backend enqueues one operation.
  [[nodiscard]] virtual int wait_copy_signal(const EpochStep& step);
  // Counts one launch per non-empty part of each step. The default enqueues
  // each step as wait_values, copy and write_values with the biased values
  // (copied), then `last`; the host backend enqueues one operation.
  [[nodiscard]] virtual int run_program(const StepProgram& program);

  [[nodiscard]] int write_value(uint64_t* addr, uint64_t value) {
    const SignalWrite write{addr, value};
    return write_values({&write, 1});
  }
  [[nodiscard]] int wait_value(const volatile uint64_t* addr, uint64_t value,
                               Cmp cmp = Cmp::kGreaterEqual) {
    const SignalWait wait{addr, value};
    return wait_values({&wait, 1}, cmp);
  }
  [[nodiscard]] int copy(void* dst, const void* src, std::size_t bytes) {
    const CopyRange range{dst, src, bytes};
    return copy({&range, 1});
  }

  LaunchCounts launch_counts() const;
  // One kind's launches so far (cheaper than launch_counts() per call).
  uint64_t launch_count(OpKind kind) const {
    return launches_[static_cast<std::size_t>(kind)].load(std::memory_order_relaxed);
  }

 protected:
  // Joins the list of live streams that process_launch_counts() sums.
  Stream();
  // Backends call this once per launch they enqueue: one relaxed atomic add
  // on this stream's counter (the process totals are summed when asked for,
  // not bumped per launch).
  void count_launch(OpKind kind);
  // `n` launches of one kind at once (a host program's parts).
  void count_launches(OpKind kind, uint64_t n);

 private:
  std::array<std::atomic<uint64_t>, kOpKinds> launches_{};
  Stream* prev_live_ = nullptr;  // the list of live streams (stream.cc)
  Stream* next_live_ = nullptr;
  friend LaunchCounts process_launch_counts();
};

// Launches of every stream of the process, freed ones included (the live
// streams' counters plus what freed streams left).
LaunchCounts process_launch_counts();

}  // namespace stmpi::stream
