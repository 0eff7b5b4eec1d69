// The File object, its handle table and the calls on whole files: collective
// open and close, delete, size, preallocate, sync, group, access mode,
// atomicity, info, Fortran conversion.
//
// Open (MPI 4.1 section 14.2.1) is collective and never leaves a process
// waiting: every process checks its arguments, rank 0 opens first (creating
// the file if asked), all learn of any failure in one allgather, then the
// others open (without CREATE and EXCL) and all learn again. Any failure
// closes what was opened and every process returns an error: its own, or
// one of the first failing process's class naming that process.
#include "mpi/io/file.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/info/info.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/internal.h"
#include "mpi/io/nonblocking.h"
#include "mpi/io/shared.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

std::unordered_set<File*>& open_files() {
  static std::unordered_set<File*> files;
  return files;
}
// Fortran handles: index i names fortran_files()[i]; 0 is MPI_FILE_NULL.
std::vector<File*>& fortran_files() {
  static std::vector<File*> files(1, nullptr);
  return files;
}

void register_file(File* file) {
  open_files().insert(file);
  auto& table = fortran_files();
  auto slot = std::find(table.begin() + 1, table.end(), nullptr);
  file->fortran_index = static_cast<int>(slot - table.begin());
  if (slot == table.end()) table.push_back(file);
  else *slot = file;
}

void unregister_file(File* file) {
  open_files().erase(file);
  auto& table = fortran_files();
  if (file->fortran_index > 0 && file->fortran_index < static_cast<int>(table.size()))
    table[static_cast<std::size_t>(file->fortran_index)] = nullptr;
}

