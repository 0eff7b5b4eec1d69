// Data representations (MPI 4.1 section 14.5): "native" and "internal" (the
// bytes of memory), "external32" (through the datatype chapter's external32
// packing) and representations registered by the program with
// MPI_Register_datarep(_c).
//
// In a representation where a basic type takes another size in the file
// than in memory, the view's types are laid out in the file with the file
// sizes (filetype.cc) and the data moves as a stream of converted elements:
// `count` items of a memory type become stream_bytes(rep, type, count) file
// bytes, which the view maps onto file runs.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <mpi.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/internal.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

std::vector<std::unique_ptr<Datarep>>& registry() {
  static std::vector<std::unique_ptr<Datarep>> reps = [] {
    std::vector<std::unique_ptr<Datarep>> r;
    const std::pair<const char*, Datarep::Kind> builtin[] = {
        {"native", Datarep::Kind::kNative},
        {"internal", Datarep::Kind::kInternal},
        {"external32", Datarep::Kind::kExternal32}};
    for (auto [name, kind] : builtin) {
      auto rep = std::make_unique<Datarep>();
      rep->name = name;
      rep->kind = kind;
      r.push_back(std::move(rep));
    }
    return r;
  }();
  return reps;
}

unsigned g_generation = 0;

}  // namespace

const Datarep* datarep_find(const char* name) {
  for (const auto& rep : registry())
    if (rep->name == name) return rep.get();
  return nullptr;
}

unsigned datarep_generation() { return g_generation; }

int datarep_to_file(const Datarep& rep, const void* buf, MPI_Count count, Datatype& type,
                    void* out) {
  if (rep.kind == Datarep::Kind::kExternal32) {
    MPI_Count bytes = 0, position = 0;
    if (int err = stream_bytes(&rep, type, count, &bytes)) return err;
    return impl::pack_external_c("external32", buf, count, type, out, bytes, &position);
  }
  if (rep.kind == Datarep::Kind::kUser && (rep.write_fn != nullptr || rep.write_fn_c != nullptr)) {
    // The function converts `count` items of the user's layout into
    // contiguous file data.
    return rep.write_fn_c != nullptr
               ? rep.write_fn_c(const_cast<void*>(buf), type.handle, count, out, 0, rep.extra_state)
               : rep.write_fn(const_cast<void*>(buf), type.handle, static_cast<int>(count), out, 0,
                              rep.extra_state);
  }
  // Internal, or a user representation without a write function: the
  // bytes of memory (which then must take the same room in the file).
  type.pack(buf, count, out);
  return MPI_SUCCESS;
}

int datarep_from_file(const Datarep& rep, const void* in, MPI_Count bytes, MPI_Count count,
                      Datatype& type, void* buf) {
  MPI_Count per = 0;
  if (int err = stream_bytes(&rep, type, 1, &per)) return err;
  const MPI_Count whole = per > 0 ? std::min(bytes / per, count) : 0;
  if (rep.kind == Datarep::Kind::kExternal32) {
    MPI_Count position = 0;
    return impl::unpack_external_c("external32", in, whole * per, &position, buf, whole, type);
  }
  if (rep.kind == Datarep::Kind::kUser && (rep.read_fn != nullptr || rep.read_fn_c != nullptr)) {
    return rep.read_fn_c != nullptr
               ? rep.read_fn_c(buf, type.handle, whole, const_cast<void*>(in), 0, rep.extra_state)
               : rep.read_fn(buf, type.handle, static_cast<int>(whole), const_cast<void*>(in), 0,
                             rep.extra_state);
  }
  type.unpack(in, bytes, count, buf);
  return MPI_SUCCESS;
}

int datarep_extent(const Datarep* rep, Datatype& type, MPI_Count* extent) {
  if (rep == nullptr) {
    *extent = type.extent;
    return MPI_SUCCESS;
  }
  std::shared_ptr<const FlatType> flat;
  if (int err = flat_type(rep, type, &flat)) return err;
  *extent = flat->extent;
  return MPI_SUCCESS;
}

void datarep_finalize() {
  auto& reps = registry();
  reps.erase(std::remove_if(reps.begin(), reps.end(),
                            [](const auto& r) { return r->kind == Datarep::Kind::kUser; }),
             reps.end());
  ++g_generation;  // cached file forms of the dropped representations go stale
}

namespace {

int register_any(const char* datarep, MPI_Datarep_conversion_function* read_fn,
                 MPI_Datarep_conversion_function* write_fn,
                 MPI_Datarep_conversion_function_c* read_fn_c,
                 MPI_Datarep_conversion_function_c* write_fn_c,
                 MPI_Datarep_extent_function* extent_fn, void* extra_state) {
  if (datarep == nullptr) return make_error(MPI_ERR_ARG, "datarep is NULL");
  const std::size_t len = std::strlen(datarep);
  if (len == 0 || len >= MPI_MAX_DATAREP_STRING)
    return make_error(MPI_ERR_ARG, "datarep \"%s\" must have 1 to %d characters", datarep,
                      MPI_MAX_DATAREP_STRING - 1);
  if (datarep_find(datarep) != nullptr)
    return make_error(MPI_ERR_DUP_DATAREP, "datarep \"%s\" is already defined", datarep);
  if (extent_fn == nullptr)
    return make_error(MPI_ERR_ARG, "dtype_file_extent_fn is NULL (datarep \"%s\")", datarep);
  auto rep = std::make_unique<Datarep>();
  rep->name = datarep;
  rep->kind = Datarep::Kind::kUser;
  rep->read_fn = read_fn;
  rep->write_fn = write_fn;
  rep->read_fn_c = read_fn_c;
  rep->write_fn_c = write_fn_c;
  rep->extent_fn = extent_fn;
  rep->extra_state = extra_state;
  registry().push_back(std::move(rep));
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace stmpi::mpi::io

namespace stmpi::impl {

int register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                     MPI_Datarep_conversion_function* write_conversion_fn,
                     MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return mpi::io::register_any(datarep, read_conversion_fn, write_conversion_fn, nullptr, nullptr,
                               dtype_file_extent_fn, extra_state);
}

int register_datarep_c(const char* datarep, MPI_Datarep_conversion_function_c* read_conversion_fn,
                       MPI_Datarep_conversion_function_c* write_conversion_fn,
                       MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return mpi::io::register_any(datarep, nullptr, nullptr, read_conversion_fn, write_conversion_fn,
                               dtype_file_extent_fn, extra_state);
}

}  // namespace stmpi::impl
