// MPI_Request: one object for every kind of nonblocking operation. The
// device fills the `dev` part and marks completion; this layer adds what
// MPI needs on top (datatype unpacking, persistence, handles).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "device/device.h"
#include "device/request_dev.h"
#include "mpi/handle.h"

namespace stmpi::mpi {

struct Comm;
struct Datatype;
namespace coll {
class Schedule;
}

struct Request {
  enum class Kind : uint8_t {
    kSend,          // nonblocking send (also buffered and internal sends)
    kRecv,          // nonblocking receive
    kPrequestSend,  // persistent send (MPI_Send_init & co.)
    kPrequestRecv,  // persistent receive
    kCompound,      // completes when all `parts` complete (MPI_Isendrecv)
    kGeneralized,   // MPI_Grequest_start
    kMessage,       // a matched probe's message (MPI_Mprobe), not a request to the user
    kDone,          // born complete (MPI_PROC_NULL peers, cancelled operations)
    kColl,          // nonblocking collective: runs `schedule`
    kPrequestColl,  // persistent collective (MPI_Bcast_init & co.): replays `schedule`
  };

  int handle = 0;
  Kind kind = Kind::kSend;
  bool persistent_active = false;  // persistent request between Start and completion
  bool cancelled = false;
  bool finished = false;           // completion bookkeeping done (status filled)
  bool freed_by_user = false;      // MPI_Request_free on an active request
  bool fortran_callbacks = false;  // generalized request started from Fortran
  dev::RequestDev dev;             // device state; dev.done says complete
  MPI_Status status{};
  Comm* comm = nullptr;  // held (refs) while active
  // A file operation's request (MPI_File_iread & co.): the file, whose error
  // handler reports the operation's failure (MPI_FILE_NULL for the others).
  MPI_File file = MPI_FILE_NULL;

  // Noncontiguous receive: the device receives into `staging`, completion
  // unpacks into the user's buffer.
  void* user_buf = nullptr;
  MPI_Count user_count = 0;
  Datatype* user_type = nullptr;
  std::vector<char> staging;

  // Persistent requests remember their arguments for MPI_Start.
  struct Persistent {
    const void* buf = nullptr;
    MPI_Count count = 0;
    Datatype* type = nullptr;
    int peer = 0;
    int tag = 0;
    int mode = 0;  // dev::SendMode
  } persistent;

  // Generalized requests.
  MPI_Grequest_query_function* query_fn = nullptr;
  MPI_Grequest_free_function* free_fn = nullptr;
  MPI_Grequest_cancel_function* cancel_fn = nullptr;
  void* extra_state = nullptr;

  // kCompound: the parts; status comes from the receive part (parts[1]).
  std::vector<Request*> parts;
  // kMessage: the matched message waiting for MPI_Mrecv.
  dev::UnexpectedMessage* message = nullptr;
  // Partitioned requests (MPI_Psend_init / MPI_Precv_init) are kPrequestSend
  // / kPrequestRecv with partitions > 0; src/mpi/part/ explains them.
  int partitions = 0;
  int partition_seq = 0;                 // pairing number of the init (see src/mpi/part)
  int partitions_ready = 0;              // this epoch, send side
  std::vector<uint8_t> partition_ready;  // this epoch, send side
  // Buffered sends: the region of the attached buffer this send occupies.
  std::size_t bsend_offset = 0;
  std::size_t bsend_bytes = 0;
  // kColl, kPrequestColl: the collective's schedule (owned).
  coll::Schedule* schedule = nullptr;
};

// The callbacks of a generalized request, in C conventions or, when
// `fortran_callbacks` is set (MPII_Grequest_set_lang_f77), in Fortran ones
// (status as INTEGER array, the error in a trailing INTEGER argument). Each
// returns the callback's error code; a missing callback succeeds.
int grequest_call_query(Request* req, MPI_Status* status);
int grequest_call_free(Request* req);
int grequest_call_cancel(Request* req, bool complete);

// Persistent requests of every kind (inactive until started).
inline bool request_is_persistent(const Request* req) {
  return req->kind == Request::Kind::kPrequestSend || req->kind == Request::Kind::kPrequestRecv ||
         req->kind == Request::Kind::kPrequestColl;
}

extern constinit HandleTable<Request, ObjectKind::kRequest> g_request_table;
inline HandleTable<Request, ObjectKind::kRequest>& request_table() { return g_request_table; }
inline Request* request_get(int handle) { return g_request_table.get(handle); }

// Allocates a request with a fresh handle; request_free returns it.
Request* request_create(Request::Kind kind);
void request_free(Request* req);
// Returns the pooled (freed) requests to the heap; MPI_Finalize calls it.
void request_pool_release();

// True once the operation is complete; the first time, finishes it
// (unpacks staged data, fills `status`).
bool request_test(Request* req);
// Blocks (spinning, then yielding the CPU and the global lock) until complete.
void request_wait(Request* req);
// Copies the status out (MPI_ERROR excepted, see status_copy_out) and
// releases the request unless it is persistent. Returns the operation's
// error code (MPI_SUCCESS, MPI_ERR_TRUNCATE, ...).
int request_retire(Request* req, MPI_Status* status);
// The error handler of a completion call (MPI_Wait, MPI_Waitall, ...):
// the call notes the file of each request that completes with an error
// (MPI_FILE_NULL for a request without one), and the binding takes the
// result when it raises the call's error: the file when every failed
// request of the call came from that one file, else MPI_FILE_NULL (then
// the call's communicator, else MPI_COMM_SELF, reports as for any call).
// Thread-local; taking resets it.
void request_note_failure(MPI_File file);
MPI_File request_take_failed_file();
// Requests the user freed while active (MPI_Request_free), released once
// they complete: a progress hook reaps them while any is left.
void request_detach(Request* req);
void request_reap_detached();
// Releases every detached request, complete or not; MPI_Finalize calls it
// once the device is down (nothing can complete or touch them any more).
void request_release_detached();

// MPI_Status fields: counts are bytes split over two ints, as MPICH does.
void status_set_bytes(MPI_Status* status, MPI_Count bytes);
MPI_Count status_bytes(const MPI_Status* status);
void status_set_cancelled(MPI_Status* status, bool cancelled);
bool status_cancelled(const MPI_Status* status);
void status_set_empty(MPI_Status* status);
// A user's status: MPI sets its MPI_ERROR field only in calls that complete
// several requests and return MPI_ERR_IN_STATUS (MPI 4.1, section 3.2.5);
// every other call leaves the caller's value there. These write every other
// field.
void status_copy_out(MPI_Status* user, const MPI_Status& from);
void status_set_empty_keep_error(MPI_Status* status);

}  // namespace stmpi::mpi
