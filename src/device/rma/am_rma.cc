// The active-message transport (am_rma.h). Every operation is cut into
// messages of at most dev::am_max_bytes(): a header, the target runs it
// covers and, for puts and accumulates, their data. The target applies each
// message on arrival and answers with an acknowledgement (puts, accumulates
// without a result) or a reply carrying data (gets, fetching accumulates,
// compare-and-swap). Messages never split an element of an accumulate.
#include "device/rma/am_rma.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <mpi.h>

#include "device/device.h"
#include "device/progress.h"
#include "device/rma/accumulate.h"
#include "util/error.h"

namespace stmpi::dev::rma {
namespace {

enum class AmKind : uint8_t { kPut, kGet, kAccumulate, kCompareSwap, kAtomic64, kAck, kReply };

// kAtomic64: the data is {Atomic64Op, operand, operand}; the reply the old value.
enum class Atomic64Op : uint64_t { kFetchAdd, kCompareSwap, kLoad, kStore };

struct AmHeader {
  AmKind kind;
  uint8_t pad[3];
  uint32_t nruns;         // Run entries after the header
  uint64_t data_bytes;    // data after the runs
  int32_t op;             // accumulates: util::OpKind
  int32_t element;        // accumulates, compare-and-swap: util::ElementKind
  int32_t error;          // replies: the target's error class, 0 if none
  uint32_t element_size;  // accumulates, compare-and-swap: bytes per element
  uint64_t window;        // the window id (accumulate lock at the target)
  uint64_t base;          // the region's first byte in the target; runs are relative
  uint64_t completion;    // the origin's Completion*, echoed in replies
  uint64_t result;        // the origin's result buffer for this message's data
};

struct AmState {
  bool handler_set = false;
  std::vector<int64_t> outstanding;  // by world rank: messages awaiting an answer
  int64_t total_outstanding = 0;
  std::unordered_map<uint64_t, AmWindow> windows;
};

AmState g;

void ensure_state() {
  if (g.outstanding.empty()) g.outstanding.assign(static_cast<std::size_t>(world_size()), 0);
}

void answered(int peer) {
  --g.outstanding[peer];
  --g.total_outstanding;
}

void handle(int sender, const char* data, std::size_t bytes);

void ensure_handler() {
  ensure_state();
  if (g.handler_set) return;
  register_am_handler(kAmRma, &handle);
  g.handler_set = true;
}

int send(int peer, const std::vector<char>& message) {
  ++g.outstanding[peer];
  ++g.total_outstanding;
  return am_send(peer, kAmRma, message.data(), message.size());
}

// Cuts runs into messages: each holds whole elements (packed bytes a
// multiple of `element`) and fits the message size with its runs and data.
class Chunker {
 public:
  Chunker(std::span<const Run> runs, uint64_t element) : runs_(runs), element_(element) {}

  bool done() const { return next_ >= runs_.size(); }
  uint64_t packed_offset() const { return packed_; }

  // The runs of the next message and their byte count.
  uint64_t next(std::vector<Run>* out) {
    out->clear();
    const uint64_t room = am_max_bytes() - sizeof(AmHeader);
    // First pass: how many packed bytes fit.
    uint64_t used = 0, bytes = 0;
    std::size_t i = next_;
    uint64_t skip = skip_;
    // The data counts whether it travels here or in the reply (gets).
    while (i < runs_.size()) {
      const uint64_t rest = runs_[i].bytes - skip;
      if (used + sizeof(Run) + 1 > room) break;
      const uint64_t fit = std::min(rest, room - used - sizeof(Run));
      used += sizeof(Run) + fit;
      bytes += fit;
      if (fit < rest) break;
      ++i;
      skip = 0;
    }
    bytes -= bytes % element_;  // whole elements only
    if (bytes == 0) bytes = std::min<uint64_t>(element_, remaining());
    // Second pass: emit exactly `bytes` packed bytes.
    uint64_t left = bytes;
    while (left > 0 && next_ < runs_.size()) {
      const uint64_t take = std::min(left, runs_[next_].bytes - skip_);
      out->push_back(Run{runs_[next_].offset + skip_, take});
      left -= take;
      skip_ += take;
      if (skip_ == runs_[next_].bytes) {
        ++next_;
        skip_ = 0;
      }
    }
    packed_ += bytes;
    return bytes;
  }

