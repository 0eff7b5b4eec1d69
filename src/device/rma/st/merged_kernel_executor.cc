#include "device/rma/st/merged_kernel_executor.h"

#include <cstring>

#include <mpi.h>

#include "device/rma/st/triggered_op_executor.h"
#include "stream/gpu_stream.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {
namespace {

using stream::OpKind;

// Runs `enqueue` and adds the launches it made on `stream` of `kind` to
// `count` (a GPU batch too large for one kernel is several launches).
template <class Enqueue>
int counted(stream::Stream& stream, OpKind kind, uint64_t* count, Enqueue&& enqueue) {
  const uint64_t before = stream.launch_count(kind);
  const int err = enqueue();
  *count += stream.launch_count(kind) - before;
  return err;
}

// Host function of an epoch: its copies (host streams with accumulates or
// operations between nodes), its accumulates, then the release of its
// triggered operations, in the stream's order.
void run_epoch_data(void* arg) {
  AccessPlan& plan = *static_cast<AccessPlan*>(arg);
  if (plan.copies_on_host_fn)
    for (const stream::CopyRange& range : plan.copies)
      std::memcpy(range.dst, range.src, range.bytes);
  if (plan.accumulates != 0) apply_accumulates(plan);
  if (plan.trigger_fn != nullptr) plan.trigger_fn(plan);
}

}  // namespace

MergedKernelExecutor::~MergedKernelExecutor() {
  if (registered_with_ == nullptr) return;
  for (const HostRange& range : host_memory_) (void)registered_with_->unregister_host(range.addr);
}

int MergedKernelExecutor::attach_stream(stream::Stream& stream) {
  if (stream.backend() == stream::BackendKind::kHost) return MPI_SUCCESS;
  // Every stream that is not a host stream wraps a GPU runtime's stream.
  stream::GpuRuntime& gpu = static_cast<stream::GpuStream&>(stream).runtime();
  if (registered_with_ == &gpu) return MPI_SUCCESS;
  if (registered_with_ != nullptr)
    return util::make_error(
        MPI_ERR_OTHER, "stream %p belongs to another GPU runtime than the window's earlier streams",
        stream.handle());
  for (std::size_t i = 0; i < host_memory_.size(); ++i) {
    if (int err = gpu.register_host(host_memory_[i].addr, host_memory_[i].bytes);
        err != MPI_SUCCESS) {
      while (i-- > 0) (void)gpu.unregister_host(host_memory_[i].addr);
      return err;
    }
  }
  registered_with_ = &gpu;
  return MPI_SUCCESS;
}

int MergedKernelExecutor::record(AccessPlan& plan, std::size_t index) {
  const DeferredOp& op = plan.ops[index];
  if (op.region.kind == RegionKind::kMapped && op.region.mapped != nullptr) return MPI_SUCCESS;
  if (remote_ != nullptr && op.region.kind == RegionKind::kNet) return remote_->record(plan, index);
  return util::make_error(
      MPI_ERR_RMA_FLAVOR,
      "the window memory of rank %d is not mapped by this process, so a stream cannot reach it "
      "(stream-triggered epochs need MPI_Win_allocate or MPI_Win_allocate_shared windows)",
      op.target);
}

int MergedKernelExecutor::post(const ExposurePlan& plan, stream::Stream& stream,
                               LaunchTally* tally) {
  writes_.clear();
  bool remote = false;
  for (std::size_t i = 0; i < plan.origins.size(); ++i) {
    if (remote_ != nullptr && remote_->is_remote(plan.origins[i])) {
      remote = true;
      continue;
    }
    writes_.push_back({words_.post(plan.origins[i], rank_), plan.epochs[i]});
  }
  if (remote) return remote_->post_with(plan, writes_, stream, tally);
  if (writes_.empty()) return MPI_SUCCESS;
  return counted(stream, OpKind::kSignal, &tally->signal,
                 [&] { return stream.write_values(writes_); });
}

