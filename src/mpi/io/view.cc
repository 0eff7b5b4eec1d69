// File views (MPI 4.1 section 14.3): set/get, the mapping of view positions
// to file byte runs, the individual file pointer (seek, get_position) and
// get_byte_offset / get_type_extent.
//
// A filetype is flattened once per data representation into the byte runs
// of one instance (FlatType, filetype.cc, kept on the datatype); instance k
// of the filetype starts at disp + k * extent. A position in the view is a data offset (in etypes);
// data byte b lies in instance b / size, in the run whose data_start is the
// last one not after b % size.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <mpi.h>

#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/info/info.h"
#include "mpi/io/file.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/internal.h"
#include "mpi/io/nonblocking.h"
#include "mpi/io/shared.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

// The standard asks for etypes and filetypes whose displacements are not
// negative and do not decrease, and that do not overlap in a file opened for
// writing; MPI_ERR_IO, as MPICH.
int check_monotonic(const Datatype& type, const char* what, bool writable) {
  MPI_Aint last = 0, end = 0;
  for (const DataBlock& b : type.layout.blocks) {
    if (b.len == 0) continue;
    if (b.disp < 0)
      return make_error(MPI_ERR_IO, "the %s has a negative displacement (%ld)", what,
                        static_cast<long>(b.disp));
    if (b.disp < last || (b.count > 1 && b.stride < 0))
      return make_error(MPI_ERR_IO, "the %s has decreasing displacements", what);
    if (writable && (b.disp < end || (b.count > 1 && b.stride < b.len)))
      return make_error(MPI_ERR_IO, "the %s overlaps itself, in a file opened for writing", what);
    last = b.disp + (b.count - 1) * b.stride;
    end = std::max(end, last + b.len);
  }
  return MPI_SUCCESS;
}

}  // namespace

void view_clear(View& view) {
  if (view.etype != nullptr) datatype_release(view.etype);
  if (view.filetype != nullptr) datatype_release(view.filetype);
  view.etype = view.filetype = nullptr;
  view.flat.reset();
}

void view_init(File& file) {
  View& v = file.view();
  view_clear(v);
  v.disp = 0;
  v.etype = datatype_get(MPI_BYTE);
  v.filetype = datatype_get(MPI_BYTE);
  datatype_retain(v.etype);
  datatype_retain(v.filetype);
  v.datarep = "native";
  v.rep = nullptr;
  v.etype_size = 1;
  v.etype_file_size = 1;
  (void)flat_type(nullptr, *v.filetype, &v.flat);  // native: cannot fail
}

void map_view(const File& file, MPI_Offset etype_offset, MPI_Count bytes, std::vector<Run>& out) {
  map_view(file.view(), etype_offset, bytes, out);
}

void map_view(const View& v, MPI_Offset etype_offset, MPI_Count bytes, std::vector<Run>& out) {
  out.clear();
  if (bytes <= 0 || !v.flat) return;
  const FlatType& f = *v.flat;
  MPI_Count b = etype_offset * v.etype_file_size;
  if (f.contiguous) {
    out.push_back({v.disp + b, bytes});
    return;
  }
  MPI_Offset instance = b / f.size;
  MPI_Count in = b % f.size;
  auto it = std::upper_bound(f.data_start.begin(), f.data_start.end(), in);
  std::size_t r = static_cast<std::size_t>(it - f.data_start.begin()) - 1;
  MPI_Count skip = in - f.data_start[r];
  while (bytes > 0) {
    const Run& run = f.runs[r];
    const MPI_Count len = std::min(run.length - skip, bytes);
    const MPI_Offset at = v.disp + instance * f.extent + run.offset + skip;
    if (!out.empty() && out.back().offset + out.back().length == at) out.back().length += len;
    else out.push_back({at, len});
    bytes -= len;
    skip = 0;
    if (++r == f.runs.size()) {
      r = 0;
      ++instance;
    }
  }
}

MPI_Offset view_position_of_byte(const File& file, MPI_Offset byte) {
  const View& v = file.view();
  if (!v.flat || byte <= v.disp) return 0;
  const FlatType& f = *v.flat;
  const MPI_Offset rel = byte - v.disp;
  MPI_Count data;
  if (f.contiguous) {
    data = rel;
  } else {
    const MPI_Offset instance = rel / f.extent;
    const MPI_Offset in = rel % f.extent;
    data = instance * f.size;
    for (std::size_t r = 0; r < f.runs.size(); ++r) {
      const Run& run = f.runs[r];
      if (in >= run.offset + run.length) {
        data += run.length;
      } else {
        if (in > run.offset) data += in - run.offset;
        break;
      }
    }
  }
  return (data + v.etype_file_size - 1) / v.etype_file_size;
}

}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Datatype;
using mpi::errhan::make_error;
using mpi::io::File;

