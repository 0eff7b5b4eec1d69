#include "binding/call.h"

#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "binding/routine.h"

#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/request/request.h"
#include "mpi/session/session.h"

namespace stmpi::binding {
namespace {

// mpi::t_holds_global_lock: whether this thread is inside an MPI call that
// holds the global lock. Callbacks run inside a call (error handlers,
// reduction operations, generalized-request and attribute functions) may
// call MPI again; the inner call must not lock a second time.

// The Fortran routine this thread is in (binding/routine.h), or nullptr.
thread_local const RoutineName* t_routine = nullptr;

// The name an error of the C function `function` reports: the Fortran
// routine's when the function is the one the routine calls, or the
// *_call_errhandler the mpi_f08 glue raises its own errors with.
const char* shown(const char* function) {
  const RoutineName* r = t_routine;
  if (r == nullptr) [[likely]]
    return function;
  const bool same =
      r->c != nullptr ? std::strcmp(r->c, function) == 0 : strcasecmp(r->fortran, function) == 0;
  if (same) return r->fortran;
  for (const char* raiser :
       {"MPI_Comm_call_errhandler", "MPI_Win_call_errhandler", "MPI_File_call_errhandler"}) {
    if (std::strcmp(function, raiser) == 0) return r->fortran;
  }
  return function;
}

}  // namespace

const RoutineName* exchange_routine(const RoutineName* routine) noexcept {
  const RoutineName* saved = t_routine;
  t_routine = routine;
  return saved;
}

void Call::lock() {
  if (mpi::t_holds_global_lock) return;
  lock_ = std::unique_lock(mpi::global_mutex());
  mpi::t_holds_global_lock = true;
}

void Call::unlock() {
  mpi::t_holds_global_lock = false;
  lock_.unlock();
}

int Call::raise(int code) {
  if (!mpi::is_initialized() || mpi::is_finalized()) {
    if (flags_ & kReturnOutsideInit) return code;
    // No error handler exists outside MPI_Init..MPI_Finalize: errors are fatal.
    const std::string text = mpi::errhan::error_string(code);
    std::fprintf(stderr, "STMPI: fatal error in %s: %s\n", shown(function_), text.c_str());
    std::_Exit(1);
  }
  // A completion call (MPI_Wait, MPI_Waitall, ...) whose failed requests all
  // came from one file (MPI_File_iwrite & co.): that file's error handler.
  if (const MPI_File failed = mpi::request_take_failed_file(); failed != MPI_FILE_NULL)
    return mpi::io::file_raise(mpi::io::file_get(failed), code, shown(function_));
  if (io_function()) {
    // The I/O chapter: the file's error handler, else the default one on
    // MPI_FILE_NULL (MPI_File_open and MPI_File_delete included, although
    // MPI_File_open has a communicator).
    return mpi::io::file_raise(mpi::io::file_get(error_file_), code, shown(function_));
  }
  if (error_session_ != MPI_SESSION_NULL) {
    if (mpi::Session* session = mpi::session_get(error_session_); session != nullptr)
      return mpi::session_raise(session, code, shown(function_));
  }
  if (error_win_ != MPI_WIN_NULL) {
    if (mpi::Win* win = mpi::win_get(error_win_); win != nullptr)
      return mpi::win_raise(win, code, shown(function_));
  }
  return mpi::errhan::raise_on_comm(mpi::comm_get(error_comm_), code, shown(function_));
}

int Call::unsupported() {
  code_ = mpi::errhan::make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                                  "%s is not provided by this build (docs/user/not-provided.md "
                                  "lists what is not provided yet)",
                                  shown(function_));
  // Errors of the I/O chapter go to the file's error handler (raise).
  return raise(code_);
}

bool Call::io_function() const {
  return std::strncmp(function_, "MPI_File_", 9) == 0 ||
         std::strncmp(function_, "MPI_Register_datarep", 20) == 0;
}

void Call::note_request_comm(MPI_Request request) {
  const mpi::Request* req = mpi::request_get(request);
  if (req != nullptr && req->comm != nullptr) error_comm_ = req->comm->handle;
}

void Call::fail_outside_init() {
  std::fprintf(stderr, "STMPI: fatal error: %s called %s\n", shown(function_),
               mpi::is_finalized() ? "after MPI_Finalize" : "before MPI_Init");
  std::_Exit(1);
}

void Call::fail_comm(MPI_Comm handle, const char* arg) {
  code_ = handle == MPI_COMM_NULL
              ? mpi::errhan::make_error(MPI_ERR_COMM, "%s is MPI_COMM_NULL", arg)
              : mpi::errhan::make_error(MPI_ERR_COMM, "%s=0x%x is not a valid communicator", arg,
                                        static_cast<unsigned>(handle));
}

void Call::fail_win(MPI_Win handle, const char* arg) {
  code_ = handle == MPI_WIN_NULL
              ? mpi::errhan::make_error(MPI_ERR_WIN, "%s is MPI_WIN_NULL", arg)
              : mpi::errhan::make_error(MPI_ERR_WIN, "%s=0x%x is not a valid window", arg,
                                        static_cast<unsigned>(handle));
}

void Call::fail_file(MPI_File handle, const char* arg) {
  code_ = handle == MPI_FILE_NULL
              ? mpi::errhan::make_error(MPI_ERR_FILE, "%s is MPI_FILE_NULL", arg)
              : mpi::errhan::make_error(MPI_ERR_FILE, "%s=%p is not an open file", arg,
                                        static_cast<void*>(handle));
}

