// MPIX_Stream objects (MPICH's stream API) and what a stream communicator
// carries. An MPIX_Stream is a handle of object kind 0xf (MPIX_STREAM_NULL is
// 0x3c000000, as in MPICH); it names a GPU stream, an STMPI host stream, or
// nothing (a CPU context without a stream, MPICH's "general" stream).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <mpi.h>

#include "mpi/handle.h"

namespace stmpi::stream {
class Stream;
}

namespace stmpi::mpi {
struct Comm;
struct Info;
}  // namespace stmpi::mpi

namespace stmpi::mpi::enqueue {

enum class StreamType : uint8_t { kGeneral, kHost, kCuda, kHip };
const char* stream_type_name(StreamType type);

struct StreamObject {
  int handle = 0;
  StreamType type = StreamType::kGeneral;
  std::shared_ptr<stream::Stream> stream;  // null for kGeneral
  int comm_uses = 0;                       // communicators holding it
  bool free_pending = false;               // MPIX_Stream_free ran: the last communicator deletes it
  std::atomic<bool> thread_stop{false};    // MPIX_Start/Stop_progress_thread
  std::thread progress_thread;
};

extern constinit HandleTable<StreamObject, ObjectKind::kStream> g_stream_table;
inline StreamObject* stream_get(int handle) { return g_stream_table.get(handle); }

// What MPIX_Stream_comm_create(_multiplex) attaches to a communicator and
// its duplicates share (Comm::streams).
struct CommStreams {
  std::vector<StreamObject*> local;  // this process's streams (null: MPIX_STREAM_NULL)
  bool multiplex = false;
  std::vector<int> counts;  // multiplex: streams per rank of the communicator
  // The engine's contexts: envelopes on engine_context, data on
  // engine_context + 1 (src/mpi/enqueue/engine.h).
  uint32_t engine_context = 0;
  ~CommStreams();
  // The stream enqueued operations go on, or null.
  stream::Stream* enqueue_stream() const;
};

// Decodes MPICH's hex form (two digits per byte, either case; "[N]" for N
// zero bytes) into exactly `bytes` bytes. False if malformed or of another
// length.
bool decode_hex(const std::string& text, void* out, std::size_t bytes);
// Two upper-case digits per byte (readable by every MPICH).
std::string encode_hex(const void* data, std::size_t bytes);

// From MPIX_Stream_create's info (null: MPI_INFO_NULL).
[[nodiscard]] int stream_create(const Info* info, int* handle);
[[nodiscard]] int stream_free(int* handle);

// After the first stream exists, MPI calls take the global lock at every
// thread level (stream operations run MPI on the streams' threads).
void force_locking();

// A duplicate of `comm` with the engine's contexts and no stream (as
// MPIX_STREAM_NULL gives), for queue APIs that take a plain communicator
// (HPE's MPIX_Create_queue, the MPIS_ calls); collective over comm.
// Defined in src/mpi/mpix/mpix_stream.cc.
[[nodiscard]] int attach_engine(Comm& comm, MPI_Comm* newcomm);

}  // namespace stmpi::mpi::enqueue
