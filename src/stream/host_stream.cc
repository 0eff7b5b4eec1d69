#include "stream/host_stream.h"

#include <cstring>
#include <new>

#include <mpi.h>

#include "stream/settings.h"
#include "util/error.h"

namespace stmpi::stream {
namespace {

bool word_ok(const volatile uint64_t* addr) {
  return addr != nullptr && reinterpret_cast<uintptr_t>(addr) % alignof(uint64_t) == 0;
}

int check(std::span<const SignalWrite> writes) {
  for (std::size_t i = 0; i < writes.size(); ++i) {
    if (!word_ok(writes[i].addr)) [[unlikely]]
      return util::make_error(MPI_ERR_ARG,
                              "signal write %zu: address %p is not an aligned 64-bit word", i,
                              static_cast<void*>(writes[i].addr));
  }
  return MPI_SUCCESS;
}

int check(std::span<const SignalWait> waits) {
  for (std::size_t i = 0; i < waits.size(); ++i) {
    if (!word_ok(waits[i].addr)) [[unlikely]]
      return util::make_error(MPI_ERR_ARG,
                              "signal wait %zu: address %p is not an aligned 64-bit word", i,
                              const_cast<uint64_t*>(waits[i].addr));
  }
  return MPI_SUCCESS;
}

int check(std::span<const CopyRange> ranges) {
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const CopyRange& range = ranges[i];
    if (range.bytes != 0 && (range.dst == nullptr || range.src == nullptr)) [[unlikely]]
      return util::make_error(MPI_ERR_ARG, "copy %zu: dst=%p src=%p with %zu bytes", i, range.dst,
                              range.src, range.bytes);
  }
  return MPI_SUCCESS;
}

// The inline forms of a queued operation (HostStreamExecutor::execute):
// true when done, false for a wait whose words are not all set yet.
bool run_entries(std::span<const SignalWrite> writes, Cmp) {
  for (const SignalWrite& write : writes)
    __atomic_store_n(write.addr, write.value, __ATOMIC_RELEASE);
  return true;
}

bool run_entries(std::span<const SignalWait> waits, Cmp cmp) {
  for (const SignalWait& wait : waits)
    if (!wait_satisfied(__atomic_load_n(wait.addr, __ATOMIC_ACQUIRE), wait.value, cmp))
      return false;
  return true;
}

bool run_entries(std::span<const CopyRange> ranges, Cmp) {
  for (const CopyRange& range : ranges)
    if (range.bytes != 0) std::memcpy(range.dst, range.src, range.bytes);
  return true;
}

}  // namespace

int HostStream::create(std::shared_ptr<HostStream>* out) {
  std::shared_ptr<HostStream> stream(new (std::nothrow) HostStream);
  if (stream == nullptr)
    return util::make_error(MPI_ERR_NO_MEM, "out of memory creating a host stream");
  const Settings& config = settings();
  if (int err =
          stream->executor_.start(effective_spin_us(), config.poll_sleep_us, config.caller_runs,
                                  config.inline_ops, config.yield_us, effective_polls_per_yield());
      err != MPI_SUCCESS)
    return err;
  *out = std::move(stream);
  return MPI_SUCCESS;
}

int HostStream::launch(HostFn fn, void* arg) {
  if (fn == nullptr) [[unlikely]]
    return util::make_error(MPI_ERR_ARG, "fn is NULL (host stream %p)", handle());
  HostOp op;
  op.kind = HostOpKind::kUser;
  op.payload.user = {fn, arg};
  if (int err = executor_.enqueue(op); err != MPI_SUCCESS) return err;
  count_launch(OpKind::kUser);
  return MPI_SUCCESS;
}

