#include "device/rma/window_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <mpi.h>

#include "device/rma/spin_wait.h"
#include "util/error.h"

namespace stmpi::dev::rma {
namespace {

constexpr std::size_t kLine = 64;
constexpr std::size_t kPage = 4096;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

SharedSegment::SharedSegment(SharedSegment&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      name_(std::move(other.name_)) {
  other.name_.clear();
}

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  if (this != &other) {
    unlink();
    unmap();
    base_ = std::exchange(other.base_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    name_ = std::move(other.name_);
    other.name_.clear();
  }
  return *this;
}

SharedSegment::~SharedSegment() {
  unlink();
  unmap();
}

int SharedSegment::create(const std::string& name, std::size_t bytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 && errno == EEXIST) {  // a leftover of a killed job with the same kvsname
    shm_unlink(name.c_str());
    fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  }
  if (fd < 0)
    return util::make_error(MPI_ERR_NO_MEM, "cannot create window segment %s: %s",
                                   name.c_str(), strerror(errno));
  name_ = name;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int saved = errno;
    close(fd);
    unlink();
    return util::make_error(MPI_ERR_NO_MEM, "cannot size window segment %s to %zu bytes: %s",
                                   name.c_str(), bytes, strerror(saved));
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    const int saved = errno;
    unlink();
    return util::make_error(MPI_ERR_NO_MEM, "cannot map window segment %s (%zu bytes): %s",
                                   name.c_str(), bytes, strerror(saved));
  }
  base_ = static_cast<char*>(base);
  bytes_ = bytes;
  return MPI_SUCCESS;
}

int SharedSegment::open(const std::string& name, std::size_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0)
    return util::make_error(MPI_ERR_OTHER, "cannot open window segment %s: %s", name.c_str(),
                                   strerror(errno));
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  close(fd);
  if (base == MAP_FAILED)
    return util::make_error(MPI_ERR_NO_MEM, "cannot map window segment %s (%zu bytes): %s",
                                   name.c_str(), bytes, strerror(errno));
  base_ = static_cast<char*>(base);
  bytes_ = bytes;
  return MPI_SUCCESS;
}

void SharedSegment::unlink() {
  if (name_.empty()) return;
  shm_unlink(name_.c_str());
  name_.clear();
}

void SharedSegment::unmap() {
  if (base_ != nullptr) munmap(base_, bytes_);
  base_ = nullptr;
  bytes_ = 0;
}

WindowLayout::WindowLayout(std::span<const uint64_t> data_bytes, bool contiguous,
                           int attach_slots)
    : nranks_(static_cast<int>(data_bytes.size())), attach_slots_(attach_slots) {
  const std::size_t n = data_bytes.size();
  const std::size_t signals = round_up(8 * n, kLine);
  complete_base_ = 192 + signals;
  node_base_ = complete_base_ + signals;
  attach_base_ = node_base_ + kQueueNodeBytes * n;
  stream_post_base_ =
      round_up(attach_base_ + sizeof(AttachedRegion) * std::size_t(attach_slots), kLine);
  stream_complete_base_ = stream_post_base_ + signals;
  block_bytes_ = stream_complete_base_ + signals;
  control_base_ = 2 * kLine;  // after the barrier words
  std::size_t at = round_up(control_base_ + block_bytes_ * n, kPage);
  data_offsets_.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (!contiguous) at = round_up(at, kPage);
    data_offsets_[r] = at;
    at += data_bytes[r];
  }
  total_ = round_up(at == 0 ? kPage : at, kPage);
}

void segment_barrier(char* base, int nranks) {
  auto arrived = segment_word(base, WindowLayout::kBarrierArrived);
  auto generation = segment_word(base, WindowLayout::kBarrierGeneration);
  const uint64_t mine = generation.load(std::memory_order_acquire);
  if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint64_t>(nranks)) {
    arrived.store(0, std::memory_order_relaxed);
    generation.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  spin_until([&] { return generation.load(std::memory_order_acquire) != mine; });
}

}  // namespace stmpi::dev::rma
