// The message protocol, written once for every transport: eager,
// synchronous eager, rendezvous (the receiver pulls the sender's exposed
// buffer, or asks for streamed kData chunks when its transport cannot pull),
// send cancellation and active messages by id. It owns the matching queues
// (device/match), so a wildcard receive sees every transport's arrivals in
// one order, and the per-peer backlogs that turn a transport's "retry" into
// "queued".
//
// `Peers` is the device's router (device.cc): the peer table's branch in
// front of the concrete transports. It provides, per world rank,
//   bool send(peer, header, payload)       as Transport::send
//   int poll(handler)                      every transport's arrivals
//   std::size_t max_payload(peer) const    that peer's eager limit
//   std::size_t max_payload() const        the smallest (active messages)
//   int expose(peer, buf, bytes, header*)  as Transport::expose
//   void unexpose(peer, header)            as Transport::unexpose
//   PullStatus pull(peer, rts, local, bytes, req)
// Messages to this rank itself never reach it: they are handled in place.
#pragma once

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "device/match/posted_queue.h"
#include "device/match/unexpected_queue.h"
#include "device/protocol/wire.h"
#include "device/request_dev.h"
#include "device/transport.h"

namespace stmpi::dev {

// An arrived message no receive has matched yet.
struct UnexpectedMessage : match::UnexpectedEntry {
  WireHeader header{};
  std::unique_ptr<char[]> data;  // eager payload (kEager, kEagerSync)
};

using AmHandler = void (*)(int sender, const char* data, std::size_t bytes);

namespace protocol {

inline void complete(RequestDev* req) { req->done.store(true, std::memory_order_release); }
inline RequestDev* request_of(uint64_t id) { return reinterpret_cast<RequestDev*>(id); }

template <class Peers>
class Protocol {
 public:
  explicit Protocol(Peers& peers) : peers_(peers) {}

  void init(int rank, int size) {
    rank_ = rank;
    backlog_.assign(size, {});
    backlog_items_ = 0;
  }
  bool idle() const { return backlog_items_ == 0; }

  // Statistics (MPI_T performance variables, see device.cc).
  const match::PostedQueue& posted_queue() const { return posted_; }
  const match::UnexpectedQueue& unexpected_queue() const { return unexpected_; }
  // Messages that arrived before their receive was posted, so far.
  uint64_t unexpected_arrivals() const { return unexpected_arrivals_; }
  // Sends a transport refused (full ring, no credits) and queued, so far.
  uint64_t backlogged_sends() const { return backlogged_sends_; }

  // Polls every transport and pushes queued work; returns how much moved.
  int progress() {
    int moved =
        peers_.poll([this](const WireHeader& h, const char* payload) { handle(h, payload); });
    if (backlog_items_ != 0) moved += drain_backlogs();
    return moved;
  }

  void isend(const void* buf, std::size_t bytes, int dest, const match::Key& key, SendMode mode,
             RequestDev* req, int* err);
  void irecv(void* buf, std::size_t capacity, const match::Key& pattern, RequestDev* req);
  bool cancel_recv(RequestDev* req) {
    if (!req->posted) return false;
    req->posted = false;
    return posted_.remove(req);
  }
  void cancel_send(RequestDev* req);
  const UnexpectedMessage* find(const match::Key& pattern) {
    return static_cast<const UnexpectedMessage*>(unexpected_.find(pattern));
  }
  UnexpectedMessage* take(const match::Key& pattern) {
    return static_cast<UnexpectedMessage*>(unexpected_.take(pattern));
  }
  // A message taken by take() meets its receive.
  void receive_taken(UnexpectedMessage* msg, void* buf, std::size_t capacity, RequestDev* req) {
    req->done.store(false, std::memory_order_relaxed);
    req->recv_buf = buf;
    req->recv_capacity = capacity;
    req->truncated = false;
    req->failed = false;
    deliver(req, msg->header, msg->data.get());
    delete msg;
  }

  void register_am_handler(uint8_t id, AmHandler handler) { am_handlers_[id] = handler; }
  void am_send(int peer, uint8_t id, const void* data, std::size_t bytes);

  // A pull that answered kPending ended.
  void pull_done(RequestDev* req, bool ok) {
    req->failed = !ok;
    send_control(req->peer, MsgKind::kFin, req->peer_request, 0);
    complete(req);
  }

