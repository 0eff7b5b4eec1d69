// MPIX_Stream objects: creation from MPICH's info keys, the hex form of
// MPIX_Info_set_hex, and the communicator attachment's lifetime.
#include "mpi/enqueue/stream_object.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "mpi/comm/comm.h"
#include "mpi/comm/context_id.h"
#include "mpi/errhan/error.h"
#include "mpi/info/info.h"
#include "mpi/init/state.h"
#include "stream/backend.h"
#include "stream/registry.h"
#include "util/backoff.h"

namespace stmpi::mpi::enqueue {

constinit HandleTable<StreamObject, ObjectKind::kStream> g_stream_table;

const char* stream_type_name(StreamType type) {
  switch (type) {
    case StreamType::kGeneral: return "a stream without type (no stream to enqueue on)";
    case StreamType::kHost: return "MPIX_Host_stream";
    case StreamType::kCuda: return "cudaStream_t";
    case StreamType::kHip: return "hipStream_t";
  }
  return "?";
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool decode_hex(const std::string& text, void* out, std::size_t bytes) {
  auto* dst = static_cast<unsigned char*>(out);
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '[') {
      char* end = nullptr;
      const unsigned long zeros = std::strtoul(text.c_str() + i + 1, &end, 10);
      if (end == text.c_str() + i + 1 || *end != ']' || zeros > bytes - n) return false;
      std::memset(dst + n, 0, zeros);
      n += zeros;
      i = static_cast<std::size_t>(end - text.c_str()) + 1;
      continue;
    }
    if (i + 1 >= text.size() || n >= bytes) return false;
    const int hi = hex_digit(text[i]), lo = hex_digit(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    dst[n++] = static_cast<unsigned char>(hi << 4 | lo);
    i += 2;
  }
  return n == bytes;
}

std::string encode_hex(const void* data, std::size_t bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  const auto* src = static_cast<const unsigned char*>(data);
  std::string text;
  text.reserve(2 * bytes);
  for (std::size_t i = 0; i < bytes; ++i) {
    text += kDigits[src[i] >> 4];
    text += kDigits[src[i] & 0xf];
  }
  return text;
}

void force_locking() {
  if (!g_process_state.locking_forced.exchange(true)) util::set_lock_shared_by_threads(true);
}

namespace {

// The stream named by info "type"/"value".
int typed_stream(const Info& info, StreamType type, std::shared_ptr<stream::Stream>* out) {
  const char* name = stream_type_name(type);
  const auto value = info.find("value");
  if (!value)
    return errhan::make_error(MPIX_ERR_STREAM,
                              "MPIX_Stream_create: info type=%s without the key \"value\" (set it "
                              "with MPIX_Info_set_hex)",
                              name);
  void* handle = nullptr;
  if (!decode_hex(std::string(*value), &handle, sizeof handle))
    return errhan::make_error(MPIX_ERR_STREAM,
                              "MPIX_Stream_create: info value=\"%s\" is not the hex form of a %s",
                              std::string(*value).c_str(), name);
  if (type == StreamType::kHost) {
    std::shared_ptr<stream::HostStream> host = stream::find_host_stream(handle);
    if (host == nullptr)
      return errhan::make_error(MPIX_ERR_STREAM,
                                "MPIX_Stream_create: value=\"%s\" is not a live MPIX_Host_stream",
                                std::string(*value).c_str());
    *out = std::move(host);
    return MPI_SUCCESS;
  }
  const stream::BackendKind kind =
      type == StreamType::kCuda ? stream::BackendKind::kCuda : stream::BackendKind::kHip;
  if (!stream::backend_built(kind))
    return errhan::make_error(MPIX_ERR_STREAM,
                              "MPIX_Stream_create: type=%s, but this library was built without %s "
                              "support",
                              name, stream::backend_name(kind));
  std::shared_ptr<stream::Stream> gpu;
  if (int err = stream::resolve(handle, &gpu); err != MPI_SUCCESS)
    return errhan::make_error(MPIX_ERR_STREAM,
                              "MPIX_Stream_create: the %s in info value cannot be used: %s", name,
                              errhan::error_string(err).c_str());
  if (gpu->backend() != kind)
    return errhan::make_error(
        MPIX_ERR_STREAM, "MPIX_Stream_create: info type=%s, but the active stream backend is %s",
        name, stream::backend_name(gpu->backend()));
  *out = std::move(gpu);
  return MPI_SUCCESS;
}

}  // namespace

int stream_create(const Info* info, int* handle) {
  auto object = std::make_unique<StreamObject>();
  const auto type = info != nullptr ? info->find("type") : std::nullopt;
  if (type) {
    if (*type == "cudaStream_t") object->type = StreamType::kCuda;
    else if (*type == "hipStream_t") object->type = StreamType::kHip;
    else if (*type == "MPIX_Host_stream") object->type = StreamType::kHost;
    else
      return errhan::make_error(MPIX_ERR_STREAM,
                                "MPIX_Stream_create: info type=\"%s\" is none of cudaStream_t, "
                                "hipStream_t, MPIX_Host_stream",
                                std::string(*type).c_str());
    if (int err = typed_stream(*info, object->type, &object->stream); err != MPI_SUCCESS)
      return err;
  }
  force_locking();
  StreamObject* raw = object.release();
  raw->handle = g_stream_table.add(raw);
  *handle = raw->handle;
  return MPI_SUCCESS;
}

int stream_free(int* handle) {
  StreamObject* object = stream_get(*handle);
  if (object == nullptr)
    return errhan::make_error(MPIX_ERR_STREAM, "MPIX_Stream_free: stream=0x%x is not a live stream",
                              static_cast<unsigned>(*handle));
  // Communicators the program still holds refuse the free; ones it freed
  // whose enqueued operations are still running (they hold a reference)
  // delete the stream when the last of them goes.
  int live = 0;
  comm_table().for_each([&](const Comm& comm) {
    if (comm.streams != nullptr && std::find(comm.streams->local.begin(), comm.streams->local.end(),
                                             object) != comm.streams->local.end())
      ++live;
  });
  if (live > 0)
    return errhan::make_error(MPIX_ERR_STREAM,
                              "MPIX_Stream_free: stream=0x%x is still used by %d communicator(s) "
                              "(free them first)",
                              static_cast<unsigned>(*handle), live);
  if (object->progress_thread.joinable())
    return errhan::make_error(MPIX_ERR_STREAM,
                              "MPIX_Stream_free: stream=0x%x still has a progress thread "
                              "(MPIX_Stop_progress_thread first)",
                              static_cast<unsigned>(*handle));
  g_stream_table.remove(*handle);
  if (object->comm_uses > 0) object->free_pending = true;
  else delete object;
  *handle = MPIX_STREAM_NULL;
  return MPI_SUCCESS;
}

CommStreams::~CommStreams() {
  for (StreamObject* s : local)
    if (s != nullptr && --s->comm_uses == 0 && s->free_pending) delete s;
  context_id_release(engine_context);
}

stream::Stream* CommStreams::enqueue_stream() const {
  if (multiplex || local.empty() || local[0] == nullptr) return nullptr;
  return local[0]->stream.get();
}

}  // namespace stmpi::mpi::enqueue
