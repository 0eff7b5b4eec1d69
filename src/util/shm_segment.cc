#include "util/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

namespace stmpi::util {
namespace {

constexpr const char* kShmDir = "/dev/shm";

std::string random_hex() {
  uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bits)) {
    // No entropy yet (early boot): still differs between processes and calls.
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    bits = (static_cast<uint64_t>(now.tv_nsec) << 20) ^ static_cast<uint64_t>(now.tv_sec) ^
           (static_cast<uint64_t>(getpid()) << 40) ^ reinterpret_cast<uintptr_t>(&bits);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

std::string mib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// "/dev/shm has 3.2 MiB free of 4.0 MiB", or empty when statvfs fails.
std::string free_space() {
  struct statvfs fs {};
  if (statvfs(kShmDir, &fs) != 0) return {};
  const std::size_t unit = fs.f_frsize != 0 ? fs.f_frsize : fs.f_bsize;
  return std::string(kShmDir) + " has " + mib(std::size_t(fs.f_bavail) * unit) + " free of " +
         mib(std::size_t(fs.f_blocks) * unit);
}

}  // namespace

ShmSegment::ShmSegment(ShmSegment&& other) noexcept { *this = std::move(other); }

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    unlink();
    unmap();
    base_ = std::exchange(other.base_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    name_ = std::move(other.name_);
    owns_name_ = std::exchange(other.owns_name_, false);
    error_number_ = other.error_number_;
    other.name_.clear();
  }
  return *this;
}

ShmSegment::~ShmSegment() {
  unlink();
  unmap();
}

bool ShmSegment::fail(int error_number, std::string message, std::string* error) {
  error_number_ = error_number;
  *error = std::move(message);
  return false;
}

bool ShmSegment::create(std::string_view job, std::string_view what, std::size_t bytes,
                        std::string* error) {
  unlink();
  unmap();
  if (bytes == 0) bytes = 1;
  name_ = "/" + shm_segment_prefix(job) + std::string(what) + "-" + random_hex();
  const std::string path = kShmDir + name_;
  const int fd = shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int saved = errno;
    return fail(saved, "cannot create shared-memory segment " + path + ": " + strerror(saved),
                error);
  }
  owns_name_ = true;
  // The mode is exactly 0600 whatever the umask; fchmod also catches a file
  // system that ignored the mode.
  (void)fchmod(fd, 0600);
  const int reserve = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (reserve != 0) {
    close(fd);
    unlink();
    std::string message = "cannot reserve " + std::to_string(bytes) + " bytes (" + mib(bytes) +
                          ") for shared-memory segment " + path + ": " + strerror(reserve);
    if (std::string space = free_space(); !space.empty()) message += "; " + space;
    return fail(reserve, message, error);
  }
  if (map_and_close(fd, bytes, error)) return true;
  unlink();
  return false;
}

bool ShmSegment::open(const std::string& name, std::size_t bytes, std::string* error) {
  unlink();
  unmap();
  if (bytes == 0) bytes = 1;
  name_ = name;
  const std::string path = kShmDir + name;
  const int fd = shm_open(name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
  if (fd < 0) {
    const int saved = errno;
    return fail(saved, "cannot open shared-memory segment " + path + ": " + strerror(saved), error);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 077) != 0 || static_cast<std::size_t>(st.st_size) < bytes) {
    close(fd);
    return fail(EACCES,
                "shared-memory segment " + path +
                    " is not the job's (expected a regular file of this user, mode 0600, at "
                    "least " +
                    std::to_string(bytes) + " bytes)",
                error);
  }
  return map_and_close(fd, bytes, error);
}

bool ShmSegment::map_and_close(int fd, std::size_t bytes, std::string* error) {
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int saved = errno;
  close(fd);
  if (base == MAP_FAILED) {
    return fail(saved,
                "cannot map shared-memory segment " + std::string(kShmDir) + name_ + " (" +
                    std::to_string(bytes) + " bytes): " + strerror(saved),
                error);
  }
  base_ = static_cast<char*>(base);
  bytes_ = bytes;
  return true;
}

void ShmSegment::unlink() {
  if (owns_name_) shm_unlink(name_.c_str());
  owns_name_ = false;
}

void ShmSegment::unmap() {
  if (base_ != nullptr) munmap(base_, bytes_);
  base_ = nullptr;
  bytes_ = 0;
}

}  // namespace stmpi::util