 private:
  // Work for one peer that its transport refused when issued. Kept in
  // order, so messages to a peer are never reordered.
  struct OutItem {
    WireHeader header{};
    const void* payload = nullptr;  // header.payload_bytes bytes
    RequestDev* complete_on_push = nullptr;
    RequestDev* stream = nullptr;   // kData chunks of this send, until all pushed
    std::shared_ptr<char[]> owned;  // a copy of the payload (active messages)
  };

  void handle(const WireHeader& header, const char* payload);
  void deliver(RequestDev* req, const WireHeader& header, const char* payload);
  void on_data(const WireHeader& header, const char* payload);
  void on_cancel(const WireHeader& header);
  bool push_stream(int peer, RequestDev* req);
  int drain_backlogs();

  // Sends now if the peer has no queued work and its transport takes it,
  // otherwise queues it behind earlier work for that peer.
  void push_or_queue(int peer, const WireHeader& header, const void* payload,
                     RequestDev* complete_on_push) {
    if (peer == rank_) {  // to self: no transport, hand it straight to the handler
      handle(header, static_cast<const char*>(payload));
      if (complete_on_push) complete(complete_on_push);
      return;
    }
    if (backlog_[peer].empty() && peers_.send(peer, header, payload)) {
      if (complete_on_push) complete(complete_on_push);
      return;
    }
    backlog_[peer].push_back(OutItem{header, payload, complete_on_push, nullptr, {}});
    ++backlogged_sends_;
    ++backlog_items_;
  }

  void send_control(int peer, MsgKind kind, uint64_t sender_request, uint64_t receiver_request) {
    WireHeader header{};
    header.kind = kind;
    header.sender = rank_;
    header.sender_request = sender_request;
    header.receiver_request = receiver_request;
    push_or_queue(peer, header, nullptr, nullptr);
  }

  // A send's transfer finished (pushed, pulled or acknowledged).
  static void complete_send(RequestDev* req) {
    if (req->cancel_pending) {
      req->transfer_done = true;  // the cancel answer completes it
      return;
    }
    complete(req);
  }

  // The receiver no longer reads a rendezvous send's buffer.
  void release_exposure(RequestDev* req) {
    if (!req->exposed) return;
    req->exposed = false;
    if (req->peer == rank_) return;
    WireHeader header{};
    header.address = reinterpret_cast<uint64_t>(req->send_buf);
    header.rkey = req->rkey;
    header.total_bytes = req->send_bytes;
    peers_.unexpose(req->peer, header);
  }

