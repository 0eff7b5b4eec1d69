// The POSIX driver: pread/pwrite on one descriptor, open file description
// locks (F_OFD_SETLKW) for atomic mode and sieving writes, and the mapping
// of errno values to the I/O error classes.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "mpi/errhan/error.h"
#include "mpi/io/driver.h"
#include "mpi/io/internal.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

// Largest single transfer (Linux moves at most 0x7ffff000 bytes per call).
constexpr MPI_Count kMaxTransfer = 1 << 30;

class PosixDriver final : public Driver {
 public:
  PosixDriver(std::string name, int fd, bool readable) : Driver(std::move(name)), fd_(fd) {
    readable_ = readable;
  }
  ~PosixDriver() override {
    if (fd_ >= 0) ::close(fd_);
  }

  int pread(void* buf, MPI_Count len, MPI_Offset offset, MPI_Count* done) override {
    Timed timed(TimeKind::kFileSystem);
    auto* p = static_cast<char*>(buf);
    MPI_Count got = 0;
    while (got < len) {
      const auto want = static_cast<size_t>(std::min(len - got, kMaxTransfer));
      const ssize_t n = ::pread(fd_, p + got, want, static_cast<off_t>(offset + got));
      if (n < 0) {
        if (errno == EINTR) continue;
        *done = got;
        return file_error(errno, "pread", name_);
      }
      if (n == 0) break;  // end of file
      got += n;
    }
    *done = got;
    return MPI_SUCCESS;
  }

  int pwrite(const void* buf, MPI_Count len, MPI_Offset offset) override {
    Timed timed(TimeKind::kFileSystem);
    const auto* p = static_cast<const char*>(buf);
    MPI_Count put = 0;
    while (put < len) {
      const auto want = static_cast<size_t>(std::min(len - put, kMaxTransfer));
      const ssize_t n = ::pwrite(fd_, p + put, want, static_cast<off_t>(offset + put));
      if (n < 0) {
        if (errno == EINTR) continue;
        return file_error(errno, "pwrite", name_);
      }
      if (n == 0) return file_error(ENOSPC, "pwrite", name_);
      put += n;
    }
    return MPI_SUCCESS;
  }