void Call::fail_datatype(MPI_Datatype handle, const char* arg, bool exists) {
  if (exists)
    code_ = mpi::errhan::make_error(MPI_ERR_TYPE, "%s=0x%x has not been committed", arg,
                                    static_cast<unsigned>(handle));
  else if (handle == MPI_DATATYPE_NULL)
    code_ = mpi::errhan::make_error(MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", arg);
  else
    code_ = mpi::errhan::make_error(MPI_ERR_TYPE, "%s=0x%x is not a valid datatype", arg,
                                    static_cast<unsigned>(handle));
}

void Call::fail_group(MPI_Group handle, const char* arg) {
  code_ = handle == MPI_GROUP_NULL
              ? mpi::errhan::make_error(MPI_ERR_GROUP, "%s is MPI_GROUP_NULL", arg)
              : mpi::errhan::make_error(MPI_ERR_GROUP, "%s=0x%x is not a valid group", arg,
                                        static_cast<unsigned>(handle));
}

void Call::fail_op(MPI_Op handle, const char* arg) {
  code_ = handle == MPI_OP_NULL
              ? mpi::errhan::make_error(MPI_ERR_OP, "%s is MPI_OP_NULL", arg)
              : mpi::errhan::make_error(MPI_ERR_OP, "%s=0x%x is not a valid operation", arg,
                                        static_cast<unsigned>(handle));
}

void Call::fail_count(MPI_Count value, const char* arg) {
  code_ = mpi::errhan::make_error(MPI_ERR_COUNT, "%s=%lld must be non-negative", arg,
                                  static_cast<long long>(value));
}

void Call::fail_rank(int value, const char* arg, int size, RankKind kind) {
  if (kind == RankKind::kRoot) {
    code_ = mpi::errhan::make_error(
        MPI_ERR_ROOT, "%s=%d is not a valid root (communicator size %d)", arg, value, size);
    return;
  }
  const char* also =
      kind == RankKind::kSource ? ", MPI_PROC_NULL or MPI_ANY_SOURCE" : " or MPI_PROC_NULL";
  code_ = mpi::errhan::make_error(
      MPI_ERR_RANK, "%s=%d is not a valid rank (communicator size %d; must be 0..%d%s)", arg, value,
      size, size - 1, also);
}

void Call::fail_tag(int value, const char* arg, TagKind kind) {
  code_ =
      mpi::errhan::make_error(MPI_ERR_TAG, "%s=%d is not valid (must be 0..MPI_TAG_UB=%d%s)", arg,
                              value, kTagUb, kind == TagKind::kRecv ? " or MPI_ANY_TAG" : "");
}

void Call::fail_buffer(MPI_Count count, const char* arg) {
  code_ = mpi::errhan::make_error(MPI_ERR_BUFFER,
                                  "%s is NULL but count=%lld elements of a predefined datatype "
                                  "are to be transferred",
                                  arg, static_cast<long long>(count));
}

void Call::fail_count_overflow(MPI_Count count, const mpi::Datatype* type, const char* arg) {
  code_ = mpi::errhan::make_error(
      MPI_ERR_COUNT,
      "%s holds %lld elements of %s (size %lld, extent %lld bytes): more bytes than MPI_Count "
      "holds",
      arg, static_cast<long long>(count), mpi::datatype_name(type->handle),
      static_cast<long long>(type->size), static_cast<long long>(type->extent));
}

void Call::fail_in_place(const char* arg, int root, int rank) {
  if (root < 0)
    code_ = mpi::errhan::make_error(MPI_ERR_BUFFER, "%s is MPI_IN_PLACE, which %s does not accept",
                                    arg, shown(function_));
  else
    code_ = mpi::errhan::make_error(
        MPI_ERR_BUFFER,
        "%s is MPI_IN_PLACE, which %s accepts only at the root (rank %d); this is rank %d", arg,
        shown(function_), root, rank);
}

void Call::fail_count_at(MPI_Count value, const char* arg, int index) {
  code_ = mpi::errhan::make_error(MPI_ERR_COUNT, "%s[%d]=%lld must be non-negative", arg, index,
                                  static_cast<long long>(value));
}

void Call::fail_datatype_at(MPI_Datatype handle, const char* arg, int index, bool exists) {
  if (exists)
    code_ = mpi::errhan::make_error(MPI_ERR_TYPE, "%s[%d]=0x%x has not been committed", arg, index,
                                    static_cast<unsigned>(handle));
  else if (handle == MPI_DATATYPE_NULL)
    code_ = mpi::errhan::make_error(MPI_ERR_TYPE, "%s[%d] is MPI_DATATYPE_NULL", arg, index);
  else
    code_ = mpi::errhan::make_error(MPI_ERR_TYPE, "%s[%d]=0x%x is not a valid datatype", arg, index,
                                    static_cast<unsigned>(handle));
}

void Call::fail_null(const char* arg) {
  code_ = mpi::errhan::make_error(MPI_ERR_ARG, "%s pointer is NULL", arg);
}

void Call::fail_status_ignore(const char* arg) {
  code_ = mpi::errhan::make_error(MPI_ERR_ARG,
                                  "%s is MPI_STATUS_IGNORE but this call needs a status", arg);
}

void Call::fail_array(MPI_Count length, const char* arg) {
  code_ = mpi::errhan::make_error(MPI_ERR_ARG, "%s is NULL but has %lld elements", arg,
                                  static_cast<long long>(length));
}

}  // namespace stmpi::binding
