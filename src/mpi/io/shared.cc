// Shared file pointer, ordered mode and split collectives (shared.h).
#include "mpi/io/shared.h"

#include <memory>
#include <vector>

#include "mpi/coll/coll.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/io/collective.h"
#include "mpi/io/file.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/nonblocking.h"
#include "mpi/rma/impl_rma.h"
#include "mpi/rma/win.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

Datatype& int64_type() { return *datatype_get(MPI_INT64_T); }

// One atomic operation on the pointer word (rank 0, displacement 0).
int pointer_op(File& file, MPI_Op op, int64_t operand, int64_t* old) {
  SharedPointer* sp = file.shared.get();
  if (sp == nullptr || sp->win == nullptr)
    return make_error(MPI_ERR_INTERN, "file %s has no shared file pointer", file.name().c_str());
  int64_t result = 0;
  if (int err = impl::fetch_and_op(&operand, &result, int64_type(), 0, 0, *op_get(op), *sp->win);
      err != MPI_SUCCESS)
    return err;
  if (int err = impl::win_flush(0, *sp->win); err != MPI_SUCCESS) return err;
  *old = result;
  return MPI_SUCCESS;
}

// Etypes the data of `count` `type` covers.
MPI_Offset etypes_of(const File& file, MPI_Count count, const Datatype& type) {
  return count * type.size / etype_size(file);
}

// The view position (in etypes) of the end of the file: the first position
// whose byte lies at or past the end. Found by bisection over map_view, as
// a view position p lies at byte disp + p * etype size or later.
int eof_position(File& file, MPI_Offset* pos) {
  MPI_Offset size = 0;
  if (int err = file.driver().size(&size); err != MPI_SUCCESS) return err;
  const MPI_Count esize = file.view().etype_file_size;
  const MPI_Offset disp = file.view().disp;
  if (size <= disp) {
    *pos = 0;
    return MPI_SUCCESS;
  }
  MPI_Offset lo = 0, hi = (size - disp + esize - 1) / esize;  // offset(hi) >= size
  std::vector<Run> runs;
  while (lo < hi) {
    const MPI_Offset mid = lo + (hi - lo) / 2;
    runs.clear();
    map_view(file, mid, 1, runs);
    if (!runs.empty() && runs.front().offset < size) lo = mid + 1;
    else hi = mid;
  }
  *pos = lo;
  return MPI_SUCCESS;
}

}  // namespace

int shared_open(File& file) {
  auto sp = std::make_unique<SharedPointer>();
  Comm& comm = file.comm();
  int64_t* word = nullptr;
  const MPI_Aint bytes = comm.rank == 0 ? static_cast<MPI_Aint>(sizeof(int64_t)) : 0;
  if (int err = impl::win_allocate_any(bytes, sizeof(int64_t), MPI_INFO_NULL, comm, &word,
                                       &sp->handle, MPI_WIN_FLAVOR_ALLOCATE);
      err != MPI_SUCCESS)
    return err;
  sp->win = win_get(sp->handle);
  if (comm.rank == 0) *word = 0;
  // Nobody touches the word before rank 0 has cleared it.
  if (int err = coll::barrier(comm); err != MPI_SUCCESS) return err;
  if (int err = impl::win_lock_all(0, *sp->win); err != MPI_SUCCESS) return err;
  file.shared = std::move(sp);
  return MPI_SUCCESS;
}

void shared_close(File& file) {
  nonblocking_drain(file);
  SharedPointer* sp = file.shared.get();
  if (sp == nullptr) return;
  if (sp->win != nullptr) {
    (void)impl::win_unlock_all(*sp->win);
    (void)impl::win_free(&sp->handle);
  }
  file.shared.reset();
}

// MPI_File_set_view (collective) puts the shared pointer back to zero:
// rank 0 stores it; the caller's agreement afterwards orders it before any
// later use.
int shared_set_view(File& file) {
  if (file.comm().rank != 0) return MPI_SUCCESS;
  int64_t old = 0;
  return pointer_op(file, MPI_REPLACE, 0, &old);
}

