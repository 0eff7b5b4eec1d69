// Independent blocking reads and writes (MPI 4.1 sections 14.4.2, 14.4.3):
// explicit offsets and the individual file pointer, over the view.
//
// An access maps its data range through the view to file byte runs
// (map_view). Memory and file sides are handled apart:
//   memory  contiguous native data is used in place; a noncontiguous buffer
//           with one file run and few large pieces goes to preadv/pwritev
//           (vector I/O); anything else is packed to (or unpacked from) a
//           contiguous buffer, converted if the view's datarep is not native.
//   file    one run is one call; several runs in file order with small gaps
//           are data-sieved (read the covering extent in pieces of
//           ind_rd_buffer_size / ind_wr_buffer_size, pick or place the runs;
//           writes read-modify-write under an exclusive byte-range lock);
//           otherwise each run is its own call. romio_ds_read/write force
//           either way.
// When the file is open on several processes and readable (so that some
// process may sieve), plain writes hold a shared byte-range lock over what
// they write: a sieving write of another process reads the holes it does not
// own and writes them back, and without the lock could write back stale
// bytes over a plain write landing in them meanwhile. One process alone, a
// write-only descriptor or romio_ds_write = disable (no sieving) takes no
// lock. Measured (test/bench/io_lockcost.c with STMPI_IO_TIMERS=yes): the
// lock and unlock cost 3-4 us per 4 KiB page-cache write, within the noise
// of the end-to-end times, so it stays on by default.
// Atomic mode holds a byte-range lock (shared for reads, exclusive for
// writes) over the whole access, so overlapping accesses do not interleave.
#include <sys/uio.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/io/file.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/internal.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

// Vector I/O when the memory pieces are few and large; else packing.
constexpr MPI_Count kMaxIov = 4096;
constexpr MPI_Count kMinIovPiece = 1024;

bool in_order(const std::vector<Run>& runs) {
  for (std::size_t i = 1; i < runs.size(); ++i)
    if (runs[i].offset < runs[i - 1].offset + runs[i - 1].length) return false;
  return true;
}

bool want_sieve(Switch mode, const std::vector<Run>& runs) {
  if (runs.size() < 2 || mode == Switch::kDisable || !in_order(runs)) return false;
  if (mode == Switch::kEnable) return true;
  MPI_Count data = 0;
  for (const Run& r : runs) data += r.length;
  const MPI_Count span = runs.back().offset + runs.back().length - runs.front().offset;
  // Sieving pays when the holes it reads are cheaper than the calls it
  // saves: small holes between small pieces (test/bench/io_sieve.c).
  const auto pieces = static_cast<MPI_Count>(runs.size());
  return (span - data) / (pieces - 1) <= sieve_max_hole() && data / pieces <= sieve_max_piece();
}

// The runs [i, j) that fit in one sieve buffer of `limit` bytes from runs[i].
std::size_t sieve_group(const std::vector<Run>& runs, std::size_t i, MPI_Count limit) {
  std::size_t j = i + 1;
  while (j < runs.size() && runs[j].offset + runs[j].length - runs[i].offset <= limit) ++j;
  return j;
}

struct RangeLock {
  Driver* driver = nullptr;
  MPI_Offset lo = 0, len = 0;
  int take(Driver& d, MPI_Offset offset, MPI_Offset length, bool exclusive) {
    if (int err = d.lock(offset, length, exclusive)) return err;
    driver = &d;
    lo = offset;
    len = length;
    return MPI_SUCCESS;
  }
  ~RangeLock() {
    if (driver != nullptr) (void)driver->unlock(lo, len);
  }
};

MPI_Offset span_end(const std::vector<Run>& runs) {
  MPI_Offset end = 0;
  for (const Run& r : runs) end = std::max(end, r.offset + r.length);
  return end;
}
MPI_Offset span_start(const std::vector<Run>& runs) {
  MPI_Offset start = runs.front().offset;
  for (const Run& r : runs) start = std::min(start, r.offset);
  return start;
}

// Whether plain writes must hold a shared lock (see the file comment): not
// when this process disables write sieving (romio_ds_write = disable, a hint
// given to every process when it is given at all).
bool guard_plain_writes(const File& file) {
  return file.comm().size > 1 && file.driver().readable() &&
         file.hints().ds_write != Switch::kDisable;
}

