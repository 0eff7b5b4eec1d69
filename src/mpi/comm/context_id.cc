#include "mpi/comm/context_id.h"

#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>

#include <mpi.h>

#include "device/match/key.h"
#include "device/progress.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/comm/comm.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"

namespace stmpi::mpi {
namespace {

// Bit i of the mask stands for context id 2*i; set means free.
constexpr uint32_t kIds = (dev::match::kMaxContextId + 1) / 2;
constexpr std::size_t kWords = kIds / 64;
static_assert(kIds % 64 == 0);

// The blocking reserve: 1024 ids just below the bootstrap ids (the last
// word), offered only by blocking constructions. A blocking construction
// that meets a nonblocking one holding the rest of the mask (an
// MPI_Comm_idup started before an MPI_Comm_create_group on some processes
// and after it on others) agrees on a reserve id instead of waiting for a
// construction that cannot move until it returns. Lowest ids are taken
// first, so the reserve is used only then, or once the rest is full.
constexpr std::size_t kReserveWords = 16;
constexpr std::size_t kReserveEnd = kWords - 1;  // the bootstrap ids' word
constexpr std::size_t kReserveBegin = kReserveEnd - kReserveWords;
static_assert(kBootstrapContextIds == 64 && kReserveBegin > 0);

bool in_reserve(std::size_t word) { return word >= kReserveBegin && word < kReserveEnd; }

// The local pool: 64 ids just below the reserve that no agreement offers,
// for communicators of one process (MPI_COMM_SELF's duplicates), whose id
// needs to be unique in this process only. They are taken at once, without
// rounds, so such a construction never waits for the mask another
// construction's round holds. Waiting there could deadlock: under
// MPI_THREAD_MULTIPLE, a thread duplicating MPI_COMM_SELF inside an
// application lock while another thread's round on a larger communicator
// waits for a process whose own MPI_COMM_SELF duplication waits for its
// round (MPICH's threads/comm/comm_dup_deadlock). When the pool is full,
// such constructions agree like the others (one word: every id set aside
// here is one fewer for communicators of several processes).
constexpr std::size_t kLocalWords = 1;
constexpr std::size_t kLocalEnd = kReserveBegin;
constexpr std::size_t kLocalBegin = kLocalEnd - kLocalWords;
static_assert(kLocalBegin > 0);

bool in_local(std::size_t word) { return word >= kLocalBegin && word < kLocalEnd; }

struct ContextIdState {
  std::mutex mutex;
  std::array<uint64_t, kWords> free_mask;
  // Keys (agreement_key) of the constructions in progress in this process
  // (a multiset: equal keys, which only erroneous programs produce, must
  // not let one construction's end erase the other's entry), and of the
  // blocking ones among them.
  std::multiset<uint64_t> in_flight;
  std::multiset<uint64_t> blocking_in_flight;
  bool mask_offered = false;     // a construction's round holds the mask outside the reserve
  bool reserve_offered = false;  // a blocking construction's round holds the reserve