namespace {

// The local checks of MPI_File_set_view; *rep gets the representation.
int check_view(const File& fh, MPI_Offset disp, const Datatype& etype, Datatype& filetype,
               const char* datarep, MPI_Info info, const mpi::io::Datarep** rep,
               std::shared_ptr<const mpi::io::FlatType>* eflat,
               std::shared_ptr<const mpi::io::FlatType>* fflat) {
  if (!etype.committed && !etype.predefined)
    return make_error(MPI_ERR_TYPE, "etype is not committed");
  if (!filetype.committed && !filetype.predefined)
    return make_error(MPI_ERR_TYPE, "filetype is not committed");
  if (etype.size <= 0)
    return make_error(MPI_ERR_TYPE, "etype has size %lld; it must hold data",
                      static_cast<long long>(etype.size));
  if (filetype.size % etype.size != 0)
    return make_error(MPI_ERR_TYPE,
                      "filetype holds %lld bytes, not a multiple of the etype's %lld bytes",
                      static_cast<long long>(filetype.size), static_cast<long long>(etype.size));
  if (filetype.size > 0 && filetype.extent <= 0)
    return make_error(MPI_ERR_TYPE, "filetype has extent %ld; it must be positive",
                      static_cast<long>(filetype.extent));
  const bool writable = !(fh.amode() & MPI_MODE_RDONLY);
  if (int err = mpi::io::check_monotonic(etype, "etype", writable)) return err;
  if (int err = mpi::io::check_monotonic(filetype, "filetype", writable)) return err;
  if (datarep == nullptr) return make_error(MPI_ERR_ARG, "datarep is NULL");
  *rep = mpi::io::datarep_find(datarep);
  if (*rep == nullptr)
    return make_error(MPI_ERR_UNSUPPORTED_DATAREP, "datarep \"%s\" is not a known representation",
                      datarep);
  // The types' layouts in the file (their sizes there may differ from memory's).
  const mpi::io::Datarep* in_file =
      (*rep)->kind == mpi::io::Datarep::Kind::kNative ? nullptr : *rep;
  if (int err = mpi::io::flat_type(in_file, etype, eflat)) return err;
  if (int err = mpi::io::flat_type(in_file, filetype, fflat)) return err;
  if ((*eflat)->size <= 0 || (*fflat)->size % (*eflat)->size != 0)
    return make_error(MPI_ERR_TYPE,
                      "in datarep \"%s\" the filetype holds %lld bytes, not a multiple of the "
                      "etype's %lld",
                      datarep, static_cast<long long>((*fflat)->size),
                      static_cast<long long>((*eflat)->size));
  if ((*fflat)->size > 0 && (*fflat)->extent <= 0)
    return make_error(MPI_ERR_TYPE, "in datarep \"%s\" the filetype has extent %ld in the file",
                      datarep, static_cast<long>((*fflat)->extent));
  if (disp == MPI_DISPLACEMENT_CURRENT && !(fh.amode() & MPI_MODE_SEQUENTIAL))
    return make_error(MPI_ERR_ARG,
                      "disp=MPI_DISPLACEMENT_CURRENT needs a file opened with "
                      "MPI_MODE_SEQUENTIAL");
  if (disp != MPI_DISPLACEMENT_CURRENT && disp < 0)
    return make_error(MPI_ERR_ARG, "disp=%lld is negative", static_cast<long long>(disp));
  if (info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    return make_error(MPI_ERR_INFO, "info=0x%x is not a valid info object",
                      static_cast<unsigned>(info));
  return MPI_SUCCESS;
}

}  // namespace

// Collective: a process whose arguments fail still takes part in the
// agreement at the end, so no process waits for it.
int file_set_view(File& fh, MPI_Offset disp, Datatype& etype, Datatype& filetype,
                  const char* datarep, MPI_Info info) {
  const mpi::io::Datarep* rep = nullptr;
  std::shared_ptr<const mpi::io::FlatType> eflat, fflat;
  int err = check_view(fh, disp, etype, filetype, datarep, info, &rep, &eflat, &fflat);
  const bool current = disp == MPI_DISPLACEMENT_CURRENT;
  if (current) {
    // The current position of the shared file pointer, as a byte offset;
    // every process reads it before it goes back to zero.
    MPI_Offset shared_at = 0;
    if (err == MPI_SUCCESS) err = mpi::io::shared_fetch_add(fh, 0, &shared_at);
    std::vector<mpi::io::Run> runs;
    if (err == MPI_SUCCESS) mpi::io::map_view(fh, shared_at, 1, runs);
    disp = runs.empty() ? fh.view().disp : runs.front().offset;
    if (int e = mpi::io::agree(fh.comm(), err, "MPI_File_set_view")) return e;
  }
  if (err == MPI_SUCCESS) {
    // Nonblocking accesses still queued run with the view they started with.
    mpi::io::nonblocking_drain(fh);
    mpi::io::View& v = fh.view();
    mpi::datatype_retain(&etype);
    mpi::datatype_retain(&filetype);
    mpi::io::view_clear(v);
    v.disp = disp;
    v.etype = &etype;
    v.filetype = &filetype;
    v.datarep = rep->name;
    v.rep = rep->kind == mpi::io::Datarep::Kind::kNative ? nullptr : rep;
    v.etype_size = etype.size;
    v.etype_file_size = eflat->size;
    v.flat = filetype.size > 0 ? std::move(fflat) : nullptr;
    fh.position = 0;
    mpi::io::apply_hints(fh.hints(), mpi::info_get(info), nullptr);
    // Both file pointers go back to zero (shared_set_view resets the shared
    // one); the agreement after it keeps every process from using the
    // shared pointer before then.
    err = mpi::io::shared_set_view(fh);
  }
  return mpi::io::agree(fh.comm(), err, "MPI_File_set_view");
}

int file_get_view(File& fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                  char* datarep) {
  const mpi::io::View& v = fh.view();
  *disp = v.disp;
  // Derived types are returned as new handles to the same type (the caller
  // frees them); predefined ones as they are.
  if (!v.etype->predefined) mpi::datatype_retain(v.etype);
  if (!v.filetype->predefined) mpi::datatype_retain(v.filetype);
  *etype = v.etype->handle;
  *filetype = v.filetype->handle;
  if (datarep != nullptr) {
    std::strncpy(datarep, v.datarep.c_str(), MPI_MAX_DATAREP_STRING - 1);
    datarep[MPI_MAX_DATAREP_STRING - 1] = '\0';
  }
  return MPI_SUCCESS;
}

int file_seek(File& fh, MPI_Offset offset, int whence) {
  if (fh.amode() & MPI_MODE_SEQUENTIAL)
    return make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                      "MPI_File_seek on a file opened with MPI_MODE_SEQUENTIAL");
  MPI_Offset base = 0;
  switch (whence) {
    case MPI_SEEK_SET: break;
    case MPI_SEEK_CUR: base = fh.position; break;
    case MPI_SEEK_END: {
      MPI_Offset size = 0;
      if (int err = fh.driver().size(&size)) return err;
      base = mpi::io::view_position_of_byte(fh, size);
      break;
    }
    default: return make_error(MPI_ERR_ARG, "whence=%d is not MPI_SEEK_SET/CUR/END", whence);
  }
  if (base + offset < 0)
    return make_error(MPI_ERR_ARG, "the new position (%lld etypes) would be negative",
                      static_cast<long long>(base + offset));
  fh.position = base + offset;
  return MPI_SUCCESS;
}

int file_get_position(File& fh, MPI_Offset* offset) {
  *offset = fh.position;
  return MPI_SUCCESS;
}

int file_get_byte_offset(File& fh, MPI_Offset offset, MPI_Offset* disp) {
  if (offset < 0)
    return make_error(MPI_ERR_ARG, "offset=%lld is negative", static_cast<long long>(offset));
  if (!fh.view().flat) {
    *disp = fh.view().disp;
    return MPI_SUCCESS;
  }
  std::vector<mpi::io::Run> runs;
  mpi::io::map_view(fh, offset, 1, runs);
  *disp = runs.front().offset;
  return MPI_SUCCESS;
}

int file_get_type_extent(File& fh, Datatype& datatype, MPI_Aint* extent) {
  MPI_Count e = 0;
  if (int err = mpi::io::datarep_extent(fh.view().rep, datatype, &e)) return err;
  *extent = static_cast<MPI_Aint>(e);
  return MPI_SUCCESS;
}

int file_get_type_extent_c(File& fh, Datatype& datatype, MPI_Count* extent) {
  return mpi::io::datarep_extent(fh.view().rep, datatype, extent);
}

}  // namespace stmpi::impl