int MergedKernelExecutor::move_data(AccessPlan& plan, stream::Stream& stream, LaunchTally* tally) {
  plan.copies.clear();
  uint32_t local_accumulates = 0;
  for (const DeferredOp& op : plan.ops) {
    if (op.region.kind != RegionKind::kMapped) continue;
    if (op.kind != DeferredKind::kAccumulate) append_copies(plan, op, &plan.copies);
    else ++local_accumulates;
  }
  plan.accumulates = local_accumulates;
  if (remote_ != nullptr)
    if (int err = remote_->arm(plan); err != MPI_SUCCESS) return err;
  const bool host_fn = plan.accumulates != 0 || plan.trigger_fn != nullptr;
  if (plan.trigger_fn != nullptr && plan.doorbell != nullptr && plan.accumulates == 0 &&
      stream.backend() != stream::BackendKind::kHost) {
    // A GPU stream with the NIC's doorbell: copies, then one store releases
    // the triggered operations.
    if (!plan.copies.empty())
      if (int err =
              counted(stream, OpKind::kCopy, &tally->copy,
                      [&] { return stream.copy(std::span<const stream::CopyRange>(plan.copies)); });
          err != MPI_SUCCESS)
        return err;
    if (int err = stream.write_value(plan.doorbell, 1); err != MPI_SUCCESS) return err;
    if (plan.copies.empty()) ++tally->copy;
    return MPI_SUCCESS;
  }
  if (host_fn && stream.backend() == stream::BackendKind::kHost) {
    plan.copies_on_host_fn = true;
    if (int err = stream.launch(run_epoch_data, &plan); err != MPI_SUCCESS) return err;
    ++tally->copy;
    return MPI_SUCCESS;
  }
  if (!plan.copies.empty()) {
    if (int err =
            counted(stream, OpKind::kCopy, &tally->copy,
                    [&] { return stream.copy(std::span<const stream::CopyRange>(plan.copies)); });
        err != MPI_SUCCESS)
      return err;
  }
  if (host_fn) {
    if (int err = stream.launch(run_epoch_data, &plan); err != MPI_SUCCESS) return err;
    ++tally->copy;
  }
  return MPI_SUCCESS;
}

int MergedKernelExecutor::complete_in_one_step(AccessPlan& plan, stream::Stream& stream,
                                               uint64_t* retire_word, LaunchTally* tally) {
  plan.waits.clear();
  plan.writes.clear();
  plan.copies.clear();
  for (std::size_t i = 0; i < plan.targets.size(); ++i) {
    plan.waits.push_back({words_.post(rank_, plan.targets[i]), plan.epochs[i]});
    plan.writes.push_back({words_.complete(plan.targets[i], rank_), plan.epochs[i]});
  }
  for (const DeferredOp& op : plan.ops) append_copies(plan, op, &plan.copies);
  plan.writes.push_back({retire_word, plan.seq});
  const uint64_t waits = stream.launch_count(OpKind::kWait);
  const uint64_t copies = stream.launch_count(OpKind::kCopy);
  const uint64_t signals = stream.launch_count(OpKind::kSignal);
  const int err =
      stream.wait_copy_signal({plan.waits, stream::Cmp::kGreaterEqual, plan.copies, plan.writes});
  tally->wait += stream.launch_count(OpKind::kWait) - waits;
  tally->copy += stream.launch_count(OpKind::kCopy) - copies;
  tally->signal += stream.launch_count(OpKind::kSignal) - signals;
  return err;
}

int MergedKernelExecutor::complete(AccessPlan& plan, stream::Stream& stream, uint64_t* retire_word,
                                   LaunchTally* tally) {
  // Every op is to mapped memory (record() checked) and none needs a host
  // function.
  if (remote_ == nullptr && plan.accumulates == 0)
    return complete_in_one_step(plan, stream, retire_word, tally);
  waits_.clear();
  for (std::size_t i = 0; i < plan.targets.size(); ++i)
    waits_.push_back({words_.post(rank_, plan.targets[i]), plan.epochs[i]});
  if (remote_ != nullptr) {
    if (int err = remote_->checked_wait(waits_, plan.targets, true, stream, tally);
        err != MPI_SUCCESS)
      return err;
  } else if (!waits_.empty()) {
    if (int err = counted(stream, OpKind::kWait, &tally->wait,
                          [&] { return stream.wait_values(waits_, stream::Cmp::kGreaterEqual); });
        err != MPI_SUCCESS)
      return err;
  }
  if (int err = move_data(plan, stream, tally); err != MPI_SUCCESS) return err;
  writes_.clear();
  for (std::size_t i = 0; i < plan.targets.size(); ++i)
    if (remote_ == nullptr || !remote_->is_remote(plan.targets[i]))
      writes_.push_back({words_.complete(plan.targets[i], rank_), plan.epochs[i]});
  writes_.push_back({retire_word, plan.seq});
  return counted(stream, OpKind::kSignal, &tally->signal,
                 [&] { return stream.write_values(writes_); });
}

int MergedKernelExecutor::wait(const ExposurePlan& plan, stream::Stream& stream,
                               LaunchTally* tally) {
  waits_.clear();
  for (std::size_t i = 0; i < plan.origins.size(); ++i)
    waits_.push_back({words_.complete(rank_, plan.origins[i]), plan.epochs[i]});
  if (remote_ != nullptr) return remote_->checked_wait(waits_, plan.origins, false, stream, tally);
  if (waits_.empty()) return MPI_SUCCESS;
  return counted(stream, OpKind::kWait, &tally->wait,
                 [&] { return stream.wait_values(waits_, stream::Cmp::kGreaterEqual); });
}

}  // namespace stmpi::dev::rma::st
