// The triggered-operation pool (ofi_triggered.h): counters, op slots, the
// native (FI_TRIGGER) and deferred (FI_QUEUE_WORK) posting paths, error
// capture. Operations the host runs: ofi_triggered_host.cc.
#include "device/ofi/ofi_triggered.h"

#include <rdma/fi_errno.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>

#include <mpi.h>

#include "config.h"
#include "device/ofi/fabric.h"
#include "device/ofi/ofi.h"
#include "device/ofi/ofi_rma.h"
#include "device/ofi/retry.h"
#include "device/ofi/settings.h"
#include "device/rma/accumulate.h"
#include "device/rma/st/settings.h"
#include "util/error.h"

#if defined(STMPI_HAVE_CXI_EXT)
#include <rdma/fi_cxi_ext.h>
#endif

namespace stmpi::dev::ofi {

using rma::st::trigger_mode_name;
using rma::st::TriggerMode;

namespace {

constexpr uint32_t kApiVersion = FI_VERSION(1, 9);
// How long a raised error count may wait for its completion-queue entry.
constexpr auto kErrorEntryGrace = std::chrono::milliseconds(200);

// fi_getinfo for the module's provider and attributes with FI_TRIGGER added:
// the provider's answer, or null when it has no such endpoint.
fi_info* trigger_info(const fi_info* chosen) {
  fi_info* hints = fi_dupinfo(chosen);
  if (hints == nullptr) return nullptr;
  hints->caps |= FI_TRIGGER;
  fi_info* list = nullptr;
  const int rc = fi_getinfo(kApiVersion, nullptr, nullptr, 0, hints, &list);
  fi_freeinfo(hints);
  if (rc != 0 || list == nullptr) return nullptr;
  fi_info* best = (list->caps & FI_TRIGGER) ? fi_dupinfo(list) : nullptr;
  fi_freeinfo(list);
  return best;
}

}  // namespace

TriggeredBudget budget_from_settings() {
  TriggeredBudget b;
  b.counters = rma::st::settings().counters;
  b.ops = rma::st::settings().triggered_ops;
  b.counter_limit = settings().st_counter_limit;
  return b;
}

TriggeredNic::TriggeredNic(Ofi& ofi, TriggerMode mode, const TriggeredBudget& budget)
    : ofi_(ofi), mode_(mode), budget_(budget) {}

TriggeredNic::~TriggeredNic() {
  // Endpoints first (they hold the counters and the CQ), then the rest.
  if (deferred_ep_) fi_close(&deferred_ep_->fid);
  for (Counter& c : counters_)
    if (c.ep) fi_close(&c.ep->fid);
  for (Counter& c : counters_)
    if (c.cntr) fi_close(&c.cntr->fid);
  if (deferred_errors_) fi_close(&deferred_errors_->fid);
  if (cq_) fi_close(&cq_->fid);
  if (info_) fi_freeinfo(info_);
}

int TriggeredNic::open(Ofi& ofi, TriggerMode mode, const TriggeredBudget& budget,
                       std::unique_ptr<TriggeredNic>* out) {
  Fabric& fabric = ofi.fabric();
  const fi_info* info = fabric.info();
  if (info == nullptr || fabric.domain() == nullptr)
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "triggered operations: the network module is not running");
  const char* prov = info->fabric_attr->prov_name;
  if (info->domain_attr->mr_mode & FI_MR_LOCAL)
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "%s triggered operations over provider %s: it needs local memory "
                            "registration (FI_MR_LOCAL), which this path does not do",
                            trigger_mode_name(mode), prov);
  fi_info* trig = trigger_info(info);
  if (mode != TriggerMode::kNative && mode != TriggerMode::kDeferred)
    return util::make_error(MPI_ERR_INTERN, "the network module has no software trigger path");
  if (mode == TriggerMode::kNative && trig == nullptr)
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "native triggered operations: provider %s does not offer FI_TRIGGER "
                            "(its capabilities: %s); use STMPI_ST_TRIGGER=software or auto",
                            prov, caps_text(info->caps).c_str());
  std::unique_ptr<TriggeredNic> nic(new TriggeredNic(ofi, mode, budget));
  const int rc = nic->setup(trig != nullptr ? trig : fi_dupinfo(info));
  if (rc != MPI_SUCCESS) return rc;
  *out = std::move(nic);
  return MPI_SUCCESS;
}

