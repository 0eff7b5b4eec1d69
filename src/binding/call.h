// stmpi::binding::Call: the context of one MPI call, built by every generated
// wrapper in src/binding/gen/. It
//   - refuses calls made before MPI_Init or after MPI_Finalize (fatal: no
//     error handler exists then), except for the functions MPI allows then;
//   - holds the global lock for the whole call under MPI_THREAD_MULTIPLE;
//   - runs the argument checks the wrapper picks by parameter kind. The first
//     check that fails records an error code and every later check returns at
//     once, so a check may rely on the objects earlier checks returned;
//   - raises a failure through the error handler of the call's communicator
//     (its first communicator argument) or window (its window argument),
//     else MPI_COMM_SELF's; failures of I/O calls go to the file's handler,
//     or to the default file handler on MPI_FILE_NULL.
// The checks are inline and cost a few compares when arguments are good;
// messages are built in the cold out-of-line fail_* functions.
#pragma once

#include <algorithm>
#include <mutex>

#include <mpi.h>

#include "device/match/key.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/group/group.h"
#include "mpi/init/state.h"
#include "mpi/io/file.h"
#include "mpi/rma/win.h"

// Exported from libmpi, which is built with -fvisibility=hidden.
#define STMPI_API __attribute__((visibility("default")))

namespace stmpi::binding {

// Largest valid tag: the tag field of the match key (MPI_TAG_UB).
inline constexpr int kTagUb = dev::match::kTagUb;

enum class RankKind { kDest, kSource, kRoot };
enum class TagKind { kSend, kRecv };

class Call {
 public:
  enum Flags : unsigned {
    kBeforeInit = 1u << 0,  // allowed before MPI_Init and after MPI_Finalize
    kNoLock = 1u << 1,      // never takes the global lock
    // Outside MPI_Init..MPI_Finalize errors are returned instead of being
    // fatal (the host streams, usable at any time).
    kReturnOutsideInit = 1u << 2,
  };

