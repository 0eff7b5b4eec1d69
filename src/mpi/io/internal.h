// What the files of src/mpi/io share that is not part of the chapter's
// interface (file.h): agreement after a collective step, hints, data
// representations and access checks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <mpi.h>

#include "mpi/io/file.h"

namespace stmpi::mpi {
struct Info;
}  // namespace stmpi::mpi

namespace stmpi::mpi::io {

// Collective over comm: every process learns whether any failed. Returns
// `local` where it failed, else (some other process failed) an error of the
// first failing process's class naming that process and `what`.
int agree(Comm& comm, int local, const char* what);

// Hints (hints.cc). Applies the keys of `info` (may be nullptr) to `hints`;
// *perm gets the file_perm hint if given. Unknown keys are ignored.
void apply_hints(Hints& hints, const Info* info, int* perm);
// A new info object with the hints in effect for `file` (MPI_File_get_info).
MPI_Info hints_to_info(const File& file);

// Data representations (datarep.cc).
struct Datarep {
  enum class Kind { kNative, kInternal, kExternal32, kUser };
  std::string name;
  Kind kind = Kind::kNative;
  MPI_Datarep_conversion_function* read_fn = nullptr;
  MPI_Datarep_conversion_function* write_fn = nullptr;
  MPI_Datarep_conversion_function_c* read_fn_c = nullptr;
  MPI_Datarep_conversion_function_c* write_fn_c = nullptr;
  MPI_Datarep_extent_function* extent_fn = nullptr;
  void* extra_state = nullptr;
};
// nullptr if `name` names no representation.
const Datarep* datarep_find(const char* name);
// Bumped when user representations are dropped (MPI_Finalize), so cached
// file forms computed for them are not found again.
unsigned datarep_generation();
// `count` elements of `type` at `buf` into the file representation
// (stream_bytes(rep, type, count) contiguous bytes at `out`), and back
// (`bytes` bytes at `in`, whole elements only).
int datarep_to_file(const Datarep& rep, const void* buf, MPI_Count count, Datatype& type,
                    void* out);
int datarep_from_file(const Datarep& rep, const void* in, MPI_Count bytes, MPI_Count count,
                      Datatype& type, void* buf);
// The extent of `type` in the file (MPI_File_get_type_extent).
int datarep_extent(const Datarep* rep, Datatype& type, MPI_Count* extent);
// Drops user representations (MPI_Finalize).
void datarep_finalize();

// Flattened types (filetype.cc). The file byte runs of one instance of
// `type` in `rep` (nullptr: native), computed once and kept on the type.
int flat_type(const Datarep* rep, const Datatype& type, std::shared_ptr<const FlatType>* out);
// File bytes of `count` items of `type` in `rep` (nullptr: native).
int stream_bytes(const Datarep* rep, const Datatype& type, MPI_Count count, MPI_Count* bytes);
// Memory bytes of the whole items of `type` in `file_bytes` bytes in `rep`.
MPI_Count memory_bytes(const Datarep* rep, const Datatype& type, MPI_Count file_bytes);

// Counts behind the MPI_T counters io_filetype_flattens / _cache_hits.
uint64_t filetype_flattens();
uint64_t filetype_cache_hits();

// Runtime parameters and timers (settings.cc). Independent accesses sieve
// under romio_ds_* = automatic when the mean hole between pieces is at most
// sieve_max_hole() bytes and the mean piece at most sieve_max_piece()
// (STMPI_IO_SIEVE_MAX_HOLE, STMPI_IO_SIEVE_MAX_PIECE).
MPI_Count sieve_max_hole();
MPI_Count sieve_max_piece();
// STMPI_IO_TIMERS=yes: where the time goes, added up per kind (MPI_T
// counters io_time_*_ns) and printed by timers_report() at MPI_Finalize.
enum class TimeKind { kExchange = 0, kFileSystem = 1, kLock = 2 };
bool timers_on();
uint64_t timer_now();
void timer_add(TimeKind kind, uint64_t ns);
void timers_report();
// Adds the time of its scope to `kind` when the timers are on.
class Timed {
 public:
  explicit Timed(TimeKind kind) : kind_(kind), start_(timers_on() ? timer_now() : 0) {}
  ~Timed() {
    if (start_ != 0) timer_add(kind_, timer_now() - start_);
  }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  TimeKind kind_;
  uint64_t start_;
};

// Views (view.cc): sets the default view (disp 0, MPI_BYTE, native).
void view_init(File& file);
// Releases the view's types.
void view_clear(View& view);
// The view position (in etypes, rounded up) of the first data byte at or
// after file byte `byte`.
MPI_Offset view_position_of_byte(const File& file, MPI_Offset byte);

// The default file error handler, set on MPI_FILE_NULL (io.cc).
Errhandler* default_file_errhandler();

}  // namespace stmpi::mpi::io