int TriggeredNic::setup(fi_info* trigger_info) {
  info_ = trigger_info;
  if (info_ == nullptr) return util::make_error(MPI_ERR_NO_MEM, "triggered operations: fi_dupinfo");
  // Like the module's rma endpoint: complete when visible at the target.
  info_->tx_attr->op_flags =
      (info_->tx_attr->op_flags & ~(FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE)) |
      FI_DELIVERY_COMPLETE;
  fid_domain* domain = ofi_.fabric().domain();
  const char* prov = info_->fabric_attr->prov_name;
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_CONTEXT;
  cq_attr.wait_obj = FI_WAIT_NONE;
  long rc = fi_cq_open(domain, &cq_attr, &cq_, nullptr);
  if (rc != 0)
    return util::make_error(MPI_ERR_OTHER, "triggered operations: %s",
                            fi_error("fi_cq_open", rc).c_str());
  counters_.resize(static_cast<std::size_t>(budget_.counters));
  atomic_write64_ = ofi_.atomic_valid(0, FI_ATOMIC_WRITE, FI_UINT64);
  if (mode_ == TriggerMode::kNative) return MPI_SUCCESS;

  // Deferred work: probe FI_QUEUE_WORK once with a counter add on a scratch
  // counter (threshold 0: it runs at once where the queue exists).
  fi_cntr_attr cattr{};
  cattr.events = FI_CNTR_EVENTS_COMP;
  cattr.wait_obj = FI_WAIT_NONE;
  rc = fi_cntr_open(domain, &cattr, &deferred_errors_, nullptr);
  if (rc != 0)
    return util::make_error(MPI_ERR_OTHER, "triggered operations: %s",
                            fi_error("fi_cntr_open", rc).c_str());
  fi_op_cntr add{deferred_errors_, 1};
  fi_deferred_work probe{};
  probe.threshold = 0;
  probe.triggering_cntr = deferred_errors_;
  probe.completion_cntr = deferred_errors_;
  probe.op_type = FI_OP_CNTR_ADD;
  probe.op.cntr = &add;
  rc = fi_control(&domain->fid, FI_QUEUE_WORK, &probe);
  bool ran = false;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (rc == 0 && !(ran = fi_cntr_read(deferred_errors_) >= 1) &&
         std::chrono::steady_clock::now() < end)
    sched_yield();
  if (rc != 0 || !ran)
    return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                            "deferred triggered operations: provider %s has no deferred work "
                            "queue (fi_control FI_QUEUE_WORK: %s); use STMPI_ST_TRIGGER=software "
                            "or auto",
                            prov, rc != 0 ? fi_strerror(static_cast<int>(-rc)) : "never ran");
  (void)fi_cntr_set(deferred_errors_, 0);
  const int err = open_endpoint(&deferred_ep_, deferred_errors_);
  return err;
}

int TriggeredNic::open_endpoint(fid_ep** ep, fid_cntr* bind_cntr) {
  Fabric& fabric = ofi_.fabric();
  long rc = fi_endpoint(fabric.domain(), info_, ep, nullptr);
  const char* call = "fi_endpoint";
  if (rc == 0) rc = fi_ep_bind(*ep, &fabric.rma().av->fid, 0), call = "fi_ep_bind(av)";
  if (rc == 0)
    rc = fi_ep_bind(*ep, &cq_->fid, FI_TRANSMIT | FI_SELECTIVE_COMPLETION), call = "fi_ep_bind(cq)";
  if (rc == 0) rc = fi_ep_bind(*ep, &bind_cntr->fid, FI_WRITE | FI_READ), call = "fi_ep_bind(cntr)";
  if (rc == 0) rc = fi_enable(*ep), call = "fi_enable";
  if (rc != 0)
    return util::make_error(MPI_ERR_OTHER, "triggered operations: %s", fi_error(call, rc).c_str());
  return MPI_SUCCESS;
}

int TriggeredNic::endpoint_for(Counter& c) {
  if (c.ep != nullptr) return MPI_SUCCESS;
  return open_endpoint(&c.ep, c.cntr);
}