 private:
  uint64_t remaining() const {
    uint64_t total = 0;
    for (std::size_t i = next_; i < runs_.size(); ++i) total += runs_[i].bytes;
    return total - skip_;
  }

  std::span<const Run> runs_;
  uint64_t element_;
  std::size_t next_ = 0;
  uint64_t skip_ = 0;
  uint64_t packed_ = 0;
};

std::vector<char> make_message(const AmHeader& header, const std::vector<Run>& runs,
                               const void* data, uint64_t data_bytes) {
  std::vector<char> message(sizeof header + runs.size() * sizeof(Run) + data_bytes);
  AmHeader h = header;
  h.nruns = static_cast<uint32_t>(runs.size());
  h.data_bytes = data_bytes;
  std::memcpy(message.data(), &h, sizeof h);
  if (!runs.empty()) std::memcpy(message.data() + sizeof h, runs.data(), runs.size() * sizeof(Run));
  if (data_bytes != 0)
    std::memcpy(message.data() + sizeof h + runs.size() * sizeof(Run), data, data_bytes);
  return message;
}

AmHeader header_for(const Region& region, AmKind kind) {
  AmHeader h{};
  h.kind = kind;
  h.window = region.am_window;
  h.base = region.remote;
  return h;
}

// Sends the runs in messages; `in` (packed) travels with them when set;
// replies land in `out` (packed) when set.
int ship(const Region& region, AmHeader header, std::span<const Run> runs, uint64_t element,
         const char* in, char* out, Completion* done) {
  ensure_handler();
  Chunker chunker(runs, element);
  std::vector<Run> piece;
  while (!chunker.done()) {
    const uint64_t offset = chunker.packed_offset();
    const uint64_t bytes = chunker.next(&piece);
    if (out != nullptr) {
      header.completion = reinterpret_cast<uint64_t>(done);
      header.result = reinterpret_cast<uint64_t>(out + offset);
      done->pending.fetch_add(1, std::memory_order_relaxed);
    }
    const std::vector<char> message = make_message(
        header, piece, in != nullptr ? in + offset : nullptr, in != nullptr ? bytes : 0);
    if (int err = send(region.target, message)) return err;
  }
  return MPI_SUCCESS;
}

void reply(int origin, const AmHeader& request, const void* data, uint64_t bytes, int error) {
  AmHeader h{};
  h.kind =
      request.kind == AmKind::kPut || (request.kind == AmKind::kAccumulate && request.result == 0)
          ? AmKind::kAck
          : AmKind::kReply;
  h.completion = request.completion;
  h.result = request.result;
  h.error = error;
  (void)am_send(origin, kAmRma,
                make_message(h, {}, data, h.kind == AmKind::kReply ? bytes : 0).data(),
                sizeof h + (h.kind == AmKind::kReply ? bytes : 0));
}

std::atomic<uint64_t>* lock_of(uint64_t window) {
  auto it = g.windows.find(window);
  return it != g.windows.end() ? it->second.acc_lock : nullptr;
}

// Whether the window's own memory takes the CPU-atomic path for `acc`
// (accumulate.h): the same choice the node's other origins make.
bool native_for(uint64_t window, const AccumulateOp& acc) {
  auto it = g.windows.find(window);
  Region memory;
  memory.native_atomics = it != g.windows.end() && it->second.memory_native;
  return uses_native_atomics(memory, acc);
}

// The target side.
void apply(int origin, const AmHeader& h, const Run* runs, const char* data) {
  char* base = reinterpret_cast<char*>(h.base);
  const std::span<const Run> run_list(runs, h.nruns);
  uint64_t total = 0;
  for (const Run& run : run_list) total += run.bytes;
  switch (h.kind) {
    case AmKind::kPut: {
      uint64_t pos = 0;
      for (const Run& run : run_list) {
        std::memcpy(base + run.offset, data + pos, run.bytes);
        pos += run.bytes;
      }
      reply(origin, h, nullptr, 0, 0);
      return;
    }
    case AmKind::kGet: {
      std::vector<char> out(total);
      uint64_t pos = 0;
      for (const Run& run : run_list) {
        std::memcpy(out.data() + pos, base + run.offset, run.bytes);
        pos += run.bytes;
      }
      reply(origin, h, out.data(), total, 0);
      return;
    }
    case AmKind::kAccumulate: {
      const AccumulateOp acc{static_cast<util::OpKind>(h.op),
                             static_cast<util::ElementKind>(h.element), h.element_size};
      std::vector<char> out(h.result != 0 ? total : 0);
      const int err = accumulate_local(base, native_for(h.window, acc), lock_of(h.window), run_list,
                                       acc, h.data_bytes != 0 ? data : nullptr,
                                       h.result != 0 ? out.data() : nullptr);
      reply(origin, h, out.data(), out.size(), util::error_class_of(err));
      return;
    }
    case AmKind::kCompareSwap: {
      // data: compare value, then swap value
      const AccumulateOp acc{util::OpKind::kReplace, static_cast<util::ElementKind>(h.element),
                             h.element_size};
      const uint64_t size = run_list[0].bytes;
      std::vector<char> out(size);
      const int err = compare_swap_local(base + run_list[0].offset, native_for(h.window, acc),
                                         lock_of(h.window), acc, data, data + size, out.data());
      reply(origin, h, out.data(), size, util::error_class_of(err));
      return;
    }
    case AmKind::kAtomic64: {
      uint64_t args[3];
      std::memcpy(args, data, sizeof args);
      std::atomic_ref<uint64_t> word(*reinterpret_cast<uint64_t*>(base + run_list[0].offset));
      uint64_t old = 0;
      switch (static_cast<Atomic64Op>(args[0])) {
        case Atomic64Op::kFetchAdd: old = word.fetch_add(args[1]); break;
        case Atomic64Op::kCompareSwap:
          old = args[1];
          word.compare_exchange_strong(old, args[2]);
          break;
        case Atomic64Op::kLoad: old = word.load(); break;
        case Atomic64Op::kStore: word.store(args[1]); break;
      }
      reply(origin, h, &old, sizeof old, 0);
      return;
    }
    case AmKind::kAck:
    case AmKind::kReply: return;
  }
}

// The origin side of a 64-bit atomic: one message, waits for the old value.
uint64_t atomic64(const Region& region, uint64_t offset, Atomic64Op op, uint64_t a, uint64_t b) {
  ensure_handler();
  Completion done;
  uint64_t old = 0;
  AmHeader h = header_for(region, AmKind::kAtomic64);
  h.completion = reinterpret_cast<uint64_t>(&done);
  h.result = reinterpret_cast<uint64_t>(&old);
  const uint64_t args[3] = {static_cast<uint64_t>(op), a, b};
  done.pending.fetch_add(1, std::memory_order_relaxed);
  if (send(region.target, make_message(h, {Run{offset, sizeof(uint64_t)}}, args, sizeof args)) != 0)
    return 0;
  wait_until([&] { return done.pending.load(std::memory_order_acquire) == 0; });
  return old;
}

void handle(int sender, const char* data, std::size_t) {
  AmHeader h;
  std::memcpy(&h, data, sizeof h);
  const char* runs_bytes = data + sizeof h;
  const char* payload = runs_bytes + h.nruns * sizeof(Run);
  if (h.kind == AmKind::kAck || h.kind == AmKind::kReply) {
    auto* done = reinterpret_cast<Completion*>(h.completion);
    if (h.kind == AmKind::kReply && h.result != 0 && h.data_bytes != 0)
      std::memcpy(reinterpret_cast<void*>(h.result), payload, h.data_bytes);
    if (done != nullptr) {
      if (h.error != 0 && done->error == 0)
        done->error =
            util::make_error(h.error, "an active-message RMA operation failed at rank %d", sender);
      done->pending.fetch_sub(1, std::memory_order_release);
    }
    answered(sender);
    return;
  }
  std::vector<Run> runs(h.nruns);  // copied: the ring cell is not 8-byte aligned for us
  if (h.nruns != 0) std::memcpy(runs.data(), runs_bytes, h.nruns * sizeof(Run));
  apply(sender, h, runs.data(), payload);
}

}  // namespace

int AmRma::put(const Region& region, std::span<const Run> runs, const void* in) {
  return ship(region, header_for(region, AmKind::kPut), runs, 1, static_cast<const char*>(in),
              nullptr, nullptr);
}

int AmRma::get(const Region& region, std::span<const Run> runs, void* out, Completion* done) {
  return ship(region, header_for(region, AmKind::kGet), runs, 1, nullptr, static_cast<char*>(out),
              done);
}

int AmRma::accumulate(const Region& region, std::span<const Run> runs, const AccumulateOp& acc,
                      const void* in, void* out, Completion* done) {
  AmHeader h = header_for(region, AmKind::kAccumulate);
  h.op = static_cast<int32_t>(acc.op);
  h.element = static_cast<int32_t>(acc.element);
  h.element_size = acc.element_size;
  if (in == nullptr && out == nullptr) return MPI_SUCCESS;  // MPI_NO_OP without a result
  if (in == nullptr) {
    // MPI_NO_OP: a get under the accumulate lock; no data travels.
    h.op = static_cast<int32_t>(util::OpKind::kNoOp);
  }
  return ship(region, h, runs, static_cast<uint64_t>(acc.element_size),
              static_cast<const char*>(in), static_cast<char*>(out), done);
}

int AmRma::compare_swap(const Region& region, uint64_t offset, const AccumulateOp& acc,
                        const void* compare, const void* swap, void* out, Completion* done) {
  ensure_handler();
  const auto size = static_cast<uint64_t>(acc.element_size);
  AmHeader h = header_for(region, AmKind::kCompareSwap);
  h.element = static_cast<int32_t>(acc.element);
  h.element_size = acc.element_size;
  h.completion = reinterpret_cast<uint64_t>(done);
  h.result = reinterpret_cast<uint64_t>(out);
  std::vector<char> values(2 * size);
  std::memcpy(values.data(), compare, size);
  std::memcpy(values.data() + size, swap, size);
  done->pending.fetch_add(1, std::memory_order_relaxed);
  return send(region.target, make_message(h, {Run{offset, size}}, values.data(), values.size()));
}

uint64_t AmRma::fetch_add64(const Region& region, uint64_t offset, uint64_t add) {
  return atomic64(region, offset, Atomic64Op::kFetchAdd, add, 0);
}

uint64_t AmRma::compare_swap64(const Region& region, uint64_t offset, uint64_t expected,
                               uint64_t desired) {
  return atomic64(region, offset, Atomic64Op::kCompareSwap, expected, desired);
}

uint64_t AmRma::load64(const Region& region, uint64_t offset) {
  return atomic64(region, offset, Atomic64Op::kLoad, 0, 0);
}

void AmRma::store64(const Region& region, uint64_t offset, uint64_t value) {
  (void)atomic64(region, offset, Atomic64Op::kStore, value, 0);
}

int AmRma::flush(int target) {
  if (g.total_outstanding == 0) return MPI_SUCCESS;
  if (target < 0) wait_until([] { return g.total_outstanding == 0; });
  else wait_until([target] { return g.outstanding[target] == 0; });
  return MPI_SUCCESS;
}

void am_register_window(uint64_t window_id, std::atomic<uint64_t>* acc_lock, bool memory_native) {
  ensure_handler();
  g.windows[window_id] = AmWindow{acc_lock, memory_native};
}

void am_unregister_window(uint64_t window_id) { g.windows.erase(window_id); }

}  // namespace stmpi::dev::rma