  Peers& peers_;
  int rank_ = 0;
  match::PostedQueue posted_;
  match::UnexpectedQueue unexpected_;
  std::vector<std::deque<OutItem>> backlog_;  // by peer
  std::size_t backlog_items_ = 0;
  uint64_t unexpected_arrivals_ = 0;
  uint64_t backlogged_sends_ = 0;
  AmHandler am_handlers_[256] = {};
};

template <class Peers>
void Protocol<Peers>::isend(const void* buf, std::size_t bytes, int dest, const match::Key& key,
                            SendMode mode, RequestDev* req, int* err) {
  req->done.store(false, std::memory_order_relaxed);
  req->peer = dest;
  req->send_buf = buf;
  req->send_bytes = bytes;
  req->mode = mode;
  req->key = key;  // kept for a cancel
  req->cancel_pending = false;
  req->transfer_done = false;
  req->cancelled = false;
  req->exposed = false;
  WireHeader header{};
  header.context_id = key.context_id;
  header.source = key.source;
  header.tag = key.tag;
  header.sender = rank_;
  header.total_bytes = bytes;
  header.sender_request = reinterpret_cast<uint64_t>(req);
  if (bytes <= peers_.max_payload(dest)) {
    const bool sync = mode == SendMode::kSync;
    header.kind = sync ? MsgKind::kEagerSync : MsgKind::kEager;
    header.payload_bytes = static_cast<uint32_t>(bytes);
    push_or_queue(dest, header, buf, sync ? nullptr : req);
    return;
  }
  header.kind = MsgKind::kRts;
  if (dest == rank_) {
    header.address = reinterpret_cast<uint64_t>(buf);
  } else if (int e = peers_.expose(dest, buf, bytes, &header); e != 0) {
    *err = e;
    return;
  }
  req->rkey = header.rkey;
  req->exposed = true;
  push_or_queue(dest, header, nullptr, nullptr);
}

template <class Peers>
void Protocol<Peers>::irecv(void* buf, std::size_t capacity, const match::Key& pattern,
                            RequestDev* req) {
  req->done.store(false, std::memory_order_relaxed);
  req->recv_buf = buf;
  req->recv_capacity = capacity;
  req->truncated = false;
  req->failed = false;
  if (match::UnexpectedEntry* entry = unexpected_.take(pattern)) {
    auto* msg = static_cast<UnexpectedMessage*>(entry);
    deliver(req, msg->header, msg->data.get());
    delete msg;
    return;
  }
  req->key = pattern;
  req->posted = true;
  posted_.post(req);
}

template <class Peers>
void Protocol<Peers>::cancel_send(RequestDev* req) {
  if (req->done.load(std::memory_order_acquire) || req->cancel_pending) return;
  // A message still waiting in the peer's backlog was never sent: drop it.
  if (req->peer != rank_) {
    std::deque<OutItem>& queue = backlog_[req->peer];
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      const MsgKind kind = it->header.kind;
      if (it->stream == nullptr && it->header.sender_request == reinterpret_cast<uint64_t>(req) &&
          (kind == MsgKind::kEager || kind == MsgKind::kEagerSync || kind == MsgKind::kRts)) {
        queue.erase(it);
        --backlog_items_;
        release_exposure(req);
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
  header.sender = rank_;
  header.sender_request = reinterpret_cast<uint64_t>(req);
  header.context_id = req->key.context_id;
  header.source = req->key.source;
  header.tag = req->key.tag;
  push_or_queue(req->peer, header, nullptr, nullptr);
}

template <class Peers>
void Protocol<Peers>::am_send(int peer, uint8_t id, const void* data, std::size_t bytes) {
  WireHeader header{};
  header.kind = MsgKind::kActiveMessage;
  header.am_id = id;
  header.sender = rank_;
  header.payload_bytes = static_cast<uint32_t>(bytes);
  if (peer == rank_) {
    handle(header, static_cast<const char*>(data));
    return;
  }
  if (backlog_[peer].empty() && peers_.send(peer, header, data)) return;
  OutItem item{header, nullptr, nullptr, nullptr, std::shared_ptr<char[]>(new char[bytes])};
  std::memcpy(item.owned.get(), data, bytes);
  item.payload = item.owned.get();
  backlog_[peer].push_back(std::move(item));
  ++backlogged_sends_;
  ++backlog_items_;
}

// Pushes as many kData chunks of a streamed send as the transport takes;
// true when all went.
template <class Peers>
bool Protocol<Peers>::push_stream(int peer, RequestDev* req) {
  const std::size_t chunk_limit = peers_.max_payload(peer);
  while (req->sent < req->send_bytes) {
    const std::size_t chunk = std::min(chunk_limit, req->send_bytes - req->sent);
    WireHeader header{};
    header.kind = MsgKind::kData;
    header.sender = rank_;
    header.payload_bytes = static_cast<uint32_t>(chunk);
    header.receiver_request = req->peer_request;
    header.address = req->sent;
    if (!peers_.send(peer, header, static_cast<const char*>(req->send_buf) + req->sent))
      return false;
    req->sent += chunk;
  }
  complete_send(req);
  return true;
}

template <class Peers>
int Protocol<Peers>::drain_backlogs() {
  int moved = 0;
  const int size = static_cast<int>(backlog_.size());
  for (int peer = 0; peer < size && backlog_items_ != 0; ++peer) {
    std::deque<OutItem>& queue = backlog_[peer];
    while (!queue.empty()) {
      OutItem& item = queue.front();
      if (item.stream != nullptr) {
        if (!push_stream(peer, item.stream)) break;
      } else {
        if (!peers_.send(peer, item.header, item.payload)) break;
        if (item.complete_on_push) complete(item.complete_on_push);
      }
      queue.pop_front();
      --backlog_items_;
      ++moved;
    }
  }
  return moved;
}

// A receive met its message (eager payload inline, or a rendezvous header).
template <class Peers>
void Protocol<Peers>::deliver(RequestDev* req, const WireHeader& header, const char* payload) {
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
  req->peer = header.sender;
  req->peer_request = header.sender_request;
  PullStatus pulled = PullStatus::kDone;
  if (bytes != 0) {
    if (header.sender == rank_) {
      std::memcpy(req->recv_buf, reinterpret_cast<const void*>(header.address), bytes);
    } else {
      pulled = peers_.pull(header.sender, header, req->recv_buf, bytes, req);
    }
  }
  switch (pulled) {
    case PullStatus::kPending: return;  // the transport calls pull_done()
    case PullStatus::kUnsupported:
      // Ask the sender to stream the whole message.
      req->expected = header.total_bytes;
      req->received = 0;
      send_control(header.sender, MsgKind::kCts, header.sender_request,
                   reinterpret_cast<uint64_t>(req));
      return;
    case PullStatus::kDone:
    case PullStatus::kFailed: pull_done(req, pulled == PullStatus::kDone); return;
  }
}

template <class Peers>
void Protocol<Peers>::on_data(const WireHeader& header, const char* payload) {
  RequestDev* req = request_of(header.receiver_request);
  const std::size_t offset = header.address;
  if (offset < req->recv_capacity) {
    const std::size_t fits =
        std::min<std::size_t>(header.payload_bytes, req->recv_capacity - offset);
    std::memcpy(static_cast<char*>(req->recv_buf) + offset, payload, fits);
  }
  req->received += header.payload_bytes;
  if (req->received == req->expected) complete(req);
}

template <class Peers>
void Protocol<Peers>::on_cancel(const WireHeader& header) {
  const match::Key key{header.context_id, header.source, header.tag};
  match::UnexpectedEntry* entry = unexpected_.find_exact_if(key, [&](match::UnexpectedEntry* e) {
    const WireHeader& queued = static_cast<UnexpectedMessage*>(e)->header;
    return queued.sender == header.sender && queued.sender_request == header.sender_request;
  });
  if (entry != nullptr) {
    unexpected_.remove(entry);
    delete static_cast<UnexpectedMessage*>(entry);
  }
  WireHeader answer{};
  answer.kind = MsgKind::kCancelAck;
  answer.sender = rank_;
  answer.sender_request = header.sender_request;
  answer.address = entry != nullptr ? 1 : 0;
  push_or_queue(header.sender, answer, nullptr, nullptr);
}

template <class Peers>
void Protocol<Peers>::handle(const WireHeader& header, const char* payload) {
  switch (header.kind) {
    case MsgKind::kEager:
    case MsgKind::kEagerSync:
    case MsgKind::kRts: {
      const match::Key key{header.context_id, header.source, header.tag};
      if (match::PostedEntry* entry = posted_.match(key)) {
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
      unexpected_.push(msg);
      ++unexpected_arrivals_;
      return;
    }
    case MsgKind::kCts: {
      RequestDev* req = request_of(header.sender_request);
      release_exposure(req);
      req->peer_request = header.receiver_request;
      req->sent = 0;
      const int peer = header.sender;
      if (peer == rank_) {  // cannot happen: self pulls always succeed
        complete(req);
        return;
      }
      if (backlog_[peer].empty() && push_stream(peer, req)) return;
      backlog_[peer].push_back(OutItem{{}, nullptr, nullptr, req, {}});
      ++backlogged_sends_;
      ++backlog_items_;
      return;
    }
    case MsgKind::kData: on_data(header, payload); return;
    case MsgKind::kFin: {
      RequestDev* req = request_of(header.sender_request);
      release_exposure(req);
      complete_send(req);
      return;
    }
    case MsgKind::kSyncAck: complete_send(request_of(header.sender_request)); return;
    case MsgKind::kCancel: on_cancel(header); return;
    case MsgKind::kActiveMessage:
      if (AmHandler handler = am_handlers_[header.am_id])
        handler(header.sender, payload, header.payload_bytes);
      return;
    case MsgKind::kCancelAck: {
      RequestDev* req = request_of(header.sender_request);
      req->cancel_pending = false;
      req->cancelled = header.address == 1;
      if (req->cancelled) release_exposure(req);
      if (req->cancelled || req->transfer_done) complete(req);
      return;
    }
  }
}

}  // namespace protocol
}  // namespace stmpi::dev