uint64_t TriggeredNic::value_locked(const Counter& c) const {
  return c.base + fi_cntr_read(c.cntr);
}

// Nothing queued on the counter, and every operation that completes on it
// has completed (or failed, on the native path where failures count there).
bool TriggeredNic::idle_locked(const Counter& c) const {
  const uint64_t value = value_locked(c);
  if (value < c.max_threshold) return false;
  if (c.doorbell_used) return c.completions_owed == 0;
  const uint64_t failed = fi_cntr_readerr(c.cntr);
  return value >= c.added && value - c.added + failed >= c.completions_owed;
}

void TriggeredNic::rotate_locked(Counter& c) {
  const uint64_t physical = fi_cntr_read(c.cntr);
  (void)fi_cntr_set(c.cntr, 0);
  c.base += physical;
  ++stats_.rotations;
}

int TriggeredNic::physical_threshold(CounterId id, uint64_t threshold, uint64_t* out) {
  Counter& c = counters_[id];
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (threshold <= c.base) return *out = 0, MPI_SUCCESS;  // passed: fires at once
    if (threshold - c.base < budget_.counter_limit) return *out = threshold - c.base, MPI_SUCCESS;
    if (attempt == 0 && idle_locked(c)) rotate_locked(c);
  }
  return util::make_error(
      MPI_ERR_OTHER,
      "triggered operations: threshold %llu on counter %u is %llu past the counter's last reset, "
      "beyond STMPI_OFI_ST_COUNTER_LIMIT=%llu, while operations are pending on it (release it and "
      "acquire another)",
      static_cast<unsigned long long>(threshold), id,
      static_cast<unsigned long long>(threshold - c.base),
      static_cast<unsigned long long>(budget_.counter_limit));
}

// The counters are ours and the call fits in STMPI_ST_TRIGGERED_OPS.
int TriggeredNic::check_post(const char* what, CounterId trigger, CounterId completion) const {
  for (CounterId id : {trigger, completion})
    if (id >= counters_.size() || !counters_[id].in_use)
      return util::make_error(MPI_ERR_INTERN, "triggered %s: counter %u is not acquired", what, id);
  if (ops_in_use_ >= static_cast<uint64_t>(budget_.ops))
    return util::make_error(MPI_ERR_OTHER,
                            "triggered %s: all STMPI_ST_TRIGGERED_OPS=%d operations are in use "
                            "(their completion counters not released)",
                            what, budget_.ops);
  return MPI_SUCCESS;
}

TriggeredNic::Slot* TriggeredNic::take_slot() {
  if (free_slots_.empty()) {
    chunks_.push_back(std::make_unique<Slot[]>(kChunk));
    Slot* chunk = chunks_.back().get();
    for (std::size_t i = kChunk; i-- > 0;) free_slots_.push_back(&chunk[i]);
  }
  Slot* s = free_slots_.back();
  free_slots_.pop_back();
  *s = Slot{};
  return s;
}

int TriggeredNic::acquire_locked(CounterId* out) {
  CounterId id;
  if (!free_counters_.empty()) {
    id = free_counters_.back();
    free_counters_.pop_back();
  } else if (opened_counters_ < budget_.counters) {
    id = static_cast<CounterId>(opened_counters_);
    fi_cntr_attr attr{};
    attr.events = FI_CNTR_EVENTS_COMP;
    attr.wait_obj = FI_WAIT_NONE;
    const long rc = fi_cntr_open(ofi_.fabric().domain(), &attr, &counters_[id].cntr, nullptr);
    if (rc != 0)
      return util::make_error(MPI_ERR_OTHER, "triggered operations: %s",
                              fi_error("fi_cntr_open", rc).c_str());
    ++opened_counters_;
  } else {
    return -1;  // none free
  }
  counters_[id].in_use = true;
  ++stats_.counters_in_use;
  stats_.max_counters_in_use = std::max(stats_.max_counters_in_use, stats_.counters_in_use);
  *out = id;
  return MPI_SUCCESS;
}

int TriggeredNic::acquire_counter(CounterId* out, bool* available) {
  std::lock_guard lock(mutex_);
  const int rc = acquire_locked(out);
  *available = rc == MPI_SUCCESS;
  return rc == -1 ? MPI_SUCCESS : rc;
}