int check_amode(int amode, const char* name) {
  constexpr int kKnown = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                         MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                         MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if (amode & ~kKnown)
    return make_error(MPI_ERR_AMODE, "MPI_File_open of \"%s\": amode=0x%x has unknown bits", name,
                      amode);
  const int rw = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (rw != MPI_MODE_RDONLY && rw != MPI_MODE_WRONLY && rw != MPI_MODE_RDWR)
    return make_error(MPI_ERR_AMODE,
                      "MPI_File_open of \"%s\": amode=0x%x must have exactly one of "
                      "MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR",
                      name, amode);
  if (rw == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return make_error(MPI_ERR_AMODE,
                      "MPI_File_open of \"%s\": amode=0x%x: MPI_MODE_RDONLY cannot go with "
                      "MPI_MODE_CREATE or MPI_MODE_EXCL",
                      name, amode);
  if (rw == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
    return make_error(MPI_ERR_AMODE,
                      "MPI_File_open of \"%s\": amode=0x%x: MPI_MODE_RDWR cannot go with "
                      "MPI_MODE_SEQUENTIAL",
                      name, amode);
  return MPI_SUCCESS;
}

void free_comm(Comm* comm) {
  if (comm == nullptr) return;
  MPI_Comm handle = comm->handle;
  (void)impl::comm_free(&handle);
}

}  // namespace

File::File() = default;

File::~File() {
  view_clear(view_);
  if (errhandler_ != nullptr) errhandler_release(errhandler_);
  shared.reset();
}

void File::set_errhandler(Errhandler* eh) {
  errhandler_retain(eh);
  if (errhandler_ != nullptr) errhandler_release(errhandler_);
  errhandler_ = eh;
}

File* file_get(MPI_File handle) {
  if (handle == MPI_FILE_NULL) return nullptr;
  auto* file = reinterpret_cast<File*>(handle);
  return open_files().count(file) != 0 ? file : nullptr;
}

int agree(Comm& comm, int local, const char* what) {
  const int mine = local == MPI_SUCCESS ? 0 : errhan::error_class_of(local);
  std::vector<int> all(static_cast<std::size_t>(comm.size));
  Datatype& int_type = *datatype_get(MPI_INT);
  if (int err = coll::allgather(&mine, 1, &int_type, all.data(), 1, int_type, comm))
    return local != MPI_SUCCESS ? local : err;
  if (local != MPI_SUCCESS) return local;
  for (int r = 0; r < comm.size; ++r) {
    if (all[static_cast<std::size_t>(r)] != 0)
      return make_error(all[static_cast<std::size_t>(r)], "%s failed on rank %d (%s)", what, r,
                        errhan::class_string(all[static_cast<std::size_t>(r)]));
  }
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Comm;
using mpi::errhan::make_error;
using mpi::io::agree;
using mpi::io::File;

int file_open(Comm& comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  *fh = MPI_FILE_NULL;
  if (comm.is_inter()) return make_error(MPI_ERR_COMM, "MPI_File_open needs an intracommunicator");
  int local = mpi::io::check_amode(amode, filename);
  if (local == MPI_SUCCESS && info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    local = make_error(MPI_ERR_INFO, "info=0x%x is not a valid info object",
                       static_cast<unsigned>(info));
  MPI_Comm dup = MPI_COMM_NULL;
  if (int err = comm_dup(comm, &dup)) return local != MPI_SUCCESS ? local : err;
  auto file = std::make_unique<File>();
  file->comm_ = mpi::comm_get(dup);
  file->amode_ = amode;
  file->name_ = filename;
  int perm = 0666;
  if (local == MPI_SUCCESS) mpi::io::apply_hints(file->hints(), mpi::info_get(info), &perm);
  Comm& fcomm = *file->comm_;
  const std::string what = "MPI_File_open of \"" + file->name_ + "\"";
  auto fail = [&](int err) {
    if (file->driver_) (void)file->driver_->close();
    mpi::io::free_comm(file->comm_);
    return err;
  };
  // Rank 0 first: it creates the file if asked.
  if (fcomm.rank == 0 && local == MPI_SUCCESS)
    local = mpi::io::posix_open(file->name_, amode, perm, &file->driver_, "MPI_File_open");
  if (int err = agree(fcomm, local, what.c_str())) return fail(err);
  if (fcomm.rank != 0)
    local = mpi::io::posix_open(file->name_, amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL), perm,
                                &file->driver_, "MPI_File_open");
  if (int err = agree(fcomm, local, what.c_str())) return fail(err);
  mpi::io::view_init(*file);
  if (amode & MPI_MODE_APPEND) {
    MPI_Offset size = 0;
    local = file->driver().size(&size);
    file->position = size;
  }
  file->set_errhandler(mpi::io::default_file_errhandler());
  if (local == MPI_SUCCESS) local = mpi::io::shared_open(*file);
  // MPI_MODE_APPEND: the shared pointer starts at the end of the file too.
  if (local == MPI_SUCCESS && (amode & MPI_MODE_APPEND) && fcomm.rank == 0 && file->position > 0) {
    MPI_Offset old = 0;
    local = mpi::io::shared_fetch_add(*file, file->position, &old);
  }
  if (int err = agree(fcomm, local, what.c_str())) {
    mpi::io::shared_close(*file);
    return fail(err);
  }
  File* opened = file.release();
  mpi::io::register_file(opened);
  *fh = opened->handle();
  return MPI_SUCCESS;
}

int file_close(MPI_File* fh) {
  File* file = mpi::io::file_get(*fh);
  mpi::io::shared_close(*file);
  int err = file->driver().close();
  // Every process has closed before the file is removed.
  const int agreed = agree(file->comm(), err, "MPI_File_close");
  if (err == MPI_SUCCESS && agreed == MPI_SUCCESS && (file->amode() & MPI_MODE_DELETE_ON_CLOSE) &&
      file->comm().rank == 0)
    err = mpi::io::posix_delete(file->name(), "MPI_File_close");
  mpi::io::unregister_file(file);
  mpi::io::free_comm(file->comm_);
  delete file;
  *fh = MPI_FILE_NULL;
  return err;
}

int file_delete(const char* filename, MPI_Info info) {
  if (info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    return make_error(MPI_ERR_INFO, "info=0x%x is not a valid info object",
                      static_cast<unsigned>(info));
  return mpi::io::posix_delete(filename, "MPI_File_delete");
}

int file_get_size(File& fh, MPI_Offset* size) { return fh.driver().size(size); }

int file_set_size(File& fh, MPI_Offset size) {
  int err = MPI_SUCCESS;
  if (size < 0)
    err = make_error(MPI_ERR_ARG, "size=%lld is negative", static_cast<long long>(size));
  else if (fh.amode() & MPI_MODE_RDONLY)
    err = make_error(MPI_ERR_READ_ONLY, "MPI_File_set_size on \"%s\", opened read-only",
                     fh.name().c_str());
  else if (fh.amode() & MPI_MODE_SEQUENTIAL)
    err = make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                     "MPI_File_set_size on \"%s\", opened with MPI_MODE_SEQUENTIAL",
                     fh.name().c_str());
  // Every process has arrived (and checked) before the size changes.
  if (int e = agree(fh.comm(), err, "MPI_File_set_size")) return e;
  if (fh.comm().rank == 0) err = fh.driver().truncate(size);
  return agree(fh.comm(), err, "MPI_File_set_size");
}

int file_preallocate(File& fh, MPI_Offset size) {
  int err = MPI_SUCCESS;
  if (size < 0)
    err = make_error(MPI_ERR_ARG, "size=%lld is negative", static_cast<long long>(size));
  else if (fh.amode() & MPI_MODE_RDONLY)
    err = make_error(MPI_ERR_READ_ONLY, "MPI_File_preallocate on \"%s\", opened read-only",
                     fh.name().c_str());
  else if (fh.amode() & MPI_MODE_SEQUENTIAL)
    err = make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                     "MPI_File_preallocate on \"%s\", opened with MPI_MODE_SEQUENTIAL",
                     fh.name().c_str());
  // Every process has arrived (and checked) before the size changes.
  if (int e = agree(fh.comm(), err, "MPI_File_preallocate")) return e;
  if (fh.comm().rank == 0) err = fh.driver().allocate(size);
  return agree(fh.comm(), err, "MPI_File_preallocate");
}

int file_sync(File& fh) { return agree(fh.comm(), fh.driver().sync(), "MPI_File_sync"); }

int file_get_group(File& fh, MPI_Group* group) { return comm_group(fh.comm(), group); }

int file_get_amode(File& fh, int* amode) {
  *amode = fh.amode();
  return MPI_SUCCESS;
}

int file_set_atomicity(File& fh, int flag) {
  const int mine = flag != 0 ? 1 : 0;
  std::vector<int> all(static_cast<std::size_t>(fh.comm().size));
  mpi::Datatype& int_type = *mpi::datatype_get(MPI_INT);
  if (int err = mpi::coll::allgather(&mine, 1, &int_type, all.data(), 1, int_type, fh.comm()))
    return err;
  if (std::any_of(all.begin(), all.end(), [&](int v) { return v != mine; }))
    return make_error(MPI_ERR_NOT_SAME,
                      "MPI_File_set_atomicity: the processes passed different "
                      "flags");
  mpi::io::nonblocking_drain(fh);  // queued accesses keep the mode they started in
  fh.set_atomic(mine != 0);
  return MPI_SUCCESS;
}

int file_get_atomicity(File& fh, int* flag) {
  *flag = fh.atomic() ? 1 : 0;
  return MPI_SUCCESS;
}

int file_set_info(File& fh, MPI_Info info) {
  if (info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    return make_error(MPI_ERR_INFO, "info=0x%x is not a valid info object",
                      static_cast<unsigned>(info));
  mpi::io::nonblocking_drain(fh);  // the I/O thread reads the hints
  mpi::io::apply_hints(fh.hints(), mpi::info_get(info), nullptr);
  return MPI_SUCCESS;
}

int file_get_info(File& fh, MPI_Info* info_used) {
  *info_used = mpi::io::hints_to_info(fh);
  return MPI_SUCCESS;
}

MPI_Fint file_c2f(MPI_File file) {
  File* f = mpi::io::file_get(file);
  return f != nullptr ? f->fortran_index : 0;
}

MPI_File file_f2c(MPI_Fint file) {
  auto& table = mpi::io::fortran_files();
  if (file <= 0 || file >= static_cast<MPI_Fint>(table.size())) return MPI_FILE_NULL;
  File* f = table[static_cast<std::size_t>(file)];
  return f != nullptr ? f->handle() : MPI_FILE_NULL;
}

}  // namespace stmpi::impl
