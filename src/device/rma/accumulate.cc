#include "device/rma/accumulate.h"

#include <cstring>
#include <vector>

#include <mpi.h>

#include "util/error.h"
#include "util/reduce.h"

namespace stmpi::dev::rma {
namespace {

using util::ElementKind;
using util::OpKind;

bool is_int64(const AccumulateOp& acc) {
  return acc.element_size == 8 &&
         (acc.element == ElementKind::kInt64 || acc.element == ElementKind::kUint64);
}

bool aligned8(const void* address) { return (reinterpret_cast<uintptr_t>(address) & 7) == 0; }

// One 8-byte integer element, atomically; returns the previous value.
uint64_t apply_native(uint64_t* address, OpKind op, uint64_t value, ElementKind kind) {
  std::atomic_ref<uint64_t> word(*address);
  switch (op) {
    case OpKind::kSum: return word.fetch_add(value);
    case OpKind::kBand: return word.fetch_and(value);
    case OpKind::kBor: return word.fetch_or(value);
    case OpKind::kBxor: return word.fetch_xor(value);
    case OpKind::kReplace: return word.exchange(value);
    case OpKind::kNoOp: return word.load();
    default: break;
  }
  // MAX, MIN, PROD and the logical ops: compute with the kernel, publish by CAS.
  const util::OpKernel kernel = util::op_kernel(op, kind, true);
  uint64_t current = word.load(std::memory_order_relaxed);
  for (;;) {
    uint64_t next = current;
    kernel(&value, &next, 1);
    if (word.compare_exchange_weak(current, next)) return current;
  }
}

// The locked path on one run of whole elements.
void apply_run(const AccumulateOp& acc, OpKind op, const char* in, char* target, uint64_t bytes) {
  switch (op) {
    case OpKind::kNoOp: return;
    case OpKind::kReplace: std::memcpy(target, in, bytes); return;
    default: {
      const util::OpKernel kernel = util::op_kernel(op, acc.element, true);
      kernel(in, target, static_cast<MPI_Count>(bytes / acc.element_size));
    }
  }
}

}  // namespace

bool uses_native_atomics(const Region& region, const AccumulateOp& acc) {
  return region.native_atomics && is_int64(acc);
}

int apply_packed(const AccumulateOp& acc, const void* in, void* target, uint64_t bytes) {
  apply_run(acc, acc.op, static_cast<const char*>(in), static_cast<char*>(target), bytes);
  return MPI_SUCCESS;
}

int accumulate_local(char* base, bool native, std::atomic<uint64_t>* lock,
                     std::span<const Run> runs, const AccumulateOp& acc, const void* in,
                     void* out) {
  const OpKind op = acc.op;
  const char* src = static_cast<const char*>(in);
  char* fetched = static_cast<char*>(out);
  if (native) {
    // Runs that start 8-byte aligned hold aligned elements; a misaligned
    // run (possible with byte displacements) takes the lock, and always
    // will, since the choice depends only on the address.
    bool all_aligned = true;
    for (const Run& run : runs) all_aligned = all_aligned && aligned8(base + run.offset);
    if (all_aligned) {
      const ElementKind kind = acc.element;
      uint64_t pos = 0;
      for (const Run& run : runs) {
        auto* word = reinterpret_cast<uint64_t*>(base + run.offset);
        for (uint64_t i = 0; i < run.bytes / 8; ++i, pos += 8) {
          uint64_t value = 0;
          if (src != nullptr) std::memcpy(&value, src + pos, 8);
          const uint64_t old = apply_native(word + i, op, value, kind);
          if (fetched != nullptr) std::memcpy(fetched + pos, &old, 8);
        }
      }
      return MPI_SUCCESS;
    }
  }
  // Runs that each hold whole elements are combined in place. A run that
  // splits an element (pair types with padding inside, like MPI_SHORT_INT)
  // makes us gather the packed elements, combine, and scatter them back.
  const auto element = static_cast<uint64_t>(acc.element_size);
  bool whole = true;
  uint64_t total = 0;
  for (const Run& run : runs) {
    whole = whole && run.bytes % element == 0;
    total += run.bytes;
  }
  AccumulateLockGuard guard(lock);
  if (whole || op == OpKind::kReplace || op == OpKind::kNoOp) {
    uint64_t pos = 0;
    for (const Run& run : runs) {
      char* target = base + run.offset;
      if (fetched != nullptr) std::memcpy(fetched + pos, target, run.bytes);
      if (src != nullptr) apply_run(acc, op, src + pos, target, run.bytes);
      pos += run.bytes;
    }
    return MPI_SUCCESS;
  }
  std::vector<char> packed(total);
  uint64_t pos = 0;
  for (const Run& run : runs) {
    std::memcpy(packed.data() + pos, base + run.offset, run.bytes);
    pos += run.bytes;
  }
  if (fetched != nullptr) std::memcpy(fetched, packed.data(), total);
  if (src != nullptr) apply_run(acc, op, src, packed.data(), total);
  pos = 0;
  for (const Run& run : runs) {
    std::memcpy(base + run.offset, packed.data() + pos, run.bytes);
    pos += run.bytes;
  }
  return MPI_SUCCESS;
}

int compare_swap_local(char* address, bool native, std::atomic<uint64_t>* lock,
                       const AccumulateOp& acc, const void* compare, const void* swap, void* out) {
  const auto size = static_cast<std::size_t>(acc.element_size);
  if (native && aligned8(address)) {
    uint64_t expected = 0, desired = 0;
    std::memcpy(&expected, compare, 8);
    std::memcpy(&desired, swap, 8);
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(address))
        .compare_exchange_strong(expected, desired);
    std::memcpy(out, &expected, 8);  // the previous value either way
    return MPI_SUCCESS;
  }
  AccumulateLockGuard guard(lock);
  std::memcpy(out, address, size);
  if (std::memcmp(address, compare, size) == 0) std::memcpy(address, swap, size);
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev::rma