void TriggeredNic::recycle_locked(CounterId id) {
  Counter& c = counters_[id];
  if (!c.in_use) return;
  c.in_use = false;
  --stats_.counters_in_use;
  collect_errors_locked();
  for (CounterId j : c.joins) recycle_locked(j);
  c.joins.clear();
  if (c.error != MPI_SUCCESS || !idle_locked(c)) {
    // Work may still be queued on it or owe it a completion: a reset could
    // fire it. Retired with its slots; the pool shrinks by one.
    c.retired = true;
    ++stats_.retired;
    return;
  }
  for (Slot* s : c.slots) free_slots_.push_back(s);
  c.slots.clear();
  c.buffers.clear();
  c.stage.clear();
  ops_in_use_ -= c.units;
  c.units = 0;
  (void)fi_cntr_set(c.cntr, 0);
  (void)fi_cntr_seterr(c.cntr, 0);
  c.base = c.max_threshold = c.added = c.completions_owed = c.errors_seen = 0;
  c.unexplained_since = {};
  c.doorbell_used = false;
  free_counters_.push_back(id);
}

void TriggeredNic::release_counter(CounterId id) {
  std::lock_guard lock(mutex_);
  if (id < counters_.size()) recycle_locked(id);
}

uint64_t TriggeredNic::remote_address(const rma::Region& region, uint64_t offset) const {
  return ofi_.virt_addr() ? region.remote + offset : offset;
}

int TriggeredNic::post_write(const rma::Region& region, std::span<const rma::Run> runs,
                             std::span<const rma::st::OriginPiece> origin, CounterId trigger,
                             uint64_t threshold, CounterId completion) {
  std::lock_guard lock(mutex_);
  if (const int rc = check_post("write", trigger, completion)) return rc;
  // One piece per (target run, origin piece) overlap.
  std::vector<Piece> pieces;
  std::size_t o = 0;
  uint64_t used = 0;  // bytes of origin[o] already paired
  for (const rma::Run& run : runs) {
    uint64_t done = 0;
    while (done < run.bytes) {
      if (o >= origin.size())
        return util::make_error(MPI_ERR_INTERN, "triggered write: origin shorter than target");
      const uint64_t n = std::min(run.bytes - done, origin[o].bytes - used);
      if (n > 0) pieces.push_back({origin[o].addr + used, run.offset + done, n});
      done += n;
      used += n;
      if (used == origin[o].bytes) ++o, used = 0;
    }
  }
  return post_pieces(OpKind::kWrite, region, pieces, FI_ATOMIC_WRITE, FI_UINT8, 1, trigger,
                     threshold, completion);
}

int TriggeredNic::post_accumulate(const rma::Region& region, std::span<const rma::Run> runs,
                                  std::span<const rma::st::OriginPiece> origin,
                                  const rma::AccumulateOp& acc, CounterId trigger,
                                  uint64_t threshold, CounterId completion) {
  std::lock_guard lock(mutex_);
  if (const int rc = check_post("accumulate", trigger, completion)) return rc;
  fi_op op;
  fi_datatype type;
  std::size_t max_count = 0;
  const bool mapped = fi_op_of(acc.op, &op) && fi_datatype_of(acc.element, &type);
  // The NIC's atomic must be atomic with the target node's own origins,
  // which use CPU atomics only for aligned 8-byte integers (ofi_rma.h).
  bool nic = mapped && acc.element_size != 0 && rma::uses_native_atomics(region, acc) &&
             fi_atomicvalid(ofi_.fabric().rma().ep, type, op, &max_count) == 0 && max_count > 0;
  for (const rma::Run& run : runs) nic = nic && (region.remote + run.offset) % 8 == 0;
  if (!nic) {
    if (host_accumulate_ == nullptr)
      return util::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                              "triggered accumulate: the NIC cannot apply this operation on "
                              "these elements atomically with the target's other origins");
    HostOp op;
    op.region = region;
    op.runs.assign(runs.begin(), runs.end());
    op.pieces.assign(origin.begin(), origin.end());
    op.acc = acc;
    return queue_host_op_locked(std::move(op), trigger, threshold, completion);
  }
  const uint64_t max_bytes = max_count * acc.element_size;
  std::vector<Piece> pieces;
  std::size_t o = 0;
  uint64_t used = 0;
  for (const rma::Run& run : runs) {
    uint64_t done = 0;
    while (done < run.bytes) {
      if (o >= origin.size())
        return util::make_error(MPI_ERR_INTERN, "triggered accumulate: origin shorter than target");
      uint64_t n = std::min({run.bytes - done, origin[o].bytes - used, max_bytes});
      n -= n % acc.element_size;
      if (n == 0) return util::make_error(MPI_ERR_INTERN, "triggered accumulate: split element");
      pieces.push_back({origin[o].addr + used, run.offset + done, n});
      done += n;
      used += n;
      if (used == origin[o].bytes) ++o, used = 0;
    }
  }
  return post_pieces(OpKind::kAtomic, region, pieces, op, type, acc.element_size, trigger,
                     threshold, completion);
}

