// POSIX shared-memory segments of a job: the one place that creates, opens
// and names them (the node segment of device/shm and the window segments of
// device/rma both use it).
//
// - Names are /stmpi-<job>-<what>-<16 random hex digits>: mpiexec removes
//   leftovers of a killed job by the prefix /stmpi-<job>-, and the random
//   part keeps another local user from making a job fail by creating its
//   names first.
// - Created with O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600; opened only when
//   the object is a regular file of this user with no group or other access.
// - Every page is reserved at creation (posix_fallocate): a /dev/shm that is
//   too small is an error here that names the path, the size needed and what
//   is free, never a SIGBUS at the first touch of a page much later.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace stmpi::util {

class ShmSegment {
 public:
  ShmSegment() = default;
  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  // Unlinks the name if this process still owns it, and unmaps.
  ~ShmSegment();

  // Creates /stmpi-<job>-<what>-<random>, reserves and maps `bytes`
  // (zero-filled). False with *error set (and error_number() the errno) on
  // failure; nothing is left behind then.
  [[nodiscard]] bool create(std::string_view job, std::string_view what, std::size_t bytes,
                            std::string* error);
  // Maps `bytes` of the segment `name` that another process of the job created.
  [[nodiscard]] bool open(const std::string& name, std::size_t bytes, std::string* error);
  // Removes the name; the mapping stays valid. Idempotent.
  void unlink();
  void unmap();
  // Hands the mapping over to the caller, who munmap()s base() and bytes()
  // itself; the name stays owned (and is unlinked by unlink() or the destructor).
  char* release_mapping() {
    bytes_ = 0;
    return std::exchange(base_, nullptr);
  }

  const std::string& name() const { return name_; }
  char* base() const { return base_; }
  std::size_t bytes() const { return bytes_; }
  // errno of the last failed create() or open() (ENOSPC when /dev/shm is full).
  int error_number() const { return error_number_; }

 private:
  bool fail(int error_number, std::string message, std::string* error);
  bool map_and_close(int fd, std::size_t bytes, std::string* error);

  char* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::string name_;  // the segment's name, "/stmpi-..."
  bool owns_name_ = false;
  int error_number_ = 0;
};

// The prefix every segment name of the job starts with, without the leading
// '/': "stmpi-<job>-". Inline: mpiexec uses it without linking the library.
inline std::string shm_segment_prefix(std::string_view job) {
  return "stmpi-" + std::string(job) + "-";
}

}  // namespace stmpi::util