  explicit Call(const char* function, unsigned flags = 0) : function_(function), flags_(flags) {
    if (!(flags & kBeforeInit) && (!mpi::is_initialized() || mpi::is_finalized())) [[unlikely]]
      fail_outside_init();
    if (!(flags & kNoLock) && mpi::calls_locked()) [[unlikely]]
      lock();
  }
  ~Call() {
    if (lock_.owns_lock()) [[unlikely]]
      unlock();
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  bool failed() const { return code_ != MPI_SUCCESS; }
  // Raises the recorded failure; returns what the MPI function returns.
  int result() { return raise(code_); }
  // Passes the implementation's result through, raising it if it is an error.
  int finish(int code) {
    if (code == MPI_SUCCESS) [[likely]]
      return code;
    return raise(code);
  }
  // The function belongs to a feature this build does not provide (flag
  // `unsupported` in maint/functions.txt): raises MPI_ERR_UNSUPPORTED_OPERATION.
  int unsupported() __attribute__((cold));

  // Input handles: the object, or nullptr after recording MPI_ERR_COMM,
  // MPI_ERR_TYPE, MPI_ERR_GROUP or MPI_ERR_OP.
  mpi::Comm* comm(MPI_Comm handle, const char* arg) {
    if (failed()) [[unlikely]]
      return nullptr;
    mpi::Comm* comm = mpi::comm_get(handle);
    if (comm == nullptr) [[unlikely]] {
      fail_comm(handle, arg);
      return nullptr;
    }
    if (error_comm_ == MPI_COMM_NULL) error_comm_ = handle;
    return comm;
  }
  // Windows: errors of the call go to the window's error handler.
  mpi::Win* win(MPI_Win handle, const char* arg) {
    if (failed()) [[unlikely]]
      return nullptr;
    mpi::Win* win = mpi::win_get(handle);
    if (win == nullptr) [[unlikely]] {
      fail_win(handle, arg);
      return nullptr;
    }
    if (error_comm_ == MPI_COMM_NULL && error_win_ == MPI_WIN_NULL) error_win_ = handle;
    return win;
  }
  // Files: errors of the call go to the file's error handler (errors of
  // I/O calls without a file go to MPI_FILE_NULL's).
  mpi::io::File* file(MPI_File handle, const char* arg) {
    if (failed()) [[unlikely]]
      return nullptr;
    mpi::io::File* file = mpi::io::file_get(handle);
    if (file == nullptr) [[unlikely]] {
      fail_file(handle, arg);
      return nullptr;
    }
    if (error_file_ == MPI_FILE_NULL) error_file_ = handle;
    return file;
  }
  // A file handle that may also be MPI_FILE_NULL (file error handlers).
  void file_or_null(MPI_File handle, const char* arg) {
    if (handle != MPI_FILE_NULL) file(handle, arg);
  }
  // A datatype describing data the call moves must be committed.
  mpi::Datatype* datatype(MPI_Datatype handle, const char* arg, bool needs_commit) {
    if (failed()) [[unlikely]]
      return nullptr;
    mpi::Datatype* type = mpi::datatype_get(handle);
    if (type == nullptr || (needs_commit && !type->committed)) [[unlikely]] {
      fail_datatype(handle, arg, type != nullptr);
      return nullptr;
    }
    return type;
  }
  mpi::Group* group(MPI_Group handle, const char* arg) {
    if (failed()) [[unlikely]]
      return nullptr;
    mpi::Group* group = mpi::group_get(handle);
    if (group == nullptr) [[unlikely]]
      fail_group(handle, arg);
    return group;
  }
  mpi::Op* op(MPI_Op handle, const char* arg) {
    if (failed()) [[unlikely]]
      return nullptr;
    mpi::Op* op = mpi::op_get(handle);
    if (op == nullptr) [[unlikely]]
      fail_op(handle, arg);
    return op;
  }

  // In-out handles (MPI_Comm_free, MPI_Type_commit, ...): the pointer must not
  // be NULL and must point to a valid handle. The implementation receives the
  // raw pointer.
  void comm_inout(const MPI_Comm* handle, const char* arg) {
    if (pointer_ok(handle, arg)) comm(*handle, arg);
  }
  void datatype_inout(const MPI_Datatype* handle, const char* arg) {
    if (pointer_ok(handle, arg)) datatype(*handle, arg, /*needs_commit=*/false);
  }
  void group_inout(const MPI_Group* handle, const char* arg) {
    if (pointer_ok(handle, arg)) group(*handle, arg);
  }
  void op_inout(const MPI_Op* handle, const char* arg) {
    if (pointer_ok(handle, arg)) op(*handle, arg);
  }
  void win_inout(const MPI_Win* handle, const char* arg) {
    if (pointer_ok(handle, arg)) win(*handle, arg);
  }
  void file_inout(const MPI_File* handle, const char* arg) {
    if (pointer_ok(handle, arg)) file(*handle, arg);
  }
  // A single request passed by address: errors of the call go to the
  // handler of the request's communicator. Its value is the
  // implementation's to check (MPI_REQUEST_NULL is valid for most calls).
  void request(const MPI_Request* request, const char* arg) {
    if (!pointer_ok(request, arg)) return;
    if (error_comm_ == MPI_COMM_NULL && *request != MPI_REQUEST_NULL) note_request_comm(*request);
  }

  // A session argument: errors of the call go to the session's error
  // handler (unless a communicator or window argument came first). Its
  // validity is the implementation's to check.
  void session(MPI_Session handle) {
    if (error_comm_ == MPI_COMM_NULL && error_win_ == MPI_WIN_NULL) error_session_ = handle;
  }

  // Counts of kind *_NNI: MPI_ERR_COUNT when negative.
  void count(MPI_Count value, const char* arg) {
    if (failed()) [[unlikely]]
      return;
    if (value < 0) [[unlikely]]
      fail_count(value, arg);
  }
  // Ranks in `comm`: 0..size-1; MPI_PROC_NULL as a peer; MPI_ANY_SOURCE as a
  // source. A bad root is MPI_ERR_ROOT, any other bad rank MPI_ERR_RANK.
  // On an intercommunicator a peer is a rank of the remote group, and a
  // root is a remote rank, MPI_ROOT or MPI_PROC_NULL.
  void rank(int value, const char* arg, const mpi::Comm* comm, RankKind kind) {
    if (failed()) [[unlikely]]
      return;
    if (static_cast<unsigned>(value) < static_cast<unsigned>(comm->peer_size())) [[likely]]
      return;
    if (value == MPI_PROC_NULL && (kind != RankKind::kRoot || comm->is_inter())) return;
    if (value == MPI_ROOT && kind == RankKind::kRoot && comm->is_inter()) return;
    if (value == MPI_ANY_SOURCE && kind == RankKind::kSource) return;
    fail_rank(value, arg, comm->peer_size(), kind);
  }
  // Tags: 0..kTagUb; a receive or probe may also use MPI_ANY_TAG.
  void tag(int value, const char* arg, TagKind kind) {
    if (failed()) [[unlikely]]
      return;
    if (static_cast<unsigned>(value) <= static_cast<unsigned>(kTagUb)) [[likely]]
      return;
    if (value == MPI_ANY_TAG && kind == TagKind::kRecv) return;
    fail_tag(value, arg, kind);
  }
  // `count` elements of `type` must span a byte size and an address range
  // that MPI_Count and MPI_Aint hold (MPI_ERR_COUNT: 2^62 doubles are not a
  // 0-byte message). A NULL buffer cannot hold count > 0 elements of a
  // predefined datatype (with a derived datatype, NULL is MPI_BOTTOM and
  // the displacements are absolute addresses).
  void buffer(const void* buf, MPI_Count count, const mpi::Datatype* type, const char* arg) {
    if (failed() || count == 0) [[unlikely]]
      return;
    MPI_Count bytes;
    MPI_Aint span;
    if (__builtin_mul_overflow(count, type->size, &bytes) ||
        __builtin_mul_overflow(count, type->extent, &span)) [[unlikely]]
      return fail_count_overflow(count, type, arg);
    if (buf == nullptr && type->predefined) [[unlikely]]
      fail_buffer(count, arg);
  }

  // Collective buffers (MPI_ERR_BUFFER). MPI_IN_PLACE where the function
  // does not take it, or takes it only at the root.
  void not_in_place(const void* buf, const char* arg) {
    if (failed() || buf != MPI_IN_PLACE) [[likely]]
      return;
    fail_in_place(arg, -1, -1);
  }
  void in_place_at_root(const void* buf, const char* arg, const mpi::Comm* comm, int root) {
    if (failed() || buf != MPI_IN_PLACE || comm->rank == root) [[likely]]
      return;
    fail_in_place(arg, root, comm->rank);
  }
  // A NULL buffer for counts[i] elements to or from process i (v and w
  // collectives: one datatype, or one per process in `types`).
  template <class Count>
  void buffer_counts(const void* buf, const Count* counts, const mpi::Comm* comm,
                     const mpi::Datatype* type, const MPI_Datatype* types, const char* arg) {
    if (failed() || buf != nullptr || counts == nullptr) [[likely]]
      return;
    // Entries of the local group (Reduce_scatter) or of the remote one (the
    // others, on an intercommunicator): only the entries both have are read.
    const int entries = std::min(comm->size, comm->peer_size());
    for (int i = 0; i < entries; ++i) {
      if (counts[i] <= 0) continue;
      const mpi::Datatype* t = type != nullptr ? type : mpi::datatype_get(types[i]);
      if (t != nullptr && t->predefined) return fail_buffer(counts[i], arg);
    }
  }
  // A buffer of one block of `count` elements per process of `comm` (of the
  // remote group on an intercommunicator).
  void buffer_blocks(const void* buf, MPI_Count count, const mpi::Comm* comm,
                     const mpi::Datatype* type, const char* arg) {
    if (failed()) [[unlikely]]
      return;
    MPI_Count total;
    if (__builtin_mul_overflow(count, MPI_Count{comm->peer_size()}, &total)) [[unlikely]]
      return fail_count_overflow(count, type, arg);
    buffer(buf, total, type, arg);
  }
  // A NULL buffer for this process's entry of counts (Reduce_scatter's recvbuf).
  template <class Count>
  void buffer_own_count(const void* buf, const Count* counts, const mpi::Comm* comm,
                        const mpi::Datatype* type, const char* arg) {
    if (failed() || buf != nullptr || counts == nullptr) [[likely]]
      return;
    buffer(buf, counts[comm->rank], type, arg);
  }
  // Arrays with `entries` entries, one per process (of the remote group on
  // an intercommunicator): not NULL; counts not negative (MPI_ERR_COUNT);
  // datatypes valid and committed (MPI_ERR_TYPE).
  void per_process_array(const void* array, int entries, const char* arg) {
    if (failed()) [[unlikely]]
      return;
    if (array == nullptr && entries > 0) [[unlikely]]
      fail_array(entries, arg);
  }
  template <class Count>
  void counts(const Count* counts, int entries, const char* arg) {
    per_process_array(counts, entries, arg);
    if (failed()) [[unlikely]]
      return;
    for (int i = 0; i < entries; ++i)
      if (counts[i] < 0) [[unlikely]]
        return fail_count_at(counts[i], arg, i);
  }
  void datatypes(const MPI_Datatype* types, int entries, const char* arg) {
    per_process_array(types, entries, arg);
    if (failed()) [[unlikely]]
      return;
    for (int i = 0; i < entries; ++i) {
      const mpi::Datatype* type = mpi::datatype_get(types[i]);
      if (type == nullptr || !type->committed) [[unlikely]]
        return fail_datatype_at(types[i], arg, i, type != nullptr);
    }
  }

  // Output arguments (and inputs passed by address) must not be NULL.
  // An output status may be MPI_STATUS_IGNORE, which is not NULL.
  void not_null(const void* pointer, const char* arg) { pointer_ok(pointer, arg); }
  // A status the call reads or updates: neither NULL nor MPI_STATUS_IGNORE.
  void status(const MPI_Status* status, const char* arg) {
    if (!pointer_ok(status, arg)) return;
    if (status == MPI_STATUS_IGNORE) [[unlikely]]
      fail_status_ignore(arg);
  }
  // An array of `length` elements may be NULL only when empty.
  void array(const void* pointer, MPI_Count length, const char* arg) {
    if (failed()) [[unlikely]]
      return;
    if (pointer == nullptr && length > 0) [[unlikely]]
      fail_array(length, arg);
  }

 private:
  bool pointer_ok(const void* pointer, const char* arg) {
    if (failed()) [[unlikely]]
      return false;
    if (pointer == nullptr) [[unlikely]] {
      fail_null(arg);
      return false;
    }
    return true;
  }

  void lock();
  void unlock();
  int raise(int code);
  void note_request_comm(MPI_Request request);

  [[noreturn]] void fail_outside_init() __attribute__((cold));
  void fail_comm(MPI_Comm handle, const char* arg) __attribute__((cold));
  void fail_win(MPI_Win handle, const char* arg) __attribute__((cold));
  void fail_file(MPI_File handle, const char* arg) __attribute__((cold));
  bool io_function() const;
  void fail_datatype(MPI_Datatype handle, const char* arg, bool exists) __attribute__((cold));
  void fail_group(MPI_Group handle, const char* arg) __attribute__((cold));
  void fail_op(MPI_Op handle, const char* arg) __attribute__((cold));
  void fail_count(MPI_Count value, const char* arg) __attribute__((cold));
  void fail_rank(int value, const char* arg, int size, RankKind kind) __attribute__((cold));
  void fail_tag(int value, const char* arg, TagKind kind) __attribute__((cold));
  void fail_buffer(MPI_Count count, const char* arg) __attribute__((cold));
  void fail_count_overflow(MPI_Count count, const mpi::Datatype* type, const char* arg)
      __attribute__((cold));
  void fail_in_place(const char* arg, int root, int rank) __attribute__((cold));
  void fail_count_at(MPI_Count value, const char* arg, int index) __attribute__((cold));
  void fail_datatype_at(MPI_Datatype handle, const char* arg, int index, bool exists)
      __attribute__((cold));
  void fail_null(const char* arg) __attribute__((cold));
  void fail_status_ignore(const char* arg) __attribute__((cold));
  void fail_array(MPI_Count length, const char* arg) __attribute__((cold));

  const char* function_;
  unsigned flags_;
  int code_ = MPI_SUCCESS;
  // Handle, not object: MPI_Comm_free may destroy the object before an error
  // is raised; a handle that no longer resolves reports on MPI_COMM_SELF.
  MPI_Comm error_comm_ = MPI_COMM_NULL;
  MPI_Win error_win_ = MPI_WIN_NULL;              // likewise (MPI_Win_free)
  MPI_Session error_session_ = MPI_SESSION_NULL;  // likewise (MPI_Session_finalize)
  MPI_File error_file_ = MPI_FILE_NULL;           // likewise (MPI_File_close)
  std::unique_lock<std::mutex> lock_;
};

}  // namespace stmpi::binding
