// ShmRma: RMA on memory this process maps (window segments in /dev/shm,
// or its own memory). Puts and gets are memcpy, 64-bit atomics are CPU
// atomics, accumulates follow accumulate.h. Everything completes before the
// call returns; the seq_cst atomics of the synchronization calls order it.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <span>

#include "device/rma/accumulate.h"
#include "device/rma/region.h"

namespace stmpi::dev::rma {

class ShmRma final {
 public:
  static int put(const Region& region, std::span<const Run> runs, const void* in) {
    const char* src = static_cast<const char*>(in);
    for (const Run& run : runs) {
      std::memcpy(region.mapped + run.offset, src, run.bytes);
      src += run.bytes;
    }
    return 0;
  }

  static int get(const Region& region, std::span<const Run> runs, void* out, Completion*) {
    char* dst = static_cast<char*>(out);
    for (const Run& run : runs) {
      std::memcpy(dst, region.mapped + run.offset, run.bytes);
      dst += run.bytes;
    }
    return 0;
  }

  static int accumulate(const Region& region, std::span<const Run> runs, const AccumulateOp& acc,
                        const void* in, void* out, Completion*) {
    return accumulate_local(region.mapped, uses_native_atomics(region, acc), region.acc_lock, runs,
                            acc, in, out);
  }

  static int compare_swap(const Region& region, uint64_t offset, const AccumulateOp& acc,
                          const void* compare, const void* swap, void* out, Completion*) {
    return compare_swap_local(region.mapped + offset, uses_native_atomics(region, acc),
                              region.acc_lock, acc, compare, swap, out);
  }

  static uint64_t fetch_add64(const Region& region, uint64_t offset, uint64_t add) {
    return word(region, offset).fetch_add(add);
  }
  static uint64_t compare_swap64(const Region& region, uint64_t offset, uint64_t expected,
                                 uint64_t desired) {
    word(region, offset).compare_exchange_strong(expected, desired);
    return expected;  // the previous value, whether or not it swapped
  }
  static uint64_t load64(const Region& region, uint64_t offset) {
    return word(region, offset).load();
  }
  static void store64(const Region& region, uint64_t offset, uint64_t value) {
    word(region, offset).store(value);
  }

 private:
  static std::atomic_ref<uint64_t> word(const Region& region, uint64_t offset) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(region.mapped + offset));
  }
};

}  // namespace stmpi::dev::rma