int TriggeredNic::post_signal(const rma::Region& region, uint64_t offset, uint64_t value,
                              CounterId trigger, uint64_t threshold, CounterId completion) {
  std::lock_guard lock(mutex_);
  if (const int rc = check_post("signal", trigger, completion)) return rc;
  if (region.kind != rma::RegionKind::kNet)
    return util::make_error(MPI_ERR_INTERN,
                            "triggered signal on a region of another node "
                            "that the network module did not register");
  uint64_t physical = 0;
  if (const int rc = physical_threshold(trigger, threshold, &physical)) return rc;
  const Piece piece{nullptr, offset, sizeof(uint64_t)};
  // A 64-bit atomic store where the provider has one, else an 8-byte write
  // (one writer per word: stores of absolute counts).
  const int rc = post_group(atomic_write64_ ? OpKind::kAtomic : OpKind::kWrite, region,
                            std::span<const Piece>(&piece, 1), FI_ATOMIC_WRITE, FI_UINT64, 8,
                            trigger, physical, completion, &value);
  if (rc == MPI_SUCCESS) ++ops_in_use_, ++counters_[completion].units;
  return rc;
}

int TriggeredNic::post_pieces(OpKind kind, const rma::Region& region, std::span<const Piece> pieces,
                              fi_op op, fi_datatype type, std::size_t element, CounterId trigger,
                              uint64_t threshold, CounterId completion) {
  if (region.kind != rma::RegionKind::kNet)
    return util::make_error(MPI_ERR_INTERN,
                            "triggered operation on a region of another node "
                            "that the network module did not register");
  Counter& comp = counters_[completion];
  if (pieces.empty()) {
    // Nothing to move: done at once (it still counts as one completion).
    ++comp.completions_owed;
    return fi_cntr_add(comp.cntr, 1) == 0
               ? MPI_SUCCESS
               : util::make_error(MPI_ERR_OTHER, "triggered operations: fi_cntr_add failed");
  }
  ++ops_in_use_;  // one unit of the budget per call, however many pieces
  ++comp.units;
  // The NIC reads a staging copy, made when the trigger is bumped (the
  // contract: the origin is read when the operation fires).
  uint64_t total = 0;
  for (const Piece& p : pieces) total += p.bytes;
  comp.buffers.push_back(std::make_unique<char[]>(total));
  std::vector<Piece> staged(pieces.begin(), pieces.end());
  char* at = comp.buffers.back().get();
  Counter& trig = counters_[trigger];
  for (Piece& p : staged) {
    trig.stage.push_back({threshold, p.addr, at, p.bytes});
    p.addr = at;
    at += p.bytes;
  }
  stage_locked(trig, value_locked(trig));  // already reached: it fires now
  pieces = staged;
  const std::size_t limit = std::max<std::size_t>(
      1, std::min<std::size_t>({static_cast<std::size_t>(kMaxIov), info_->tx_attr->iov_limit,
                                info_->tx_attr->rma_iov_limit}));
  const std::size_t groups = (pieces.size() + limit - 1) / limit;
  uint64_t physical = 0;
  if (const int rc = physical_threshold(trigger, threshold, &physical)) return rc;
  if (groups == 1)
    return post_group(kind, region, pieces, op, type, element, trigger, physical, completion,
                      nullptr);
  // More pieces than one provider call takes: the groups complete on a
  // private join counter, the last group is triggered by all of them and
  // completes on `completion`, which so sees one completion per call.
  CounterId join = 0;
  const int got = acquire_locked(&join);
  if (got != MPI_SUCCESS)
    return got == -1 ? util::make_error(MPI_ERR_OTHER,
                                        "triggered operations: a transfer of %zu pieces needs a "
                                        "join counter and all STMPI_ST_COUNTERS=%d are in use",
                                        pieces.size(), budget_.counters)
                     : got;
  comp.joins.push_back(join);
  for (std::size_t g = 0; g + 1 < groups; ++g) {
    const int rc = post_group(kind, region, pieces.subspan(g * limit, limit), op, type, element,
                              trigger, physical, join, nullptr);
    if (rc != MPI_SUCCESS) return rc;
  }
  return post_group(kind, region, pieces.subspan((groups - 1) * limit), op, type, element, join,
                    groups - 1, completion, nullptr);
}