int read_runs_impl(File& file, const std::vector<Run>& runs, char* dst, MPI_Count* done) {
  Driver& d = file.driver();
  MPI_Count pos = 0;
  *done = 0;
  if (!want_sieve(file.hints().ds_read, runs)) {
    for (const Run& r : runs) {
      MPI_Count got = 0;
      if (int err = d.pread(dst + pos, r.length, r.offset, &got)) return err;
      pos += got;
      *done = pos;
      if (got < r.length) return MPI_SUCCESS;  // end of file
    }
    return MPI_SUCCESS;
  }
  std::vector<char> sieve;
  for (std::size_t i = 0; i < runs.size();) {
    const std::size_t j = sieve_group(runs, i, file.hints().ind_rd_buffer_size);
    const MPI_Offset lo = runs[i].offset;
    const MPI_Count span = runs[j - 1].offset + runs[j - 1].length - lo;
    char* base = dst + pos;
    if (j > i + 1) {
      sieve.resize(static_cast<std::size_t>(span));
      base = sieve.data();
    }
    MPI_Count got = 0;
    if (int err = d.pread(base, span, lo, &got)) return err;
    for (std::size_t k = i; k < j; ++k) {
      const MPI_Count at = runs[k].offset - lo;
      const MPI_Count avail = std::clamp<MPI_Count>(got - at, 0, runs[k].length);
      if (j > i + 1) std::memcpy(dst + pos, sieve.data() + at, static_cast<std::size_t>(avail));
      pos += avail;
      *done = pos;
      if (avail < runs[k].length) return MPI_SUCCESS;  // end of file
    }
    i = j;
  }
  return MPI_SUCCESS;
}

int write_runs_impl(File& file, const std::vector<Run>& runs, const char* src, bool locked) {
  Driver& d = file.driver();
  MPI_Count pos = 0;
  const bool guard = !locked && guard_plain_writes(file);
  if (!d.readable() || !want_sieve(file.hints().ds_write, runs)) {
    RangeLock shared;
    if (guard && !runs.empty()) {
      const MPI_Offset lo = span_start(runs);
      const MPI_Offset len = span_end(runs) - lo;
      if (len > 0)  // fcntl takes a length of 0 as "to end of file"
        if (int err = shared.take(d, lo, len, /*exclusive=*/false)) return err;
    }
    for (const Run& r : runs) {
      if (int err = d.pwrite(src + pos, r.length, r.offset)) return err;
      pos += r.length;
    }
    return MPI_SUCCESS;
  }
  std::vector<char> sieve;
  for (std::size_t i = 0; i < runs.size();) {
    const std::size_t j = sieve_group(runs, i, file.hints().ind_wr_buffer_size);
    if (j == i + 1) {
      RangeLock shared;
      if (guard)
        if (int err = shared.take(d, runs[i].offset, runs[i].length, /*exclusive=*/false))
          return err;
      if (int err = d.pwrite(src + pos, runs[i].length, runs[i].offset)) return err;
      pos += runs[i].length;
      i = j;
      continue;
    }
    const MPI_Offset lo = runs[i].offset;
    const MPI_Count span = runs[j - 1].offset + runs[j - 1].length - lo;
    RangeLock lock;
    if (!locked)
      if (int err = lock.take(d, lo, span, /*exclusive=*/true)) return err;
    sieve.assign(static_cast<std::size_t>(span), 0);
    MPI_Count got = 0;
    if (int err = d.pread(sieve.data(), span, lo, &got)) return err;
    for (std::size_t k = i; k < j; ++k) {
      std::memcpy(sieve.data() + (runs[k].offset - lo), src + pos,
                  static_cast<std::size_t>(runs[k].length));
      pos += runs[k].length;
    }
    if (int err = d.pwrite(sieve.data(), span, lo)) return err;
    i = j;
  }
  return MPI_SUCCESS;
}

