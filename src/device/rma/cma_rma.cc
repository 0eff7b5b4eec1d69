#include "device/rma/cma_rma.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "device/rma/accumulate.h"
#include "util/error.h"

namespace stmpi::dev::rma {
namespace {

// Runs per system call (the kernel's UIO_MAXIOV).
constexpr std::size_t kMaxIov = 1024;

// Moves the packed bytes at `local` to (write) or from the runs at
// `remote_base` in process `pid`, in batches of kMaxIov runs, resuming
// after partial transfers.
int transfer(pid_t pid, bool write, uint64_t remote_base, std::span<const Run> runs, char* local) {
  std::vector<iovec> remote;
  remote.reserve(std::min(runs.size(), kMaxIov));
  std::size_t next = 0;  // first run not yet fully moved
  uint64_t skip = 0;     // bytes of runs[next] already moved
  while (next < runs.size()) {
    remote.clear();
    uint64_t batch = 0;
    for (std::size_t i = next; i < runs.size() && remote.size() < kMaxIov; ++i) {
      const uint64_t offset = i == next ? skip : 0;
      if (runs[i].bytes == offset) continue;
      remote.push_back(iovec{reinterpret_cast<void*>(remote_base + runs[i].offset + offset),
                             static_cast<std::size_t>(runs[i].bytes - offset)});
      batch += runs[i].bytes - offset;
    }
    if (remote.empty()) break;
    iovec mine{local, static_cast<std::size_t>(batch)};
    const ssize_t moved = write ? process_vm_writev(pid, &mine, 1, remote.data(), remote.size(), 0)
                                : process_vm_readv(pid, &mine, 1, remote.data(), remote.size(), 0);
    if (moved < 0) {
      if (errno == EINTR) continue;
      return util::make_error(MPI_ERR_OTHER,
                              "single-copy %s of %llu bytes %s process %d failed: %s",
                              write ? "write" : "read", static_cast<unsigned long long>(batch),
                              write ? "to" : "from", static_cast<int>(pid), strerror(errno));
    }
    if (moved == 0)
      return util::make_error(MPI_ERR_OTHER, "single-copy %s to process %d made no progress",
                              write ? "write" : "read", static_cast<int>(pid));
    local += moved;
    // Advance (next, skip) past `moved` bytes.
    auto left = static_cast<uint64_t>(moved);
    while (left > 0 && next < runs.size()) {
      const uint64_t rest = runs[next].bytes - skip;
      if (left >= rest) {
        left -= rest;
        ++next;
        skip = 0;
      } else {
        skip += left;
        left = 0;
      }
    }
    while (next < runs.size() && runs[next].bytes == skip) {
      ++next;
      skip = 0;
    }
  }
  return MPI_SUCCESS;
}

uint64_t total_bytes(std::span<const Run> runs) {
  uint64_t total = 0;
  for (const Run& run : runs) total += run.bytes;
  return total;
}

}  // namespace

int CmaRma::put(const Region& region, std::span<const Run> runs, const void* in) {
  return transfer(region.pid, true, region.remote, runs, static_cast<char*>(const_cast<void*>(in)));
}

int CmaRma::get(const Region& region, std::span<const Run> runs, void* out, Completion*) {
  return transfer(region.pid, false, region.remote, runs, static_cast<char*>(out));
}

int CmaRma::accumulate(const Region& region, std::span<const Run> runs, const AccumulateOp& acc,
                       const void* in, void* out, Completion*) {
  std::vector<char> current(total_bytes(runs));
  AccumulateLockGuard guard(region.acc_lock);
  if (int err = transfer(region.pid, false, region.remote, runs, current.data())) return err;
  if (out != nullptr) std::memcpy(out, current.data(), current.size());
  if (in == nullptr) return MPI_SUCCESS;  // MPI_NO_OP
  if (int err = apply_packed(acc, in, current.data(), current.size())) return err;
  return transfer(region.pid, true, region.remote, runs, current.data());
}

int CmaRma::compare_swap(const Region& region, uint64_t offset, const AccumulateOp& acc,
                         const void* compare, const void* swap, void* out, Completion*) {
  const auto size = static_cast<uint64_t>(acc.element_size);
  const Run run{offset, size};
  AccumulateLockGuard guard(region.acc_lock);
  if (int err = transfer(region.pid, false, region.remote, {&run, 1}, static_cast<char*>(out)))
    return err;
  if (std::memcmp(out, compare, size) != 0) return MPI_SUCCESS;
  return transfer(region.pid, true, region.remote, {&run, 1},
                  static_cast<char*>(const_cast<void*>(swap)));
}

bool CmaRma::reachable(pid_t pid, uint64_t address, uint64_t bytes) {
  char probe[8];
  iovec mine{probe, static_cast<std::size_t>(std::min<uint64_t>(bytes, sizeof probe))};
  iovec theirs{reinterpret_cast<void*>(address), mine.iov_len};
  if (mine.iov_len == 0) {  // nothing to read: ask about the process itself
    mine.iov_len = theirs.iov_len = 0;
  }
  const ssize_t got = process_vm_readv(pid, &mine, 1, &theirs, 1, 0);
  return got >= 0 && static_cast<std::size_t>(got) == mine.iov_len;
}

}  // namespace stmpi::dev::rma