int TriggeredNic::post_group(OpKind kind, const rma::Region& region, std::span<const Piece> group,
                             fi_op op, fi_datatype type, std::size_t element, CounterId trigger,
                             uint64_t physical, CounterId completion, const uint64_t* operand) {
  Slot& s = *take_slot();
  s.trigger = trigger;
  s.completion = completion;
  s.target = region.target;
  s.atomic_op = kind == OpKind::kAtomic;
  if (operand) s.operand = *operand;
  for (std::size_t i = 0; i < group.size(); ++i) {
    const Piece& p = group[i];
    void* src = operand ? static_cast<void*>(&s.operand) : p.addr;
    const uint64_t raddr = remote_address(region, p.offset);
    s.iov[i] = {src, p.bytes};
    s.rma_iov[i] = {raddr, p.bytes, region.key};
    s.ioc[i] = {src, p.bytes / element};
    s.rma_ioc[i] = {raddr, p.bytes / element, region.key};
  }
  Counter& trig = counters_[trigger];
  Counter& comp = counters_[completion];
  const fi_addr_t addr = ofi_.fabric().rma().peers[region.target];
  const std::size_t n = group.size();
  fi_msg_rma rma{s.iov, nullptr, n, addr, s.rma_iov, n, nullptr, 0};
  fi_msg_atomic atomic{s.ioc, nullptr, n, addr, s.rma_ioc, n, type, op, nullptr, 0};
  ssize_t rc;
  const char* call;
  if (mode_ == TriggerMode::kNative) {
    if (const int err = endpoint_for(comp)) return err;
    s.ctx.trig.event_type = FI_TRIGGER_THRESHOLD;
    s.ctx.trig.trigger.threshold.cntr = trig.cntr;
    s.ctx.trig.trigger.threshold.threshold = physical;
    rma.context = atomic.context = &s.ctx;
    const uint64_t flags = FI_TRIGGER | FI_DELIVERY_COMPLETE;
    call = s.atomic_op ? "fi_atomicmsg(FI_TRIGGER)" : "fi_writemsg(FI_TRIGGER)";
    rc = retry_eagain(comp.cntr, [&] {
      return s.atomic_op ? fi_atomicmsg(comp.ep, &atomic, flags)
                         : fi_writemsg(comp.ep, &rma, flags);
    });
  } else {
    s.work.threshold = physical;
    s.work.triggering_cntr = trig.cntr;
    s.work.completion_cntr = comp.cntr;  // never null (a null one crashes sockets)
    rma.context = atomic.context = &s.work.context;
    if (s.atomic_op) {
      s.atomic = {deferred_ep_, atomic, FI_DELIVERY_COMPLETE};
      s.work.op_type = FI_OP_ATOMIC;
      s.work.op.atomic = &s.atomic;
    } else {
      s.rma = {deferred_ep_, rma, FI_DELIVERY_COMPLETE};
      s.work.op_type = FI_OP_WRITE;
      s.work.op.rma = &s.rma;
    }
    call = "fi_control(FI_QUEUE_WORK)";
    fid_domain* domain = ofi_.fabric().domain();
    rc = retry_eagain(comp.cntr, [&] { return fi_control(&domain->fid, FI_QUEUE_WORK, &s.work); });
  }
  if (rc != 0) {
    free_slots_.push_back(&s);
    return util::make_error(MPI_ERR_OTHER, "triggered %s to rank %d: %s",
                            s.atomic_op ? "atomic" : "write", region.target,
                            fi_error(call, rc).c_str());
  }
  comp.slots.push_back(&s);
  ++comp.completions_owed;
  trig.max_threshold = std::max(trig.max_threshold, trig.base + physical);
  ++stats_.posted;
  return MPI_SUCCESS;
}

