#include "mpi/comm/context_id.h"

#include <array>
#include <bit>
#include <cstring>
#include <mutex>
#include <set>

#include <mpi.h>

#include "device/match/key.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/errhan/error.h"
#include "mpi/init/state.h"

namespace stmpi::mpi {
namespace {

// Bit i of the mask stands for context id 2*i; set means free.
constexpr uint32_t kIds = (dev::match::kMaxContextId + 1) / 2;
constexpr std::size_t kWords = kIds / 64;
static_assert(kIds % 64 == 0);

struct ContextIdState {
  std::mutex mutex;
  std::array<uint64_t, kWords> free_mask;
  // Parent context ids of the constructions in progress in this process.
  std::set<uint32_t> in_flight;
  bool mask_offered = false;  // a construction's round holds the real mask

  ContextIdState() { free_mask.fill(~uint64_t{0}); }
};

ContextIdState& state() {
  static ContextIdState s;
  return s;
}

void set_used(ContextIdState& s, uint32_t id, bool used) {
  const uint32_t bit = id / 2;
  const uint64_t flag = uint64_t{1} << (bit % 64);
  if (used)
    s.free_mask[bit / 64] &= ~flag;
  else
    s.free_mask[bit / 64] |= flag;
}

// The `count` lowest set bits of the reduced mask, or false if fewer are set.
bool lowest_free(const uint64_t* mask, int count, long* bits) {
  int found = 0;
  for (std::size_t w = 0; w < kWords && found < count; ++w) {
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

}  // namespace

int context_id_allocate(Comm& parent, uint32_t* id) {
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
  ContextIdState& s = state();
  const uint32_t key = parent.context_id;
  {
    std::lock_guard lock(s.mutex);
    s.in_flight.insert(key);
  }
  // kWords mask words, then the "everyone offered the real mask" word.
  std::array<uint64_t, kWords + 1> offer;
  for (;;) {
    bool offering;
    {
      std::lock_guard lock(s.mutex);
      offering = !s.mask_offered && *s.in_flight.begin() == key;
      if (offering) {
        s.mask_offered = true;
        std::memcpy(offer.data(), s.free_mask.data(), sizeof s.free_mask);
        offer[kWords] = ~uint64_t{0};
      } else {
        offer.fill(0);
      }
    }
    const int err = combine(offer.data(), sizeof offer);
    long bits[kMaxIdsPerAllocation];
    const bool found = err == MPI_SUCCESS && lowest_free(offer.data(), count, bits);
    {
      std::lock_guard lock(s.mutex);
      if (offering) s.mask_offered = false;
      // Free bits mean every process offered its real mask, this one too.
      if (found)
        for (int i = 0; i < count; ++i) set_used(s, static_cast<uint32_t>(bits[i]) * 2, true);
      if (err != MPI_SUCCESS || found || offer[kWords] != 0) s.in_flight.erase(key);
    }
    if (err != MPI_SUCCESS) return err;
    if (found) {
      for (int i = 0; i < count; ++i) ids[i] = static_cast<uint32_t>(bits[i]) * 2;
      return MPI_SUCCESS;
    }
    if (offer[kWords] != 0)
      return errhan::make_error(MPI_ERR_OTHER,
                                "out of context ids: all %u communicator ids are in use in some "
                                "process of the parent communicator (size %d); free communicators",
                                kIds, parent.size);
    wait_yield();
  }
}

void context_id_reserve(uint32_t id) {
  ContextIdState& s = state();
  std::lock_guard lock(s.mutex);
  set_used(s, id, true);
}

void context_id_release(uint32_t id) {
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
  s.mask_offered = false;
}

}  // namespace stmpi::mpi