int shared_fetch_add(File& file, MPI_Offset delta, MPI_Offset* old) {
  int64_t value = 0;
  if (int err = pointer_op(file, MPI_SUM, delta, &value); err != MPI_SUCCESS) return err;
  *old = value;
  return MPI_SUCCESS;
}

int read_shared(File& file, void* buf, MPI_Count count, const Datatype& type, MPI_Status* status) {
  if (int err = check_access(file, false, false, "MPI_File_read_shared"); err != MPI_SUCCESS)
    return err;
  MPI_Offset at = 0;
  if (int err = shared_fetch_add(file, etypes_of(file, count, type), &at); err != MPI_SUCCESS)
    return err;
  return read_at(file, at, buf, count, type, status);
}

int write_shared(File& file, const void* buf, MPI_Count count, const Datatype& type,
                 MPI_Status* status) {
  if (int err = check_access(file, true, false, "MPI_File_write_shared"); err != MPI_SUCCESS)
    return err;
  MPI_Offset at = 0;
  if (int err = shared_fetch_add(file, etypes_of(file, count, type), &at); err != MPI_SUCCESS)
    return err;
  return write_at(file, at, buf, count, type, status);
}

namespace {

// Ordered mode: this process's position. An exclusive scan of the sizes,
// one fetch-and-op by the last process, a broadcast of the old pointer.
int ordered_position(File& file, MPI_Count count, const Datatype& type, MPI_Offset* at) {
  Comm& comm = file.comm();
  int64_t mine = etypes_of(file, count, type);
  int64_t before = 0;
  std::vector<int64_t> all(static_cast<std::size_t>(comm.size));
  // The exclusive scan as an allgather of one word per process: the last
  // process needs the total as well, and this takes one collective.
  if (int err = coll::allgather(&mine, 1, &int64_type(), all.data(), 1, int64_type(), comm);
      err != MPI_SUCCESS)
    return err;
  int64_t total = 0;
  for (int r = 0; r < comm.size; ++r) {
    if (r == comm.rank) before = total;
    total += all[static_cast<std::size_t>(r)];
  }
  int64_t base = 0;
  int err = MPI_SUCCESS;
  const int last = comm.size - 1;
  if (comm.rank == last) err = pointer_op(file, MPI_SUM, total, &base);
  // A failed move reaches every process as a negative base.
  int64_t shared_base = err == MPI_SUCCESS ? base : -1;
  if (int e = coll::bcast(&shared_base, 1, int64_type(), last, comm); e != MPI_SUCCESS) return e;
  if (err != MPI_SUCCESS) return err;
  if (shared_base < 0)
    return make_error(MPI_ERR_OTHER, "moving the shared file pointer of %s failed on rank %d",
                      file.name().c_str(), last);
  *at = shared_base + before;
  return MPI_SUCCESS;
}

}  // namespace

int read_ordered(File& file, void* buf, MPI_Count count, const Datatype& type, MPI_Status* status) {
  if (int err = check_access(file, false, false, "MPI_File_read_ordered"); err != MPI_SUCCESS)
    return err;
  MPI_Offset at = 0;
  if (int err = ordered_position(file, count, type, &at); err != MPI_SUCCESS) return err;
  return read_at_all(file, at, buf, count, type, status);
}

int write_ordered(File& file, const void* buf, MPI_Count count, const Datatype& type,
                  MPI_Status* status) {
  if (int err = check_access(file, true, false, "MPI_File_write_ordered"); err != MPI_SUCCESS)
    return err;
  MPI_Offset at = 0;
  if (int err = ordered_position(file, count, type, &at); err != MPI_SUCCESS) return err;
  return write_at_all(file, at, buf, count, type, status);
}

bool split_active(const File& file) {
  return file.shared != nullptr && file.shared->split.kind != SplitCollective::Kind::kNone;
}

