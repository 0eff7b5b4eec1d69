// MPICH's stream objects and stream communicators (include/mpix.h):
// MPIX_Stream_create/free, MPIX_Stream_comm_create(_multiplex),
// MPIX_Comm_get_stream, MPIX_Stream_progress, the progress threads,
// MPIX_Stream_send/isend/recv/irecv and MPIX_Info_set_hex, over
// src/mpi/enqueue.
#include <mpi.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "device/progress.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/mode.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/context_id.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/datatype/datatype.h"
#include "mpi/enqueue/engine.h"
#include "mpi/enqueue/stream_object.h"
#include "mpi/errhan/error.h"
#include "mpi/info/impl_info.h"
#include "mpi/info/info.h"
#include "mpi/init/state.h"
#include "mpi/mpix/impl_mpix.h"
#include "mpi/pt2pt/impl_pt2pt.h"

namespace stmpi::impl {
namespace {

using mpi::enqueue::CommStreams;
using mpi::enqueue::StreamObject;

int bad_stream(const char* call, MPIX_Stream stream) {
  return mpi::errhan::make_error(MPIX_ERR_STREAM, "%s: stream=0x%x is not a live MPIX_Stream", call,
                                 static_cast<unsigned>(stream));
}

// MPIX_STREAM_NULL gives null; any other handle must be live.
int lookup(const char* call, MPIX_Stream handle, StreamObject** out) {
  *out = nullptr;
  if (handle == MPIX_STREAM_NULL) return MPI_SUCCESS;
  *out = mpi::enqueue::stream_get(handle);
  return *out == nullptr ? bad_stream(call, handle) : MPI_SUCCESS;
}

// Duplicates comm, agrees on the engine's context pair and attaches `local`.
int attach(mpi::Comm& comm, std::vector<StreamObject*> local, bool multiplex, MPI_Comm* newcomm) {
  if (comm.is_inter())
    return mpi::errhan::make_error(MPI_ERR_COMM,
                                   "communicator 0x%x is an intercommunicator (stream "
                                   "communicators are intracommunicators)",
                                   static_cast<unsigned>(comm.handle));
  auto streams = std::make_shared<CommStreams>();
  streams->multiplex = multiplex;
  if (multiplex) {
    streams->counts.resize(static_cast<std::size_t>(comm.size));
    const int mine = static_cast<int>(local.size());
    if (int err =
            allgather_any(&mine, 1, mpi::datatype_get(MPI_INT), streams->counts.data(), 1,
                          *mpi::datatype_get(MPI_INT), comm, mpi::coll::Mode::kBlocking, nullptr);
        err != MPI_SUCCESS)
      return err;
  }
  if (int err = comm_dup(comm, newcomm); err != MPI_SUCCESS) return err;
  mpi::Comm* dup = mpi::comm_get(*newcomm);
  if (int err = mpi::context_id_allocate(*dup, &streams->engine_context); err != MPI_SUCCESS) {
    (void)comm_free(newcomm);
    return err;
  }
  for (StreamObject* s : local)
    if (s != nullptr) ++s->comm_uses;
  streams->local = std::move(local);
  dup->streams = std::move(streams);
  return MPI_SUCCESS;
}

void progress_loop(StreamObject* object) {
  while (!object->thread_stop.load(std::memory_order_acquire)) {
    mpi::enqueue::progress_once();
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// Multiplex index checks of MPIX_Stream_send & co.: `sender`/`receiver`
// are ranks of comm (MPI_ANY_SOURCE and MPI_PROC_NULL skip their check).
int check_indices(const char* call, mpi::Comm& comm, int sender, int receiver, int src_idx,
                  int dst_idx) {
  const CommStreams* streams = comm.streams.get();
  if (streams == nullptr || !streams->multiplex)
    return mpi::errhan::make_error(MPIX_ERR_STREAM,
                                   "%s: communicator 0x%x was not made by "
                                   "MPIX_Stream_comm_create_multiplex",
                                   call, static_cast<unsigned>(comm.handle));
  if (sender == MPI_ANY_SOURCE)
    return mpi::errhan::make_error(MPI_ERR_RANK,
                                   "%s: source=MPI_ANY_SOURCE on multiplex communicator 0x%x "
                                   "(source_stream_index=%d names a stream of a known sender)",
                                   call, static_cast<unsigned>(comm.handle), src_idx);
  auto check = [&](int rank, int idx, const char* which) {
    if (rank < 0 || rank >= comm.size) return MPI_SUCCESS;
    const int n = streams->counts[static_cast<std::size_t>(rank)];
    const int limit = n == 0 ? 1 : n;  // no streams: one MPIX_STREAM_NULL
    if (idx >= 0 && idx < limit) return MPI_SUCCESS;
    return mpi::errhan::make_error(
        MPIX_ERR_STREAM, "%s: %s=%d, but rank %d of communicator 0x%x has %d stream(s)", call,
        which, idx, rank, static_cast<unsigned>(comm.handle), limit);
  };
  if (int err = check(sender, src_idx, "source_stream_index"); err != MPI_SUCCESS) return err;
  return check(receiver, dst_idx, "dest_stream_index");
}

}  // namespace

int mpix_info_set_hex(MPI_Info info, const char* key, const void* value, int value_size) {
  if (value == nullptr && value_size > 0)
    return mpi::errhan::make_error(MPI_ERR_ARG, "MPIX_Info_set_hex: value is NULL");
  const std::string hex = mpi::enqueue::encode_hex(value, static_cast<std::size_t>(value_size));
  return info_set(info, key, hex.c_str());
}

int mpix_stream_create(MPI_Info info, MPIX_Stream* stream) {
  const mpi::Info* object = nullptr;
  if (info != MPI_INFO_NULL) {
    object = mpi::info_get(info);
    if (object == nullptr)
      return mpi::errhan::make_error(MPI_ERR_INFO, "MPIX_Stream_create: info=0x%x is not valid",
                                     static_cast<unsigned>(info));
  }
  return mpi::enqueue::stream_create(object, stream);
}

int mpix_stream_free(MPIX_Stream* stream) { return mpi::enqueue::stream_free(stream); }

int mpix_stream_comm_create(mpi::Comm& comm, MPIX_Stream stream, MPI_Comm* newcomm) {
  StreamObject* object = nullptr;
  if (int err = lookup("MPIX_Stream_comm_create", stream, &object); err != MPI_SUCCESS) return err;
  return attach(comm, {object}, false, newcomm);
}

int mpix_stream_comm_create_multiplex(mpi::Comm& comm, int count, MPIX_Stream array_of_streams[],
                                      MPI_Comm* newcomm) {
  std::vector<StreamObject*> local;
  for (int i = 0; i < count; ++i) {
    StreamObject* object = nullptr;
    if (int err = lookup("MPIX_Stream_comm_create_multiplex", array_of_streams[i], &object);
        err != MPI_SUCCESS)
      return err;
    local.push_back(object);
  }
  if (local.empty()) local.push_back(nullptr);
  return attach(comm, std::move(local), true, newcomm);
}

int mpix_comm_get_stream(mpi::Comm& comm, int idx, MPIX_Stream* stream) {
  *stream = MPIX_STREAM_NULL;
  const CommStreams* streams = comm.streams.get();
  if (streams != nullptr && idx >= 0 && idx < static_cast<int>(streams->local.size()) &&
      streams->local[static_cast<std::size_t>(idx)] != nullptr)
    *stream = streams->local[static_cast<std::size_t>(idx)]->handle;
  return MPI_SUCCESS;
}

int mpix_stream_progress(MPIX_Stream stream) {
  StreamObject* object = nullptr;
  if (int err = lookup("MPIX_Stream_progress", stream, &object); err != MPI_SUCCESS) return err;
  dev::progress();  // the caller holds the lock: one round for every stream
  return MPI_SUCCESS;
}

int mpix_start_progress_thread(MPIX_Stream stream) {
  StreamObject* object = nullptr;
  if (int err = lookup("MPIX_Start_progress_thread", stream, &object); err != MPI_SUCCESS)
    return err;
  if (object == nullptr)
    return mpi::errhan::make_error(MPIX_ERR_STREAM,
                                   "MPIX_Start_progress_thread: stream is MPIX_STREAM_NULL");
  if (object->progress_thread.joinable())
    return mpi::errhan::make_error(MPIX_ERR_STREAM,
                                   "MPIX_Start_progress_thread: stream=0x%x has one already",
                                   static_cast<unsigned>(stream));
  mpi::enqueue::force_locking();
  object->thread_stop.store(false);
  object->progress_thread = std::thread(progress_loop, object);
  return MPI_SUCCESS;
}

int mpix_stop_progress_thread(MPIX_Stream stream) {
  StreamObject* object = nullptr;
  if (int err = lookup("MPIX_Stop_progress_thread", stream, &object); err != MPI_SUCCESS)
    return err;
  if (object == nullptr || !object->progress_thread.joinable())
    return mpi::errhan::make_error(MPIX_ERR_STREAM,
                                   "MPIX_Stop_progress_thread: stream=0x%x has no progress thread",
                                   static_cast<unsigned>(stream));
  object->thread_stop.store(true, std::memory_order_release);
  // The thread takes the lock this call holds: let it go while joining.
  mpi::global_mutex().unlock();
  object->progress_thread.join();
  mpi::global_mutex().lock();
  return MPI_SUCCESS;
}

int mpix_stream_send(const void* buf, int count, mpi::Datatype& datatype, int dest, int tag,
                     mpi::Comm& comm, int source_stream_index, int dest_stream_index) {
  if (int err = check_indices("MPIX_Stream_send", comm, comm.rank, dest, source_stream_index,
                              dest_stream_index);
      err != MPI_SUCCESS)
    return err;
  return blocking_send(buf, count, datatype, dest, tag, comm, dev::SendMode::kStandard);
}

int mpix_stream_isend(const void* buf, int count, mpi::Datatype& datatype, int dest, int tag,
                      mpi::Comm& comm, int source_stream_index, int dest_stream_index,
                      MPI_Request* request) {
  if (int err = check_indices("MPIX_Stream_isend", comm, comm.rank, dest, source_stream_index,
                              dest_stream_index);
      err != MPI_SUCCESS)
    return err;
  return nonblocking_send(buf, count, datatype, dest, tag, comm, dev::SendMode::kStandard, request);
}

int mpix_stream_recv(void* buf, int count, mpi::Datatype& datatype, int source, int tag,
                     mpi::Comm& comm, int source_stream_index, int dest_stream_index,
                     MPI_Status* status) {
  if (int err = check_indices("MPIX_Stream_recv", comm, source, comm.rank, source_stream_index,
                              dest_stream_index);
      err != MPI_SUCCESS)
    return err;
  return recv_any(buf, count, datatype, source, tag, comm, status);
}

int mpix_stream_irecv(void* buf, int count, mpi::Datatype& datatype, int source, int tag,
                      mpi::Comm& comm, int source_stream_index, int dest_stream_index,
                      MPI_Request* request) {
  if (int err = check_indices("MPIX_Stream_irecv", comm, source, comm.rank, source_stream_index,
                              dest_stream_index);
      err != MPI_SUCCESS)
    return err;
  return irecv_any(buf, count, datatype, source, tag, comm, request);
}

}  // namespace stmpi::impl

namespace stmpi::mpi::enqueue {

int attach_engine(mpi::Comm& comm, MPI_Comm* newcomm) {
  return impl::attach(comm, {nullptr}, false, newcomm);
}

}  // namespace stmpi::mpi::enqueue