  ContextIdState() { free_mask.fill(~uint64_t{0}); }
};

ContextIdState& state() {
  static ContextIdState s;
  return s;
}

void set_used(ContextIdState& s, uint32_t id, bool used) {
  const uint32_t bit = id / 2;
  const uint64_t flag = uint64_t{1} << (bit % 64);
  if (used) s.free_mask[bit / 64] &= ~flag;
  else s.free_mask[bit / 64] |= flag;
}

// The `count` lowest set bits of the reduced mask, or false if fewer are set.
bool lowest_free(const uint64_t* mask, int count, long* bits, std::size_t words = kWords) {
  int found = 0;
  for (std::size_t w = 0; w < words && found < count; ++w) {
    uint64_t word = mask[w];
    while (word != 0 && found < count) {
      bits[found++] = static_cast<long>(w * 64 + std::countr_zero(word));
      word &= word - 1;
    }
  }
  return found == count;
}

coll::Reduction bitwise_and() {
  coll::Reduction reduction;
  reduction.commutative = true;
  reduction.apply = [](const void* in, void* inout, MPI_Count count) {
    const auto* a = static_cast<const unsigned char*>(in);
    auto* b = static_cast<unsigned char*>(inout);
    for (MPI_Count i = 0; i < count; ++i) b[i] &= a[i];
    return MPI_SUCCESS;
  };
  return reduction;
}

// Constructions in flight are ordered by (parent context id, the parent's
// collective sequence number at the start): unique within a process, the
// same on every member of the parent.
uint64_t agreement_key(uint32_t parent_context_id, uint32_t sequence) {
  return (uint64_t{parent_context_id} << 32) | sequence;
}

// One construction's side of the agreement: its offers, round by round,
// and the outcome of each combined offer (see context_id.h, "Threads").
struct Agreement {
  enum class Outcome { kFound, kRetry, kFailed };
  uint64_t key;
  int count;
  bool blocking;                  // may offer the blocking reserve
  bool offering = false;          // this round's offer holds the mask outside the reserve
  bool offering_reserve = false;  // ... and the reserve
  bool in_flight = false;         // in the priority order
  // kWords mask words, then the "everyone offered all it may" word.
  std::array<uint64_t, kWords + 1> offer{};

  // Under MPI_THREAD_MULTIPLE a construction enters the priority order only
  // once every process has arrived (its first round offers nothing); in
  // other processes at once (see context_id.h, "Arrival").
  Agreement(uint64_t k, int n, bool is_blocking) : key(k), count(n), blocking(is_blocking) {
    if (thread_level() != MPI_THREAD_MULTIPLE) join();
  }

  void join() {
    ContextIdState& s = state();
    std::lock_guard lock(s.mutex);
    join(s);
  }
  void join(ContextIdState& s) {
    s.in_flight.insert(key);
    if (blocking) s.blocking_in_flight.insert(key);
    in_flight = true;
  }
  ~Agreement() { abandon(); }
  Agreement(const Agreement&) = delete;
  Agreement& operator=(const Agreement&) = delete;

  // Fills `offer` for the next round: the real mask outside the reserve if
  // no other construction of this process holds it and none with a lower
  // key waits; for a blocking construction, the real reserve likewise among
  // the blocking ones. Nothing else is free in the offer.
  void make_offer() {
    ContextIdState& s = state();
    std::lock_guard lock(s.mutex);
    offer.fill(0);
    if (!in_flight) return;  // the arrival round
    offering = !s.mask_offered && !s.in_flight.empty() && *s.in_flight.begin() == key;
    offering_reserve = blocking && !s.reserve_offered && !s.blocking_in_flight.empty() &&
                       *s.blocking_in_flight.begin() == key;
    if (offering) s.mask_offered = true;
    if (offering_reserve) s.reserve_offered = true;
    for (std::size_t w = 0; w < kWords; ++w)
      if (!in_local(w) && (in_reserve(w) ? offering_reserve : offering)) offer[w] = s.free_mask[w];
    offer[kWords] = offering && (offering_reserve || !blocking) ? ~uint64_t{0} : 0;
  }

  // Reads the combined offer (err: how combining went): found (ids marked
  // used here), retry, or failed (an error, or no id free anywhere).
  Outcome settle(int err, uint32_t* ids) {
    long bits[kMaxIdsPerAllocation];
    const bool found = err == MPI_SUCCESS && lowest_free(offer.data(), count, bits);
    ContextIdState& s = state();
    std::lock_guard lock(s.mutex);
    release_offers(s);
    // Free bits mean every process offered them, this one too.
    if (found) {
      for (int i = 0; i < count; ++i) {
        set_used(s, static_cast<uint32_t>(bits[i]) * 2, true);
        ids[i] = static_cast<uint32_t>(bits[i]) * 2;
      }
    }
    if (err != MPI_SUCCESS || found || offer[kWords] != 0) leave(s);
    if (found) return Outcome::kFound;
    if (err == MPI_SUCCESS && !in_flight && offer[kWords] == 0) {
      join(s);  // the arrival round: every process has reached this construction
      return Outcome::kRetry;
    }
    return err != MPI_SUCCESS || offer[kWords] != 0 ? Outcome::kFailed : Outcome::kRetry;
  }