int split_begin(File& file, SplitCollective::Kind kind, const void* buf, int error,
                const MPI_Status& status, const char* function) {
  SplitCollective& split = file.shared->split;
  split.kind = kind;
  split.buf = buf;
  split.error = error;
  split.status = status;
  (void)function;
  return MPI_SUCCESS;
}

int split_end(File& file, SplitCollective::Kind kind, const void* buf, MPI_Status* status,
              const char* function) {
  if (file.shared == nullptr) return make_error(MPI_ERR_INTERN, "%s: no file state", function);
  SplitCollective& split = file.shared->split;
  if (split.kind == SplitCollective::Kind::kNone)
    return make_error(MPI_ERR_OTHER, "%s: no split collective was begun on file %s", function,
                      file.name().c_str());
  if (split.kind != kind)
    return make_error(MPI_ERR_OTHER,
                      "%s does not end the split collective begun on file %s (another "
                      "kind of split collective is in progress)",
                      function, file.name().c_str());
  if (split.buf != buf)
    return make_error(MPI_ERR_BUFFER, "%s: buf=%p is not the buffer %p given to the begin call",
                      function, buf, split.buf);
  const int error = split.error;
  if (status != MPI_STATUS_IGNORE) *status = split.status;
  split = SplitCollective{};
  return error;
}

}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Datatype;
using mpi::io::File;

int file_read_shared_any(File& fh, void* buf, MPI_Count count, Datatype& datatype,
                         MPI_Status* status) {
  return mpi::io::read_shared(fh, buf, count, datatype, status);
}

int file_write_shared_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype,
                          MPI_Status* status) {
  return mpi::io::write_shared(fh, buf, count, datatype, status);
}

int file_read_ordered_any(File& fh, void* buf, MPI_Count count, Datatype& datatype,
                          MPI_Status* status) {
  return mpi::io::read_ordered(fh, buf, count, datatype, status);
}

int file_write_ordered_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype,
                           MPI_Status* status) {
  return mpi::io::write_ordered(fh, buf, count, datatype, status);
}

int file_get_position_shared(File& fh, MPI_Offset* offset) {
  int64_t value = 0;
  if (int err = mpi::io::pointer_op(fh, MPI_NO_OP, 0, &value); err != MPI_SUCCESS) return err;
  *offset = value;
  return MPI_SUCCESS;
}

// Collective: after a barrier (every earlier shared access has moved the
// pointer), rank 0 computes and stores the new value; its broadcast result
// releases the others.
int file_seek_shared(File& fh, MPI_Offset offset, int whence) {
  if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    return mpi::errhan::make_error(
        MPI_ERR_ARG, "whence=%d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
  mpi::Comm& comm = fh.comm();
  if (int err = mpi::coll::barrier(comm); err != MPI_SUCCESS) return err;
  int err = MPI_SUCCESS;
  if (comm.rank == 0) {
    int64_t base = 0;
    if (whence == MPI_SEEK_CUR) err = mpi::io::pointer_op(fh, MPI_NO_OP, 0, &base);
    else if (whence == MPI_SEEK_END) err = mpi::io::eof_position(fh, &base);
    if (err == MPI_SUCCESS && base + offset < 0)
      err = mpi::errhan::make_error(MPI_ERR_ARG,
                                    "MPI_File_seek_shared: offset=%lld moves the shared file "
                                    "pointer before the start of the view (to %lld)",
                                    static_cast<long long>(offset),
                                    static_cast<long long>(base + offset));
    int64_t old = 0;
    if (err == MPI_SUCCESS) err = mpi::io::pointer_op(fh, MPI_REPLACE, base + offset, &old);
  }
  int cls = err == MPI_SUCCESS ? 0 : mpi::errhan::error_class_of(err);
  if (int e = mpi::coll::bcast(&cls, 1, *mpi::datatype_get(MPI_INT), 0, comm); e != MPI_SUCCESS)
    return e;
  if (err != MPI_SUCCESS || cls == 0) return err;
  return mpi::errhan::make_error(cls, "MPI_File_seek_shared failed on rank 0 of file %s",
                                 fh.name().c_str());
}

}  // namespace stmpi::impl