template <class Entry>
int HostStream::enqueue_entries(HostOpKind kind, OpKind counted, std::span<const Entry> entries,
                                Cmp cmp) {
  if (entries.empty()) return MPI_SUCCESS;
  if (int err = check(entries); err != MPI_SUCCESS) return err;
  // Nothing queued before it: done here and now, in stream order.
  if (executor_.run_inline_if_idle([&] { return run_entries(entries, cmp); },
                                   kind == HostOpKind::kWait)) {
    count_launch(counted);
    return MPI_SUCCESS;
  }
  HostOp op;
  op.kind = kind;
  op.cmp = cmp;
  if (!op.set_entries(entries)) [[unlikely]]
    return util::make_error(MPI_ERR_NO_MEM, "out of memory for %zu %s entries", entries.size(),
                            op_kind_name(counted));
  if (int err = executor_.enqueue(op); err != MPI_SUCCESS) return err;
  count_launch(counted);
  return MPI_SUCCESS;
}

int HostStream::write_values(std::span<const SignalWrite> writes) {
  return enqueue_entries(HostOpKind::kSignal, OpKind::kSignal, writes, Cmp::kGreaterEqual);
}

int HostStream::wait_values(std::span<const SignalWait> waits, Cmp cmp) {
  return enqueue_entries(HostOpKind::kWait, OpKind::kWait, waits, cmp);
}

int HostStream::copy(std::span<const CopyRange> ranges) {
  return enqueue_entries(HostOpKind::kCopy, OpKind::kCopy, ranges, Cmp::kGreaterEqual);
}

int HostStream::wait_copy_signal(const EpochStep& step) {
  if (step.waits.empty() && step.copies.empty() && step.writes.empty()) return MPI_SUCCESS;
  if (int err = check(step.waits); err != MPI_SUCCESS) return err;
  if (int err = check(step.copies); err != MPI_SUCCESS) return err;
  if (int err = check(step.writes); err != MPI_SUCCESS) return err;
  auto count = [&] {
    if (!step.waits.empty()) count_launch(OpKind::kWait);
    if (!step.copies.empty()) count_launch(OpKind::kCopy);
    if (!step.writes.empty()) count_launch(OpKind::kSignal);
  };
  if (executor_.run_inline_if_idle(
          [&] {
            if (!run_entries(step.waits, step.cmp)) return false;
            (void)run_entries(step.copies, step.cmp);
            return run_entries(step.writes, step.cmp);
          },
          !step.waits.empty())) {
    count();
    return MPI_SUCCESS;
  }
  HostOp op;
  op.kind = HostOpKind::kEpoch;
  op.cmp = step.cmp;
  op.payload.epoch = {step.waits.data(),
                      step.copies.data(),
                      step.writes.data(),
                      static_cast<uint32_t>(step.waits.size()),
                      static_cast<uint32_t>(step.copies.size()),
                      static_cast<uint32_t>(step.writes.size())};
  if (int err = executor_.enqueue(op); err != MPI_SUCCESS) return err;
  count();
  return MPI_SUCCESS;
}

int HostStream::run_program(const StepProgram& program) {
  if (program.steps.empty() && program.last.addr == nullptr) return MPI_SUCCESS;
  for (const EpochStep& step : program.steps) {
    if (int err = check(step.waits); err != MPI_SUCCESS) return err;
    if (int err = check(step.copies); err != MPI_SUCCESS) return err;
    if (int err = check(step.writes); err != MPI_SUCCESS) return err;
  }
  if (program.last.addr != nullptr)
    if (int err = check({&program.last, 1}); err != MPI_SUCCESS) return err;
  HostOp op;
  op.kind = HostOpKind::kProgram;
  op.payload.program = {program.steps.data(), program.bias, program.last,
                        static_cast<uint32_t>(program.steps.size()), 0};
  if (int err = executor_.enqueue(op); err != MPI_SUCCESS) return err;
  uint64_t waits = 0, copies = 0, signals = 0;
  for (const EpochStep& step : program.steps) {
    waits += !step.waits.empty();
    copies += !step.copies.empty();
    signals += !step.writes.empty();
  }
  count_launches(OpKind::kWait, waits);
  count_launches(OpKind::kCopy, copies);
  count_launches(OpKind::kSignal, signals);
  return MPI_SUCCESS;
}

int HostStream::synchronize() {
  if (executor_.on_executor_thread()) [[unlikely]]
    return util::make_error(
        MPI_ERR_OTHER,
        "host stream %p synchronized from an operation running on it (it would wait for itself)",
        handle());
  return executor_.synchronize();
}

}  // namespace stmpi::stream