// The memory pieces of `count` instances of `type` at `buf`, if vector I/O
// suits them (few and large); else false.
bool memory_iov(const void* buf, MPI_Count count, const Datatype& type, std::vector<iovec>& iov) {
  MPI_Count pieces = 0;
  for (const DataBlock& b : type.layout.blocks) pieces += b.count;
  pieces *= count;
  if (pieces > kMaxIov || pieces == 0 || type.size * count / pieces < kMinIovPiece) return false;
  iov.clear();
  const char* base = static_cast<const char*>(buf);
  for (MPI_Count i = 0; i < count; ++i)
    for (const DataBlock& b : type.layout.blocks)
      for (MPI_Count k = 0; k < b.count; ++k)
        iov.push_back({const_cast<char*>(base + i * type.extent + b.disp + k * b.stride),
                       static_cast<size_t>(b.len)});
  return true;
}

int check_count(MPI_Count count) {
  if (count < 0)
    return make_error(MPI_ERR_COUNT, "count=%lld is negative", static_cast<long long>(count));
  return MPI_SUCCESS;
}

int access_check(const File& file, bool write) {
  if (write && (file.amode() & MPI_MODE_RDONLY))
    return make_error(MPI_ERR_READ_ONLY, "writing to \"%s\", opened MPI_MODE_RDONLY",
                      file.name().c_str());
  if (!write && (file.amode() & MPI_MODE_WRONLY))
    return make_error(MPI_ERR_ACCESS, "reading from \"%s\", opened MPI_MODE_WRONLY",
                      file.name().c_str());
  return MPI_SUCCESS;
}

}  // namespace

void set_status(MPI_Status* status, MPI_Count bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status_set_empty_keep_error(status);
  status_set_bytes(status, bytes);
}

int read_runs(File& file, const std::vector<Run>& runs, void* contiguous, MPI_Count* done) {
  MPI_Count got = 0;
  const int err = read_runs_impl(file, runs, static_cast<char*>(contiguous), &got);
  if (done != nullptr) *done = got;
  return err;
}

int write_runs(File& file, const std::vector<Run>& runs, const void* contiguous) {
  return write_runs_impl(file, runs, static_cast<const char*>(contiguous), file.atomic());
}

int read_at(File& file, MPI_Offset offset, void* buf, MPI_Count count, const Datatype& type,
            MPI_Status* status) {
  if (int err = check_count(count)) return err;
  if (int err = access_check(file, false)) return err;
  if (offset < 0)
    return make_error(MPI_ERR_ARG, "offset=%lld is negative", static_cast<long long>(offset));
  const Datarep* rep = file.view().rep;
  MPI_Count bytes = 0;  // in the file
  if (int err = stream_bytes(rep, type, count, &bytes)) return err;
  if (bytes == 0 || !file.view().flat) {
    set_status(status, 0);
    return MPI_SUCCESS;
  }
  std::vector<Run> runs;
  map_view(file, offset, bytes, runs);
  RangeLock lock;
  if (file.atomic()) {
    const MPI_Offset lo = span_start(runs);
    if (int err = lock.take(file.driver(), lo, span_end(runs) - lo, /*exclusive=*/false))
      return err;
  }
  MPI_Count done = 0;
  std::vector<iovec> iov;
  if (rep == nullptr && type.contiguous) {
    if (int err = read_runs_impl(file, runs, static_cast<char*>(buf) + type.true_lb, &done))
      return err;
  } else if (rep == nullptr && runs.size() == 1 && memory_iov(buf, count, type, iov)) {
    if (int err =
            file.driver().preadv(iov.data(), static_cast<int>(iov.size()), runs[0].offset, &done))
      return err;
  } else {
    std::vector<char> tmp(static_cast<std::size_t>(bytes));
    if (int err = read_runs_impl(file, runs, tmp.data(), &done)) return err;
    if (rep == nullptr) {
      type.unpack(tmp.data(), done, count, buf);
    } else {
      if (int err =
              datarep_from_file(*rep, tmp.data(), done, count, const_cast<Datatype&>(type), buf))
        return err;
      done = memory_bytes(rep, type, done);
    }
  }
  set_status(status, done);
  return MPI_SUCCESS;
}