uint64_t* TriggeredNic::doorbell(CounterId id) {
#if defined(STMPI_HAVE_CXI_EXT)
  std::lock_guard lock(mutex_);
  if (id >= counters_.size() || !counters_[id].in_use) return nullptr;
  Counter& c = counters_[id];
  if (!c.stage.empty()) return nullptr;  // its bump must copy staged origins: a host function
  fi_cxi_cntr_ops* ops = nullptr;
  void* mmio = nullptr;
  size_t len = 0;
  if (fi_open_ops(&c.cntr->fid, FI_CXI_COUNTER_OPS, 0, reinterpret_cast<void**>(&ops), nullptr) !=
          0 ||
      ops->get_mmio_addr(&c.cntr->fid, &mmio, &len) != 0)
    return nullptr;
  c.doorbell_used = true;
  return static_cast<uint64_t*>(mmio);
#else
  (void)id;
  return nullptr;  // the stream calls add_counter from a host function
#endif
}

void TriggeredNic::stage_locked(Counter& c, uint64_t value) {
  if (c.stage.empty()) return;
  auto later = std::stable_partition(c.stage.begin(), c.stage.end(),
                                     [&](const StageTask& t) { return t.threshold <= value; });
  for (auto it = c.stage.begin(); it != later; ++it) std::memcpy(it->dst, it->src, it->bytes);
  c.stage.erase(c.stage.begin(), later);
}

int TriggeredNic::add_counter(CounterId id, uint64_t value) {
  std::lock_guard lock(mutex_);
  if (id >= counters_.size() || !counters_[id].in_use)
    return util::make_error(MPI_ERR_INTERN, "triggered operations: counter %u is not acquired", id);
  Counter& c = counters_[id];
  stage_locked(c, value_locked(c) + value);
  if (fi_cntr_read(c.cntr) + value >= budget_.counter_limit && idle_locked(c)) rotate_locked(c);
  if (fi_cntr_read(c.cntr) + value >= budget_.counter_limit)
    return util::make_error(MPI_ERR_OTHER,
                            "triggered operations: adding %llu to counter %u would pass "
                            "STMPI_OFI_ST_COUNTER_LIMIT=%llu while operations are pending on it",
                            static_cast<unsigned long long>(value), id,
                            static_cast<unsigned long long>(budget_.counter_limit));
  const int rc = fi_cntr_add(c.cntr, value);
  if (rc != 0)
    return util::make_error(MPI_ERR_OTHER, "triggered operations: %s",
                            fi_error("fi_cntr_add", rc).c_str());
  c.added += value;
  // Host operations queued and not finished (some may be running on another
  // thread that took them first): wait for them, run what this bump released.
  if (host_ops_unfinished_.load(std::memory_order_acquire) != 0) {
    mutex_.unlock();
    fire_host_ops(true);
    mutex_.lock();
  }
  return MPI_SUCCESS;
}

uint64_t TriggeredNic::read_counter(CounterId id) {
  if (host_ops_pending_) fire_host_ops(false);
  std::lock_guard lock(mutex_);
  if (id >= counters_.size() || counters_[id].cntr == nullptr) return 0;
  return value_locked(counters_[id]);
}

TriggeredNic::Slot* TriggeredNic::slot_of_context(void* context) {
  const char* p = static_cast<const char*>(context);
  for (const auto& chunk : chunks_) {
    const char* base = reinterpret_cast<const char*>(chunk.get());
    if (p < base || p >= base + sizeof(Slot) * kChunk) continue;
    Slot* s = &chunk[static_cast<std::size_t>(p - base) / sizeof(Slot)];
    return (context == &s->ctx || context == &s->work.context) ? s : nullptr;
  }
  return nullptr;
}

