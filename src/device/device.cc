// The device: peer table, matching queues and the message protocols
// (eager, synchronous eager, rendezvous with single-copy pull or streamed
// fallback). Every byte between ranks of a node goes through ShmMod.
#include "device/device.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include <mpi.h>

#include "device/match/posted_queue.h"
#include "device/match/unexpected_queue.h"
#include "device/protocol.h"
#include "device/shm/shm.h"
#include "mpi/errhan/error.h"
#include "pmi/client.h"

namespace stmpi::dev {

struct UnexpectedMessage : match::UnexpectedEntry {
  WireHeader header{};
  std::unique_ptr<char[]> data;  // eager payload (kEager, kEagerSync)
};

namespace {

// Work for one peer that did not fit in its ring when issued. Kept in
// order, so messages to a peer are never reordered.
struct OutItem {
  WireHeader header{};
  const void* payload = nullptr;  // header.payload_bytes bytes
  RequestDev* complete_on_push = nullptr;
  RequestDev* stream = nullptr;   // kData chunks of this send, until all pushed
  std::shared_ptr<char[]> owned;  // a copy of the payload (active messages)
};

struct DeviceState {
  int rank = 0;
  int size = 1;
  shm::ShmMod shm;
  match::PostedQueue posted;
  match::UnexpectedQueue unexpected;
  std::vector<std::deque<OutItem>> backlog;  // by peer
  std::size_t backlog_items = 0;
  std::size_t eager_limit = 0;
  AmHandler am_handler = nullptr;
};

DeviceState g;

inline void complete(RequestDev* req) { req->done.store(true, std::memory_order_release); }

// A send's transfer finished (pushed, pulled or acknowledged).
void complete_send(RequestDev* req) {
  if (req->cancel_pending) {
    req->transfer_done = true;  // the cancel answer completes it
    return;
  }
  complete(req);
}

inline RequestDev* request_of(uint64_t id) { return reinterpret_cast<RequestDev*>(id); }

// Copies header and payload into a cell of the peer's ring; false when full.
bool try_push(int peer, const WireHeader& header, const void* payload) {
  char* cell = g.shm.cell_for(peer);
  if (cell == nullptr) return false;
  // The ready byte must reach the cell as 0; publish() sets it last.
  WireHeader unpublished = header;
  unpublished.ready = 0;
  std::memcpy(cell, &unpublished, sizeof unpublished);
  if (header.payload_bytes != 0) std::memcpy(cell + sizeof header, payload, header.payload_bytes);
  g.shm.publish(peer);
  return true;
}

void handle_message(const WireHeader& header, const char* payload);

// Sends a header (+payload) now if the peer's queue is empty and its ring has
// room, otherwise queues it behind earlier work for that peer.
void push_or_queue(int peer, const WireHeader& header, const void* payload,
                   RequestDev* complete_on_push) {
  if (peer == g.rank) {  // to self: no ring, hand it straight to the handler
    handle_message(header, static_cast<const char*>(payload));
    if (complete_on_push) complete(complete_on_push);
    return;
  }
  if (g.backlog[peer].empty() && try_push(peer, header, payload)) {
    if (complete_on_push) complete(complete_on_push);
    return;
  }
  g.backlog[peer].push_back(OutItem{header, payload, complete_on_push, nullptr, {}});
  ++g.backlog_items;
}

void send_control(int peer, MsgKind kind, uint64_t sender_request, uint64_t receiver_request) {
  WireHeader header{};
  header.kind = kind;
  header.sender = g.rank;
  header.sender_request = sender_request;
  header.receiver_request = receiver_request;
  push_or_queue(peer, header, nullptr, nullptr);
}

// Pushes as many kData chunks of a streamed send as fit; true when all went.
bool push_stream(int peer, RequestDev* req) {
  const std::size_t chunk_limit = g.shm.cell_payload();
  while (req->sent < req->send_bytes) {
    char* cell = g.shm.cell_for(peer);
    if (cell == nullptr) return false;
    const std::size_t chunk = std::min(chunk_limit, req->send_bytes - req->sent);
    WireHeader header{};
    header.kind = MsgKind::kData;
    header.sender = g.rank;
    header.payload_bytes = static_cast<uint32_t>(chunk);
    header.receiver_request = req->peer_request;
    header.address = req->sent;
    std::memcpy(cell, &header, sizeof header);
    std::memcpy(cell + sizeof header, static_cast<const char*>(req->send_buf) + req->sent, chunk);
    g.shm.publish(peer);
    req->sent += chunk;
  }
  complete_send(req);
  return true;
}

void drain_backlogs() {
  for (int peer = 0; peer < g.size && g.backlog_items != 0; ++peer) {
    std::deque<OutItem>& queue = g.backlog[peer];
    while (!queue.empty()) {
      OutItem& item = queue.front();
      if (item.stream != nullptr) {
        if (!push_stream(peer, item.stream)) break;
      } else {
        if (!try_push(peer, item.header, item.payload)) break;
        if (item.complete_on_push) complete(item.complete_on_push);
      }
      queue.pop_front();
      --g.backlog_items;
    }
  }
}

// A receive met its message (eager payload inline, or a rendezvous header).
void deliver(RequestDev* req, const WireHeader& header, const char* payload) {
  const std::size_t bytes = std::min<std::size_t>(header.total_bytes, req->recv_capacity);
  req->msg_source = header.source;
  req->msg_tag = header.tag;
  req->msg_bytes = bytes;
  req->msg_total = header.total_bytes;
  req->truncated = header.total_bytes > req->recv_capacity;
  if (header.kind != MsgKind::kRts) {
    if (bytes != 0) std::memcpy(req->recv_buf, payload, bytes);
    if (header.kind == MsgKind::kEagerSync)
      send_control(header.sender, MsgKind::kSyncAck, header.sender_request, 0);
    complete(req);
    return;
  }
  const shm::PullResult pulled = bytes == 0 ? shm::PullResult::kDone
                                            : g.shm.pull(header.sender, header.address, req->recv_buf, bytes);
  if (pulled == shm::PullResult::kUnsupported) {
    // Ask the sender to stream the whole message through the ring.
    req->expected = header.total_bytes;
    req->received = 0;
    send_control(header.sender, MsgKind::kCts, header.sender_request,
                 reinterpret_cast<uint64_t>(req));
    return;
  }
  req->failed = pulled == shm::PullResult::kFailed;
  send_control(header.sender, MsgKind::kFin, header.sender_request, 0);
  complete(req);
}

void on_data(const WireHeader& header, const char* payload) {
  RequestDev* req = request_of(header.receiver_request);
  const std::size_t offset = header.address;
  if (offset < req->recv_capacity) {
    const std::size_t fits = std::min<std::size_t>(header.payload_bytes, req->recv_capacity - offset);
    std::memcpy(static_cast<char*>(req->recv_buf) + offset, payload, fits);
  }
  req->received += header.payload_bytes;
  if (req->received == req->expected) complete(req);
}

void handle_message(const WireHeader& header, const char* payload) {
  switch (header.kind) {
    case MsgKind::kEager:
    case MsgKind::kEagerSync:
    case MsgKind::kRts: {
      const match::Key key{header.context_id, header.source, header.tag};
      if (match::PostedEntry* entry = g.posted.match(key)) {
        auto* req = static_cast<RequestDev*>(entry);
        req->posted = false;
        deliver(req, header, payload);
        return;
      }
      auto* msg = new UnexpectedMessage;
      msg->key = key;
      msg->header = header;
      if (header.kind != MsgKind::kRts && header.payload_bytes != 0) {
        msg->data.reset(new char[header.payload_bytes]);
        std::memcpy(msg->data.get(), payload, header.payload_bytes);
      }
      g.unexpected.push(msg);
      return;
    }
    case MsgKind::kCts: {
      RequestDev* req = request_of(header.sender_request);
      req->peer_request = header.receiver_request;
      req->sent = 0;
      const int peer = header.sender;
      if (peer == g.rank) {  // cannot happen: self pulls always succeed
        complete(req);
        return;
      }
      if (g.backlog[peer].empty() && push_stream(peer, req)) return;
      g.backlog[peer].push_back(OutItem{{}, nullptr, nullptr, req, {}});
      ++g.backlog_items;
      return;
    }
    case MsgKind::kData:
      on_data(header, payload);
      return;
    case MsgKind::kFin:
    case MsgKind::kSyncAck:
      complete_send(request_of(header.sender_request));
      return;
    case MsgKind::kCancel: {
      const match::Key key{header.context_id, header.source, header.tag};
      match::UnexpectedEntry* entry = g.unexpected.find_exact_if(key, [&](match::UnexpectedEntry* e) {
        const WireHeader& queued = static_cast<UnexpectedMessage*>(e)->header;
        return queued.sender == header.sender && queued.sender_request == header.sender_request;
      });
      if (entry != nullptr) {
        g.unexpected.remove(entry);
        delete static_cast<UnexpectedMessage*>(entry);
      }
      WireHeader answer{};
      answer.kind = MsgKind::kCancelAck;
      answer.sender = g.rank;
      answer.sender_request = header.sender_request;
      answer.address = entry != nullptr ? 1 : 0;
      push_or_queue(header.sender, answer, nullptr, nullptr);
      return;
    }
    case MsgKind::kActiveMessage:
      if (g.am_handler != nullptr) g.am_handler(header.sender, payload, header.payload_bytes);
      return;
    case MsgKind::kCancelAck: {
      RequestDev* req = request_of(header.sender_request);
      req->cancel_pending = false;
      req->cancelled = header.address == 1;
      if (req->cancelled || req->transfer_done) complete(req);
      return;
    }
  }
}

}  // namespace

int init(pmi::Client& pmi) {
  g.rank = pmi.rank();
  g.size = pmi.size();
  if (g.size > match::kMaxRanks)
    return mpi::errhan::make_error(MPI_ERR_OTHER, "%d ranks exceed the supported %d", g.size,
                                   match::kMaxRanks);
  // All ranks must share this node: the network modules are not built yet.
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  if (pmi.put("host-" + std::to_string(g.rank), host) != 0 || pmi.barrier() != 0)
    return mpi::errhan::make_error(MPI_ERR_OTHER, "PMI exchange failed: %s", pmi.error().c_str());
  for (int peer = 0; peer < g.size; ++peer) {
    std::string peer_host;
    if (pmi.get("host-" + std::to_string(peer), &peer_host) != 0)
      return mpi::errhan::make_error(MPI_ERR_OTHER, "PMI get failed: %s", pmi.error().c_str());
    if (peer_host != host)
      return mpi::errhan::make_error(
          MPI_ERR_OTHER, "rank %d runs on host %s and rank %d on %s: ranks on other nodes need "
          "a network module, which this build does not have", g.rank, host, peer, peer_host.c_str());
  }
  if (int err = g.shm.init(g.rank, g.size, pmi); err != MPI_SUCCESS) return err;
  g.backlog.assign(g.size, {});
  g.eager_limit = g.shm.cell_payload();
  return MPI_SUCCESS;
}

int finalize() {
  // Queued control messages (FIN, acks) may be what a peer waits for.
  while (g.backlog_items != 0) {
    progress();
    if (g.backlog_items != 0) sched_yield();
  }
  g.shm.finalize();
  return MPI_SUCCESS;
}

int world_rank() { return g.rank; }
int world_size() { return g.size; }

int isend(const void* buf, std::size_t bytes, int dest, const match::Key& key, SendMode mode,
          RequestDev* req) {
  req->done.store(false, std::memory_order_relaxed);
  req->peer = dest;
  req->send_buf = buf;
  req->send_bytes = bytes;
  req->mode = mode;
  req->key = key;  // kept for a cancel
  req->cancel_pending = false;
  req->transfer_done = false;
  req->cancelled = false;
  WireHeader header{};
  header.context_id = key.context_id;
  header.source = key.source;
  header.tag = key.tag;
  header.sender = g.rank;
  header.total_bytes = bytes;
  header.sender_request = reinterpret_cast<uint64_t>(req);
  if (bytes <= g.eager_limit) {
    const bool sync = mode == SendMode::kSync;
    header.kind = sync ? MsgKind::kEagerSync : MsgKind::kEager;
    header.payload_bytes = static_cast<uint32_t>(bytes);
    push_or_queue(dest, header, buf, sync ? nullptr : req);
  } else {
    header.kind = MsgKind::kRts;
    header.address = reinterpret_cast<uint64_t>(buf);
    push_or_queue(dest, header, nullptr, nullptr);
  }
  return MPI_SUCCESS;
}

int irecv(void* buf, std::size_t capacity, const match::Key& pattern, RequestDev* req) {
  req->done.store(false, std::memory_order_relaxed);
  req->recv_buf = buf;
  req->recv_capacity = capacity;
  req->truncated = false;
  req->failed = false;
  if (match::UnexpectedEntry* entry = g.unexpected.take(pattern)) {
    auto* msg = static_cast<UnexpectedMessage*>(entry);
    deliver(req, msg->header, msg->data.get());
    delete msg;
    return MPI_SUCCESS;
  }
  req->key = pattern;
  req->posted = true;
  g.posted.post(req);
  return MPI_SUCCESS;
}

bool cancel_recv(RequestDev* req) {
  if (!req->posted) return false;
  req->posted = false;
  return g.posted.remove(req);
}

void cancel_send(RequestDev* req) {
  if (req->done.load(std::memory_order_acquire) || req->cancel_pending) return;
  // A message still waiting in the peer's backlog was never sent: drop it.
  if (req->peer != g.rank) {
    std::deque<OutItem>& queue = g.backlog[req->peer];
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      const MsgKind kind = it->header.kind;
      if (it->stream == nullptr && it->header.sender_request == reinterpret_cast<uint64_t>(req) &&
          (kind == MsgKind::kEager || kind == MsgKind::kEagerSync || kind == MsgKind::kRts)) {
        queue.erase(it);
        --g.backlog_items;
        req->cancelled = true;
        complete(req);
        return;
      }
    }
  }
  req->cancel_pending = true;
  req->transfer_done = false;
  WireHeader header{};
  header.kind = MsgKind::kCancel;
  header.sender = g.rank;
  header.sender_request = reinterpret_cast<uint64_t>(req);
  header.context_id = req->key.context_id;
  header.source = req->key.source;
  header.tag = req->key.tag;
  push_or_queue(req->peer, header, nullptr, nullptr);
}