  int preadv(const struct iovec* iov, int n, MPI_Offset offset, MPI_Count* done) override {
    Timed timed(TimeKind::kFileSystem);
    *done = 0;
    for (int first = 0; first < n;) {
      const int batch = std::min(n - first, IOV_MAX);
      MPI_Count want = 0;
      for (int i = 0; i < batch; ++i) want += static_cast<MPI_Count>(iov[first + i].iov_len);
      const ssize_t got = ::preadv(fd_, iov + first, batch, static_cast<off_t>(offset + *done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return file_error(errno, "preadv", name_);
      if (got < want) return finish_readv(iov + first, batch, got, offset, done);
      *done += got;
      first += batch;
    }
    return MPI_SUCCESS;
  }

  int pwritev(const struct iovec* iov, int n, MPI_Offset offset) override {
    Timed timed(TimeKind::kFileSystem);
    MPI_Offset at = offset;
    for (int first = 0; first < n;) {
      const int batch = std::min(n - first, IOV_MAX);
      MPI_Count want = 0;
      for (int i = 0; i < batch; ++i) want += static_cast<MPI_Count>(iov[first + i].iov_len);
      ssize_t put = ::pwritev(fd_, iov + first, batch, static_cast<off_t>(at));
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) return file_error(errno, "pwritev", name_);
      if (put < want) {  // finish the batch piece by piece
        MPI_Count skip = put;
        for (int i = 0; i < batch; ++i) {
          const auto len = static_cast<MPI_Count>(iov[first + i].iov_len);
          if (skip >= len) {
            skip -= len;
            continue;
          }
          const char* base = static_cast<const char*>(iov[first + i].iov_base);
          if (int err = pwrite(base + skip, len - skip, at + put)) return err;
          put += len - skip;
          skip = 0;
        }
      }
      at += want;
      first += batch;
    }
    return MPI_SUCCESS;
  }

  int size(MPI_Offset* size) override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return file_error(errno, "fstat", name_);
    *size = static_cast<MPI_Offset>(st.st_size);
    return MPI_SUCCESS;
  }
  int truncate(MPI_Offset size) override {
    while (::ftruncate(fd_, static_cast<off_t>(size)) != 0)
      if (errno != EINTR) return file_error(errno, "ftruncate", name_);
    return MPI_SUCCESS;
  }
  int allocate(MPI_Offset size) override {
    if (size <= 0) return MPI_SUCCESS;
    const int err = ::posix_fallocate(fd_, 0, static_cast<off_t>(size));
    if (err != 0) return file_error(err, "posix_fallocate", name_);
    return MPI_SUCCESS;
  }
  int sync() override {
    Timed timed(TimeKind::kFileSystem);
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
      return file_error(errno, "fsync", name_);
    return MPI_SUCCESS;
  }
  int lock(MPI_Offset offset, MPI_Offset len, bool exclusive) override {
    Timed timed(TimeKind::kLock);
    return set_lock(exclusive ? F_WRLCK : F_RDLCK, offset, len, "fcntl(F_OFD_SETLKW)");
  }
  int unlock(MPI_Offset offset, MPI_Offset len) override {
    Timed timed(TimeKind::kLock);
    return set_lock(F_UNLCK, offset, len, "fcntl(F_OFD_SETLK, F_UNLCK)");
  }
  int close() override {
    const int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0 && errno != EINTR) return file_error(errno, "close", name_);
    return MPI_SUCCESS;
  }

 private:
  int finish_readv(const struct iovec* iov, int n, MPI_Count got, MPI_Offset offset,
                   MPI_Count* done) {
    // A short vector read: continue piece by piece until end of file.
    MPI_Count skip = got;
    *done += got;
    for (int i = 0; i < n; ++i) {
      const auto len = static_cast<MPI_Count>(iov[i].iov_len);
      if (skip >= len) {
        skip -= len;
        continue;
      }
      MPI_Count more = 0;
      if (int err =
              pread(static_cast<char*>(iov[i].iov_base) + skip, len - skip, offset + *done, &more))
        return err;
      *done += more;
      if (more < len - skip) return MPI_SUCCESS;  // end of file
      skip = 0;
    }
    return MPI_SUCCESS;
  }

  int set_lock(short type, MPI_Offset offset, MPI_Offset len, const char* call) {
    struct flock fl;
    std::memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = static_cast<off_t>(offset);
    fl.l_len = static_cast<off_t>(len);
    const int cmd = type == F_UNLCK ? F_OFD_SETLK : F_OFD_SETLKW;
    while (::fcntl(fd_, cmd, &fl) != 0)
      if (errno != EINTR) return file_error(errno, call, name_);
    return MPI_SUCCESS;
  }

  int fd_;
};

}  // namespace

int errno_class(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENAMETOOLONG:
    case EISDIR:
    case ELOOP:
    case EBADF: return MPI_ERR_BAD_FILE;
    case ENOSPC:
    case EFBIG: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    case EINVAL: return MPI_ERR_AMODE;
    default: return MPI_ERR_IO;
  }
}

int file_error(int err, const char* call, const std::string& name, const char* function) {
  int cls = errno_class(err);
  // EINVAL outside open is not about the access mode.
  if (cls == MPI_ERR_AMODE && std::strcmp(call, "open") != 0) cls = MPI_ERR_IO;
  if (function != nullptr)
    return make_error(cls, "%s: %s(\"%s\") failed: %s", function, call, name.c_str(),
                      std::strerror(err));
  return make_error(cls, "%s(\"%s\") failed: %s", call, name.c_str(), std::strerror(err));
}

int posix_open(const std::string& name, int amode, int perm, std::unique_ptr<Driver>* out,
               const char* function) {
  int flags = O_CLOEXEC;
  if (amode & MPI_MODE_CREATE) flags |= O_CREAT;
  if (amode & MPI_MODE_EXCL) flags |= O_EXCL;
  int fd = -1;
  bool readable = true;
  if (amode & MPI_MODE_RDONLY) {
    fd = ::open(name.c_str(), flags | O_RDONLY, perm);
  } else {
    // Write-only files are opened for reading too when permitted, so that
    // sieving writes can read-modify-write.
    fd = ::open(name.c_str(), flags | O_RDWR, perm);
    if (fd < 0 && errno == EACCES && (amode & MPI_MODE_WRONLY)) {
      fd = ::open(name.c_str(), flags | O_WRONLY, perm);
      readable = false;
    }
  }
  if (fd < 0) return file_error(errno, "open", name, function);
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return file_error(EISDIR, "open", name, function);
  }
  *out = std::make_unique<PosixDriver>(name, fd, readable);
  return MPI_SUCCESS;
}

int posix_delete(const std::string& name, const char* function) {
  if (::unlink(name.c_str()) != 0) return file_error(errno, "unlink", name, function);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::io