void TriggeredNic::collect_errors_locked() {
  bool attributed = false;
  for (int rounds = 0; rounds < 1024; ++rounds) {
    fi_cq_entry entry;
    const ssize_t n = fi_cq_read(cq_, &entry, 1);
    if (n != -FI_EAVAIL) {
      if (n > 0) continue;  // a success some provider reported anyway
      break;
    }
    fi_cq_err_entry err{};
    if (fi_cq_readerr(cq_, &err, 0) != 1) break;
    ++stats_.errors;
    const char* detail = fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0);
    Slot* s = slot_of_context(err.op_context);
    last_error_ =
        std::string(fi_strerror(err.err)) + " (provider: " + (detail ? detail : "no detail") + ")";
    if (s == nullptr) continue;
    attributed = true;
    // Reported by its completion counter and by its trigger counter.
    const int code = util::make_error(
        MPI_ERR_OTHER, "a triggered %s to rank %d failed (completion counter %u): %s",
        s->atomic_op ? "atomic" : "write", s->target, s->completion, last_error_.c_str());
    for (CounterId id : {s->completion, s->trigger})
      if (counters_[id].error == MPI_SUCCESS) counters_[id].error = code;
  }
  // A raised error count whose completion-queue entry has not been read yet
  // is held for kErrorEntryGrace: the provider bumps the count before it
  // queues the entry (sockets), and the entry names the op, its peer and
  // the provider's reason. Only after the grace does a bare count break the
  // counters with what is known.
  const auto now = std::chrono::steady_clock::now();
  const auto overdue = [&](std::chrono::steady_clock::time_point* since) {
    if (*since == std::chrono::steady_clock::time_point{}) *since = now;
    return now - *since >= kErrorEntryGrace;
  };
  const std::string text = last_error_.empty() ? "error count raised" : last_error_;
  // Native: failures also count on the op's completion counter.
  for (std::size_t id = 0; id < counters_.size(); ++id) {
    Counter& c = counters_[id];
    if (c.cntr == nullptr) continue;
    const uint64_t errors = fi_cntr_readerr(c.cntr);
    if (errors == c.errors_seen || c.error != MPI_SUCCESS) {
      c.errors_seen = errors;
      c.unexplained_since = {};
      continue;
    }
    if (!overdue(&c.unexplained_since)) continue;
    c.errors_seen = errors;
    c.unexplained_since = {};
    c.error = util::make_error(MPI_ERR_OTHER,
                               "a triggered operation completing on counter %zu failed: %s", id,
                               text.c_str());
  }
  // Deferred: failures count on the endpoint's counter; one the CQ did not
  // name breaks every counter still owed completions.
  if (deferred_errors_ != nullptr) {
    const uint64_t errors = fi_cntr_readerr(deferred_errors_);
    if (errors == deferred_errors_seen_ || attributed) {
      deferred_errors_seen_ = errors;
      deferred_unexplained_since_ = {};
    } else if (overdue(&deferred_unexplained_since_)) {
      deferred_errors_seen_ = errors;
      deferred_unexplained_since_ = {};
      for (std::size_t id = 0; id < counters_.size(); ++id) {
        Counter& c = counters_[id];
        if (c.in_use && c.completions_owed > 0 && c.error == MPI_SUCCESS && !idle_locked(c))
          c.error = util::make_error(MPI_ERR_OTHER,
                                     "a deferred triggered operation failed (counter %zu still "
                                     "owed completions): %s",
                                     id, text.c_str());
      }
    }
  }
}

int TriggeredNic::first_error(CounterId id) {
  if (host_ops_pending_) fire_host_ops(false);
  std::lock_guard lock(mutex_);
  collect_errors_locked();
  if (id >= counters_.size()) return MPI_SUCCESS;
  return counters_[id].error;
}

TriggeredStats TriggeredNic::stats() {
  std::lock_guard lock(mutex_);
  stats_.ops_in_use = ops_in_use_;
  return stats_;
}

std::size_t TriggeredNic::ops_free() {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(budget_.ops) - ops_in_use_;
}

}  // namespace stmpi::dev::ofi