int write_at(File& file, MPI_Offset offset, const void* buf, MPI_Count count, const Datatype& type,
             MPI_Status* status) {
  if (int err = check_count(count)) return err;
  if (int err = access_check(file, true)) return err;
  if (offset < 0)
    return make_error(MPI_ERR_ARG, "offset=%lld is negative", static_cast<long long>(offset));
  const Datarep* rep = file.view().rep;
  MPI_Count bytes = 0;  // in the file
  if (int err = stream_bytes(rep, type, count, &bytes)) return err;
  if (bytes == 0 || !file.view().flat) {
    set_status(status, 0);
    return MPI_SUCCESS;
  }
  std::vector<Run> runs;
  map_view(file, offset, bytes, runs);
  RangeLock lock;
  if (file.atomic()) {
    const MPI_Offset lo = span_start(runs);
    if (int err = lock.take(file.driver(), lo, span_end(runs) - lo, /*exclusive=*/true)) return err;
  }
  std::vector<iovec> iov;
  if (rep == nullptr && type.contiguous) {
    if (int err = write_runs_impl(file, runs, static_cast<const char*>(buf) + type.true_lb,
                                  file.atomic()))
      return err;
  } else if (rep == nullptr && runs.size() == 1 && memory_iov(buf, count, type, iov)) {
    RangeLock shared;
    if (!file.atomic() && guard_plain_writes(file))
      if (int err = shared.take(file.driver(), runs[0].offset, runs[0].length,
                                /*exclusive=*/false))
        return err;
    if (int err = file.driver().pwritev(iov.data(), static_cast<int>(iov.size()), runs[0].offset))
      return err;
  } else {
    std::vector<char> tmp(static_cast<std::size_t>(bytes));
    if (rep == nullptr) type.pack(buf, count, tmp.data());
    else if (int err = datarep_to_file(*rep, buf, count, const_cast<Datatype&>(type), tmp.data()))
      return err;
    if (int err = write_runs_impl(file, runs, tmp.data(), file.atomic())) return err;
  }
  set_status(status, count * type.size);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Datatype;
using mpi::errhan::make_error;
using mpi::io::File;

namespace {

int not_sequential(const File& fh, const char* what) {
  if (fh.amode() & MPI_MODE_SEQUENTIAL)
    return make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                      "%s on \"%s\", opened with MPI_MODE_SEQUENTIAL (only the shared file "
                      "pointer may be used)",
                      what, fh.name().c_str());
  return MPI_SUCCESS;
}

// Individual file pointer: access at it, then advance by the etypes moved.
template <class Access>
int at_pointer(File& fh, MPI_Status* status, Access access) {
  MPI_Status st;
  if (int err = access(fh.position, &st)) return err;
  const MPI_Count bytes = mpi::status_bytes(&st);
  fh.position += bytes / fh.view().etype_size;
  if (status != MPI_STATUS_IGNORE) *status = st;
  return MPI_SUCCESS;
}

}  // namespace

int file_read_at_any(File& fh, MPI_Offset offset, void* buf, MPI_Count count, Datatype& datatype,
                     MPI_Status* status) {
  if (int err = not_sequential(fh, "MPI_File_read_at")) return err;
  return mpi::io::read_at(fh, offset, buf, count, datatype, status);
}

int file_write_at_any(File& fh, MPI_Offset offset, const void* buf, MPI_Count count,
                      Datatype& datatype, MPI_Status* status) {
  if (int err = not_sequential(fh, "MPI_File_write_at")) return err;
  return mpi::io::write_at(fh, offset, buf, count, datatype, status);
}

int file_read_any(File& fh, void* buf, MPI_Count count, Datatype& datatype, MPI_Status* status) {
  if (int err = not_sequential(fh, "MPI_File_read")) return err;
  return at_pointer(fh, status, [&](MPI_Offset at, MPI_Status* st) {
    return mpi::io::read_at(fh, at, buf, count, datatype, st);
  });
}

int file_write_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype,
                   MPI_Status* status) {
  if (int err = not_sequential(fh, "MPI_File_write")) return err;
  return at_pointer(fh, status, [&](MPI_Offset at, MPI_Status* st) {
    return mpi::io::write_at(fh, at, buf, count, datatype, st);
  });
}

}  // namespace stmpi::impl
