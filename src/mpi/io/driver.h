// The file-system driver interface of MPI-IO: the byte-level operations on
// one open file that everything above (views, independent and collective
// access) is built from. POSIX is the only driver now (posix_driver.cc); a
// driver for a parallel file system plugs in here.
//
// Every call returns MPI_SUCCESS or an MPI error code whose class comes from
// errno (errno_class) and whose message names the file and the call.
#pragma once

#include <sys/uio.h>

#include <memory>
#include <string>

#include <mpi.h>

namespace stmpi::mpi::io {

class Driver {
 public:
  virtual ~Driver() = default;

  // Reads up to `len` bytes at `offset`, retrying short transfers and EINTR;
  // `*done` is less than `len` only at end of file.
  virtual int pread(void* buf, MPI_Count len, MPI_Offset offset, MPI_Count* done) = 0;
  // Writes all `len` bytes at `offset` (retrying short transfers and EINTR).
  virtual int pwrite(const void* buf, MPI_Count len, MPI_Offset offset) = 0;
  // Scatter/gather forms: `n` memory pieces read from or written to the
  // contiguous file range starting at `offset`.
  virtual int preadv(const struct iovec* iov, int n, MPI_Offset offset, MPI_Count* done) = 0;
  virtual int pwritev(const struct iovec* iov, int n, MPI_Offset offset) = 0;
  virtual int size(MPI_Offset* size) = 0;
  virtual int truncate(MPI_Offset size) = 0;
  // Reserves storage for the first `size` bytes (the file grows to at least `size`).
  virtual int allocate(MPI_Offset size) = 0;
  virtual int sync() = 0;
  // Byte-range locks (open file description locks, held until unlock or
  // until the last descriptor of this open closes). len == 0: to the end.
  virtual int lock(MPI_Offset offset, MPI_Offset len, bool exclusive) = 0;
  virtual int unlock(MPI_Offset offset, MPI_Offset len) = 0;
  virtual int close() = 0;
  const std::string& name() const { return name_; }
  // Whether the file can be read (a write-only open without read
  // permission cannot; sieving writes then write run by run).
  bool readable() const { return readable_; }

 protected:
  explicit Driver(std::string name) : name_(std::move(name)) {}
  std::string name_;
  bool readable_ = true;
};

// Opens `name` with the MPI access mode `amode` (MPI_MODE_*; CREATE and EXCL
// honoured as given, so the caller decides who creates), creating with
// permissions `perm` (the file_perm hint, else 0666). On success *out holds
// the driver.
int posix_open(const std::string& name, int amode, int perm, std::unique_ptr<Driver>* out,
               const char* function);
// Removes `name` (MPI_File_delete, MPI_MODE_DELETE_ON_CLOSE).
int posix_delete(const std::string& name, const char* function);

// The MPI error class of an errno value from a file operation.
int errno_class(int err);
// An error code of errno_class(err) whose message names the system call, the
// file and, if given, the MPI function.
int file_error(int err, const char* call, const std::string& name, const char* function = nullptr);

}  // namespace stmpi::mpi::io
