// HostStream: the Stream of the host backend, behind every MPIX_Host_stream.
// Its handle (the MPIX_Host_stream value) is its own address.
#pragma once

#include <memory>
#include <span>

#include "stream/host_stream_executor.h"
#include "stream/stream.h"

namespace stmpi::stream {

class HostStream final : public Stream {
 public:
  // A stream with a running executor thread; MPI_SUCCESS or an error code.
  [[nodiscard]] static int create(std::shared_ptr<HostStream>* out);
  // Runs what is still queued, then stops the thread.
  ~HostStream() override = default;

  BackendKind backend() const override { return BackendKind::kHost; }
  void* handle() const override { return const_cast<HostStream*>(this); }

  [[nodiscard]] int launch(HostFn fn, void* arg) override;
  [[nodiscard]] int write_values(std::span<const SignalWrite> writes) override;
  [[nodiscard]] int wait_values(std::span<const SignalWait> waits, Cmp cmp) override;
  [[nodiscard]] int copy(std::span<const CopyRange> ranges) override;
  [[nodiscard]] int synchronize() override;
  // One queued operation (or none, when it runs at enqueue on an idle stream).
  [[nodiscard]] int wait_copy_signal(const EpochStep& step) override;
  // One queued operation, never run at enqueue (its later steps usually
  // wait for what peers do after its first ones).
  [[nodiscard]] int run_program(const StepProgram& program) override;
  using Stream::copy;

  // Runs what is queued and stops the thread; later enqueues fail.
  void shut_down() { executor_.stop(); }

  const HostStreamExecutor& executor() const { return executor_; }
  // Ready library operations at the front of the queue (HostStreamExecutor::run_ready).
  uint64_t run_ready() { return executor_.run_ready(); }

 private:
  HostStream() = default;

  template <class Entry>
  [[nodiscard]] int enqueue_entries(HostOpKind kind, OpKind counted, std::span<const Entry> entries,
                                    Cmp cmp);

  HostStreamExecutor executor_;
};

}  // namespace stmpi::stream