  // Leaves the agreement (an error outside settle()).
  void abandon() {
    ContextIdState& s = state();
    std::lock_guard lock(s.mutex);
    release_offers(s);
    leave(s);
  }

  void release_offers(ContextIdState& s) {
    if (offering) s.mask_offered = false;
    if (offering_reserve) s.reserve_offered = false;
    offering = offering_reserve = false;
  }

  // Removes this construction's entries (one of equal keys), once.
  void leave(ContextIdState& s) {
    if (!in_flight) return;
    if (auto it = s.in_flight.find(key); it != s.in_flight.end()) s.in_flight.erase(it);
    if (blocking)
      if (auto it = s.blocking_in_flight.find(key); it != s.blocking_in_flight.end())
        s.blocking_in_flight.erase(it);
    in_flight = false;
  }
};

int out_of_ids(const Comm& parent) {
  return errhan::make_error(MPI_ERR_OTHER,
                            "out of context ids: all %u communicator ids are in use in some "
                            "process of the parent communicator (size %d); free communicators",
                            kIds, parent.size);
}

}  // namespace

int context_id_allocate(Comm& parent, uint32_t* id) {
  if (!parent.is_inter() && parent.size == 1) {
    // One process agrees with itself: the local pool, at once.
    ContextIdState& s = state();
    std::lock_guard lock(s.mutex);
    long bit = 0;
    if (lowest_free(s.free_mask.data() + kLocalBegin, 1, &bit, kLocalWords)) {
      *id = static_cast<uint32_t>(kLocalBegin * 64 + static_cast<std::size_t>(bit)) * 2;
      set_used(s, *id, true);
      return MPI_SUCCESS;
    }
  }
  return context_id_allocate_n(parent, 1, id, [&parent](void* offer, std::size_t bytes) {
    return coll::allreduce(MPI_IN_PLACE, offer, static_cast<MPI_Count>(bytes), coll::byte_type(),
                           bitwise_and(), parent);
  });
}

void context_id_and(const void* in, void* inout, std::size_t bytes) {
  const auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (std::size_t i = 0; i < bytes; ++i) b[i] &= a[i];
}

std::size_t context_id_offer_bytes() { return (kWords + 1) * sizeof(uint64_t); }

int context_id_allocate_n(Comm& parent, int count, uint32_t* ids, const ContextIdCombine& combine) {
  Agreement a(agreement_key(parent.context_id, parent.coll_seq), count, true);
  for (;;) {
    a.make_offer();
    const int err = combine(a.offer.data(), sizeof a.offer);
    switch (a.settle(err, ids)) {
      case Agreement::Outcome::kFound: return MPI_SUCCESS;
      case Agreement::Outcome::kFailed: return err != MPI_SUCCESS ? err : out_of_ids(parent);
      case Agreement::Outcome::kRetry:
        // The construction holding the mask may be a nonblocking one that
        // only moves when this process polls.
        dev::progress();
        wait_yield();
        break;
    }
  }
}

namespace {

// One nonblocking agreement appended to a schedule: an offer, the AND
// allreduce, and the settling step, which appends another round when
// some process could not offer (every process decides alike, from the
// same reduced bytes).
struct ScheduledAgreement {
  Agreement agreement;
  std::function<void(int err, const uint32_t* ids)> done;
  // On an intercommunicator: the AND of the remote group's offers, then
  // the AND of the local group's (see append_agreement_round).
  std::array<uint64_t, kWords + 1> remote{}, local{};
  ScheduledAgreement(uint64_t key, int count, std::function<void(int, const uint32_t*)> fn)
      : agreement(key, count, false), done(std::move(fn)) {}
};

// The AND of every offer into sa->agreement.offer, identically everywhere.
// Intracommunicator: an allreduce. Intercommunicator (its allreduce gives
// each group the other group's reduction): one allreduce gives the remote
// group's AND; a second, of those results, gives back the local group's
// AND; the two together are the AND over both groups.
int append_combine(coll::Schedule& s, const std::shared_ptr<ScheduledAgreement>& sa) {
  const auto bytes = static_cast<MPI_Count>(sizeof sa->agreement.offer);
  if (!s.comm().is_inter())
    return coll::build_allreduce(s, MPI_IN_PLACE, sa->agreement.offer.data(), bytes,
                                 coll::byte_type());
  if (int err = coll::build_allreduce(s, sa->agreement.offer.data(), sa->remote.data(), bytes,
                                      coll::byte_type());
      err != MPI_SUCCESS)
    return err;
  s.fence();
  if (int err =
          coll::build_allreduce(s, sa->remote.data(), sa->local.data(), bytes, coll::byte_type());
      err != MPI_SUCCESS)
    return err;
  s.fence();
  s.call([sa](coll::Schedule&) {
    sa->agreement.offer = sa->remote;
    context_id_and(sa->local.data(), sa->agreement.offer.data(), sizeof sa->agreement.offer);
    return MPI_SUCCESS;
  });
  return MPI_SUCCESS;
}

int append_agreement_round(coll::Schedule& s, const std::shared_ptr<ScheduledAgreement>& sa) {
  s.call([sa](coll::Schedule&) {
    sa->agreement.make_offer();
    return MPI_SUCCESS;
  });
  if (int err = append_combine(s, sa); err != MPI_SUCCESS) return err;
  s.fence();
  s.call([sa](coll::Schedule& sched) {
    uint32_t ids[kMaxIdsPerAllocation] = {};
    const int err = sched.error();
    switch (sa->agreement.settle(err, ids)) {
      case Agreement::Outcome::kFound: sa->done(MPI_SUCCESS, ids); return MPI_SUCCESS;
      case Agreement::Outcome::kFailed: {
        const int code = err != MPI_SUCCESS ? err : out_of_ids(sched.comm());
        sa->done(code, nullptr);
        return code;
      }
      case Agreement::Outcome::kRetry: break;
    }
    // Another construction holds this process's mask (or a lower one waits):
    // let it progress before offering again.
    sched.defer();
    sched.fence();
    const int code = append_agreement_round(sched, sa);
    if (code != MPI_SUCCESS) {
      sa->agreement.abandon();
      sa->done(code, nullptr);
    }
    return code;
  });
  s.fence();
  return MPI_SUCCESS;
}

}  // namespace

int context_id_schedule(coll::Schedule& s, std::function<void(int err, uint32_t id)> done) {
  return context_id_schedule_n(s, 1, [done = std::move(done)](int err, const uint32_t* ids) {
    done(err, ids != nullptr ? ids[0] : 0);
  });
}

int context_id_schedule_n(coll::Schedule& s, int count,
                          std::function<void(int err, const uint32_t* ids)> done) {
  s.set_reduction(bitwise_and());
  auto sa = std::make_shared<ScheduledAgreement>(agreement_key(s.comm().context_id, s.sequence()),
                                                 count, std::move(done));
  const int err = append_agreement_round(s, sa);
  if (err != MPI_SUCCESS) sa->agreement.abandon();
  return err;
}

void context_id_reserve(uint32_t id) {
  ContextIdState& s = state();
  std::lock_guard lock(s.mutex);
  set_used(s, id, true);
}

void context_id_release(uint32_t id) {
  if (id == kNoContextId) return;
  ContextIdState& s = state();
  std::lock_guard lock(s.mutex);
  set_used(s, id, false);
}

uint32_t bootstrap_context_id(uint64_t hash) {
  return 2 * (kIds - kBootstrapContextIds + static_cast<uint32_t>(hash % kBootstrapContextIds));
}

void context_id_reset() {
  ContextIdState& s = state();
  std::lock_guard lock(s.mutex);
  s.free_mask.fill(~uint64_t{0});
  for (uint32_t i = 0; i < kBootstrapContextIds; ++i) set_used(s, bootstrap_context_id(i), true);
  s.in_flight.clear();
  s.blocking_in_flight.clear();
  s.mask_offered = false;
  s.reserve_offered = false;
}

}  // namespace stmpi::mpi
