#include "device/shm/shm.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include <mpi.h>

#include "pmi/client.h"
#include "util/error.h"
#include "util/param.h"
#include "util/shm_segment.h"

namespace stmpi::dev::shm {
namespace {

struct Settings {
  std::size_t cell_size = 0;
  int cells = 0;
  bool single_copy = true;
} g_settings;

const util::Param kParams[] = {
    {.name = "cell_size",
     .type = util::Param::Type::kSize,
     .field = &g_settings.cell_size,
     .default_value = "16K",
     .description = "bytes per ring cell; messages up to this size minus 64 bytes (ready flag "
                    "and header) go eagerly, larger ones by single copy or in pieces; larger "
                    "cells take more shared memory per pair of local ranks",
     .min = 256,
     .max = 1 << 20,
     .multiple_of = 64},
    {.name = "cells",
     .type = util::Param::Type::kInt,
     .field = &g_settings.cells,
     .default_value = "32",
     .description = "cells per ring; one ring per ordered pair of local ranks: more cells let a "
                    "sender run further ahead of its receiver at the cost of shared memory",
     .min = 2,
     .max = 1024,
     .power_of_two = true},
    {"single_copy", util::Param::Type::kBool, &g_settings.single_copy, "yes",
     "pull large messages with one copy (Linux CMA); 'no' streams them through the rings"},
};
const util::ParamTable kTable{"shm", kParams};
const util::ParamRegistration kRegistration{&kTable};

struct SegmentHeader {
  uint32_t nranks;
  uint32_t cells;
  uint32_t cell_size;
  uint32_t ready;
  pid_t pids[1];  // nranks entries
};

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

int ShmTransport::init(int my_rank, int world_size, std::span<const int> local, int node,
                       pmi::Client& pmi) {
  my_rank_ = my_rank;
  const int nlocal = static_cast<int>(local.size());
  int me = 0;  // this rank's index among the node's ranks
  while (me < nlocal && local[me] != my_rank) ++me;
  // The table allows only powers of two and multiples of 64 (kParams).
  const uint32_t cells = static_cast<uint32_t>(g_settings.cells);
  const uint32_t cell_size = static_cast<uint32_t>(g_settings.cell_size);
  single_copy_ = g_settings.single_copy;
  max_payload_ = cell_size - kFlagBytes - kCellHeaderBytes;

  const std::size_t header_bytes = round_up(sizeof(SegmentHeader) + nlocal * sizeof(pid_t), 4096);
  const std::size_t ring_bytes = sizeof(RingControl) + std::size_t{cells} * cell_size;
  bytes_ = header_bytes + ring_bytes * nlocal * nlocal;
  const bool creator = me == 0;
  // The node's first rank creates the segment and publishes its (random) name or why it failed.
  const std::string key = "stmpi-shm-node" + std::to_string(node);
  util::ShmSegment segment;
  std::string error;
  bool ok = true;
  if (creator) {
    ok = segment.create(pmi.kvsname(), "node" + std::to_string(node), bytes_, &error);
    if (!ok)
      error += " (" + std::to_string(nlocal * nlocal) +
               " rings of STMPI_SHM_CELLS cells of STMPI_SHM_CELL_SIZE bytes)";
    if (pmi.put(key, ok ? segment.name() : "!" + error) != 0)
      return util::make_error(MPI_ERR_OTHER, "PMI put failed: %s", pmi.error().c_str());
  }
  if (pmi.barrier() != 0)
    return util::make_error(MPI_ERR_OTHER, "PMI barrier failed: %s", pmi.error().c_str());
  if (!creator) {
    std::string name;
    if (pmi.get(key, &name) != 0)
      return util::make_error(MPI_ERR_OTHER, "PMI get failed: %s", pmi.error().c_str());
    if (name.starts_with("!")) {
      return util::make_error(MPI_ERR_NO_MEM, "the node's first rank failed: %s", name.c_str() + 1);
    }
    ok = segment.open(name, bytes_, &error);
  }
  if (!ok) {
    const int no_space = segment.error_number() == ENOSPC || segment.error_number() == ENOMEM;
    return util::make_error(no_space ? MPI_ERR_NO_MEM : MPI_ERR_OTHER, "%s", error.c_str());
  }
  base_ = segment.release_mapping();
  auto* header = static_cast<SegmentHeader*>(base_);
  char* rings = static_cast<char*>(base_) + header_bytes;
  auto ring_at = [&](int from, int to) {
    char* at = rings + ring_bytes * (std::size_t(from) * nlocal + to);
    return RingView(reinterpret_cast<RingControl*>(at), at + sizeof(RingControl), cells, cell_size);
  };
  if (me == 0) {
    header->nranks = static_cast<uint32_t>(nlocal);
    header->cells = cells;
    header->cell_size = cell_size;
    for (int from = 0; from < nlocal; ++from)
      for (int to = 0; to < nlocal; ++to)
        new (rings + ring_bytes * (std::size_t(from) * nlocal + to)) RingControl();
  }
  // Allow peers to pull from this process (needed where Yama restricts ptrace).
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  if (pmi.barrier() != 0)  // the creator initialized the rings
    return util::make_error(MPI_ERR_OTHER, "PMI barrier failed: %s", pmi.error().c_str());
  header->pids[me] = getpid();
  if (pmi.barrier() != 0)  // everyone attached and wrote its pid
    return util::make_error(MPI_ERR_OTHER, "PMI barrier failed: %s", pmi.error().c_str());
  // Everyone has it mapped: remove the name now, so nothing can leak.
  segment.unlink();

  out_.assign(world_size, RingView{});
  in_.assign(world_size, RingView{});
  pids_.assign(world_size, 0);
  poll_peers_.clear();
  for (int i = 0; i < nlocal; ++i) {
    const int peer = local[i];
    out_[peer] = ring_at(me, i);
    in_[peer] = ring_at(i, me);
    pids_[peer] = header->pids[i];
    if (peer != my_rank) poll_peers_.push_back(peer);
  }
  return MPI_SUCCESS;
}

void ShmTransport::finalize() {
  if (base_ != nullptr) munmap(base_, bytes_);
  base_ = nullptr;
  out_.clear();
  in_.clear();
  poll_peers_.clear();
}

PullStatus ShmTransport::pull(int peer, const WireHeader& rts, void* local, std::size_t bytes,
                              RequestDev* /*req*/) {
  uint64_t remote = rts.address;
  if (!single_copy_) return PullStatus::kUnsupported;
  auto* dst = static_cast<char*>(local);
  while (bytes > 0) {
    iovec mine{dst, bytes};
    iovec theirs{reinterpret_cast<void*>(remote), bytes};
    const ssize_t got = process_vm_readv(pids_[peer], &mine, 1, &theirs, 1, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EPERM || errno == ENOSYS) {
        single_copy_ = false;  // fall back to streaming for the rest of the job
        return PullStatus::kUnsupported;
      }
      return PullStatus::kFailed;
    }
    dst += got;
    remote += static_cast<uint64_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
  return PullStatus::kDone;
}

}  // namespace stmpi::dev::shm