bool iprobe(const match::Key& pattern, ProbeInfo* info) {
  const match::UnexpectedEntry* entry = g.unexpected.find(pattern);
  if (entry == nullptr) return false;
  const auto* msg = static_cast<const UnexpectedMessage*>(entry);
  *info = ProbeInfo{msg->header.source, msg->header.tag, msg->header.total_bytes};
  return true;
}

UnexpectedMessage* improbe(const match::Key& pattern, ProbeInfo* info) {
  match::UnexpectedEntry* entry = g.unexpected.take(pattern);
  if (entry == nullptr) return nullptr;
  auto* msg = static_cast<UnexpectedMessage*>(entry);
  *info = ProbeInfo{msg->header.source, msg->header.tag, msg->header.total_bytes};
  return msg;
}

int imrecv(UnexpectedMessage* msg, void* buf, std::size_t capacity, RequestDev* req) {
  req->done.store(false, std::memory_order_relaxed);
  req->recv_buf = buf;
  req->recv_capacity = capacity;
  deliver(req, msg->header, msg->data.get());
  delete msg;
  return MPI_SUCCESS;
}

void set_am_handler(AmHandler handler) { g.am_handler = handler; }

std::size_t am_max_bytes() { return g.shm.cell_payload(); }

int am_send(int peer, const void* data, std::size_t bytes) {
  WireHeader header{};
  header.kind = MsgKind::kActiveMessage;
  header.sender = g.rank;
  header.payload_bytes = static_cast<uint32_t>(bytes);
  if (peer == g.rank) {
    handle_message(header, static_cast<const char*>(data));
    return MPI_SUCCESS;
  }
  if (g.backlog[peer].empty() && try_push(peer, header, data)) return MPI_SUCCESS;
  OutItem item{header, nullptr, nullptr, nullptr, std::shared_ptr<char[]>(new char[bytes])};
  std::memcpy(item.owned.get(), data, bytes);
  item.payload = item.owned.get();
  g.backlog[peer].push_back(std::move(item));
  ++g.backlog_items;
  return MPI_SUCCESS;
}

void progress() {
  g.shm.poll(handle_message);
  if (g.backlog_items != 0) drain_backlogs();
}

}  // namespace stmpi::dev
