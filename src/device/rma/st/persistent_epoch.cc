#include "device/rma/st/persistent_epoch.h"

#include <new>
#include <span>

#include <mpi.h>

#include "device/progress.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {

int PersistentEpoch::create(StreamWindow& window, std::vector<int> origins,
                            std::unique_ptr<AccessPlan> plan,
                            std::unique_ptr<PersistentEpoch>* out) {
  std::unique_ptr<PersistentEpoch> epoch(
      new (std::nothrow) PersistentEpoch(window, std::move(origins), std::move(plan)));
  if (epoch == nullptr)
    return util::make_error(MPI_ERR_NO_MEM, "out of memory for a persistent stream epoch");
  // A program needs every call to land in memory this process maps and no
  // accumulate (those run in a host function at each epoch).
  bool local = epoch->plan_->accumulates == 0;
  for (const DeferredOp& op : epoch->plan_->ops)
    if (op.region.kind != RegionKind::kMapped || op.region.mapped == nullptr) local = false;
  for (int peer : epoch->origins_)
    if (!window.view().remote.empty() && window.view().remote[static_cast<std::size_t>(peer)])
      local = false;
  for (int peer : epoch->plan_->targets)
    if (!window.view().remote.empty() && window.view().remote[static_cast<std::size_t>(peer)])
      local = false;
  if (local) epoch->build_program();
  *out = std::move(epoch);
  return MPI_SUCCESS;
}

void PersistentEpoch::build_program() {
  const SignalWords& words = window_.view().words;
  const int rank = window_.view().rank;
  for (int origin : origins_) {
    exposure_base_.push_back(window_.exposures_to(origin));
    posts_.push_back({words.post(origin, rank), exposure_base_.back()});
    complete_waits_.push_back({words.complete(rank, origin), exposure_base_.back()});
  }
  for (int target : plan_->targets) {
    access_base_.push_back(window_.accesses_to(target));
    post_waits_.push_back({words.post(rank, target), access_base_.back()});
    completes_.push_back({words.complete(target, rank), access_base_.back()});
  }
  for (const DeferredOp& op : plan_->ops) append_copies(*plan_, op, &copies_);
  steps_[0] = {{}, stream::Cmp::kGreaterEqual, {}, posts_};
  steps_[1] = {post_waits_, stream::Cmp::kGreaterEqual, copies_, completes_};
  steps_[2] = {complete_waits_, stream::Cmp::kGreaterEqual, {}, {}};
  for (const stream::EpochStep& step : steps_) {
    program_tally_.wait += !step.waits.empty();
    program_tally_.copy += !step.copies.empty();
    program_tally_.signal += !step.writes.empty();
  }
  programmed_ = true;
}

bool PersistentEpoch::counts_in_step() {
  for (std::size_t i = 0; i < origins_.size(); ++i)
    if (window_.exposures_to(origins_[i]) != exposure_base_[i] + bias_) return false;
  for (std::size_t i = 0; i < plan_->targets.size(); ++i)
    if (window_.accesses_to(plan_->targets[i]) != access_base_[i] + bias_) return false;
  return true;
}

// Only while no program of this epoch is queued: the arrays are rewritten.
void PersistentEpoch::rebase() {
  for (std::size_t i = 0; i < origins_.size(); ++i) {
    exposure_base_[i] = window_.exposures_to(origins_[i]) - bias_;
    posts_[i].value = complete_waits_[i].value = exposure_base_[i];
  }
  for (std::size_t i = 0; i < plan_->targets.size(); ++i) {
    access_base_[i] = window_.accesses_to(plan_->targets[i]) - bias_;
    post_waits_[i].value = completes_[i].value = access_base_[i];
  }
}

bool PersistentEpoch::idle() const {
  for (const auto& [slot, seq] : issued_)
    if (!window_.ran(slot, seq)) return false;
  return true;
}

void PersistentEpoch::drain() {
  ProgressWait wait;
  while (!idle()) wait.pause();
}

int PersistentEpoch::start(stream::Stream& stream) {
  if (programmed_ && !counts_in_step()) {
    if (!idle()) return replay(stream);
    rebase();
  }
  if (!programmed_) return replay(stream);
  return start_program(stream);
}

int PersistentEpoch::start_program(stream::Stream& stream) {
  int slot = 0;
  uint64_t seq = 0;
  uint64_t* retire = nullptr;
  if (int err = window_.issue(stream, &slot, &seq, &retire); err != MPI_SUCCESS) return err;
  const stream::StepProgram program{steps_, bias_ + 1, {retire, seq}};
  // A host stream counts one launch per non-empty part (program_tally_);
  // other streams are asked.
  const bool host = stream.backend() == stream::BackendKind::kHost;
  const stream::LaunchCounts before = host ? stream::LaunchCounts{} : stream.launch_counts();
  if (int err = stream.run_program(program); err != MPI_SUCCESS) return err;
  LaunchTally tally = program_tally_;
  if (!host) {
    const stream::LaunchCounts after = stream.launch_counts();
    tally.signal = after[stream::OpKind::kSignal] - before[stream::OpKind::kSignal];
    tally.copy = after[stream::OpKind::kCopy] - before[stream::OpKind::kCopy];
    tally.wait = after[stream::OpKind::kWait] - before[stream::OpKind::kWait];
  }
  ++bias_;
  for (int origin : origins_) ++window_.exposures_to(origin);
  for (int target : plan_->targets) ++window_.accesses_to(target);
  bool known = false;
  for (auto& [s, last] : issued_)
    if (s == slot) last = seq, known = true;
  if (!known) issued_.emplace_back(slot, seq);
  window_.count_program(!plan_->targets.empty(), !origins_.empty(), tally);
  ++starts_;
  return MPI_SUCCESS;
}

int PersistentEpoch::replay(stream::Stream& stream) {
  const AccessPlan& plan = *plan_;
  if (!origins_.empty())
    if (int err = window_.post(origins_, stream); err != MPI_SUCCESS) return err;
  if (!plan.targets.empty()) {
    if (int err = window_.start(plan.targets); err != MPI_SUCCESS) return err;
    for (const DeferredOp& op : plan.ops) {
      const std::span<const Run> runs(plan.runs.data() + op.first_run, op.run_count);
      const std::span<const OriginPiece> pieces(plan.pieces.data() + op.first_piece,
                                                op.piece_count);
      if (int err = window_.record(op, runs, pieces); err != MPI_SUCCESS) {
        window_.abandon_access();
        return err;
      }
    }
    if (int err = window_.complete(stream); err != MPI_SUCCESS) return err;
  }
  if (!origins_.empty())
    if (int err = window_.wait(stream); err != MPI_SUCCESS) return err;
  ++starts_;
  ++replayed_;
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev::rma::st
