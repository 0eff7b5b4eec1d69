// The UCX network module's transport: class Ucx, a netmod::Module
// (device/netmod/netmod.h) over UCP active messages, with the one-sided
// primitives its RMA class (ucx_rma.h) uses. README.md in this folder maps
// the files.
//
// Wire format of one message (one UCP active message, id kAmId, forced
// eager): UcxPrefix (16 bytes) + WireHeader (64 bytes) + payload, then for
// a rendezvous RTS the sender's packed remote key (key_bytes). Matching
// stays in the device's hashed queues: UCX's tag matching is not used, so a
// wildcard receive sees shm and network arrivals in one order.
//
// Ordering: arrivals carry a per-peer sequence number and are delivered in
// that order (a message that overtakes an earlier one, possible on several
// lanes, waits in `early_`).
// Flow control: a rank may have `credits` eager messages to one peer that
// the peer has not delivered yet; delivered messages return credits
// piggybacked on the next message, or in a credit-only message once half
// are owed. A send without credit answers false (the protocol keeps it in
// its per-peer backlog), so a flood of unexpected messages waits at the
// sender instead of in UCX's receive descriptors.
// Rendezvous: expose() maps the sender's buffer (ucp_mem_map) and packs its
// key; send() appends the packed key to the RTS; the receiver unpacks it as
// it delivers the RTS, keeps the remote key under a local number in the
// header's `rkey` field, and pull() reads the buffer with ucp_get_nbx.
//
// Threads: one worker in UCS_THREAD_MODE_SERIALIZED behind `lock_`. The
// rank drives it from poll() and its one-sided waits; the progress thread
// sleeps on the worker's event descriptor and progresses it only while no
// MPI call has polled for STMPI_UCX_PROGRESS_THREAD_US, so that other
// ranks' one-sided operations and atomics (which UCX runs in the target's
// progress over TCP) complete while this rank computes. A mutex taken per
// call costs an uncontended lock (tens of ns); UCS_THREAD_MODE_MULTI would
// take UCX's own lock inside every call as well and still leave the
// module's tables (credits, sequences, keys) to protect.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "device/netmod/types.h"
#include "device/protocol/wire.h"
#include "device/request_dev.h"
#include "device/rma/region.h"
#include "device/transport.h"
#include "device/ucx/worker.h"

namespace stmpi::pmi {
class Client;
}
namespace stmpi::dev {
struct PeerInfo;
}

namespace stmpi::dev::ucx {

struct UcxPrefix {
  int32_t sender;    // world rank
  uint32_t seq;      // kTypeMessage: number of the message from this sender
  uint16_t credits;  // eager credits returned to the receiver of this message
  uint8_t type;      // kType*
  uint8_t pad;
  uint32_t key_bytes;  // kTypeMessage (RTS): the packed key after the payload
};
static_assert(sizeof(UcxPrefix) == 16);
inline constexpr uint8_t kTypeMessage = 0;     // a protocol message
inline constexpr uint8_t kTypeCredit = 1;      // credits only
inline constexpr uint8_t kTypeBye = 2;         // the sender is closing (finalize)
inline constexpr uint8_t kTypeKeyRequest = 3;  // RMA: send me the packed key of registration `seq`
inline constexpr uint8_t kTypeKeyReply = 4;    // RMA: the packed key of registration `seq`
inline constexpr std::size_t kHeaders = sizeof(UcxPrefix) + sizeof(WireHeader);
inline constexpr unsigned kAmId = 0;

// Called when a failure no request can report happens (a failed eager
// send, a dead peer): the device aborts the job with the text.
using FatalHandler = void (*)(const std::string& message);

class Ucx final {
 public:
  Ucx() = default;
  Ucx(const Ucx&) = delete;
  Ucx& operator=(const Ucx&) = delete;
  // Still open here means the process is exiting without MPI_Finalize
  // (exit() in a rank, a static destructor): no goodbyes, since the peers
  // may be blocked in MPI and never answer; the launcher ends the job.
  ~Ucx() { abandon(); }

  // Opens UCX and learns the peers' addresses. `addresses[peer]` is the
  // worker address of each network peer (empty for the others), filled by
  // `exchange` once this rank's own address is known. 0, or -1 with *error.
  using Exchange = int (*)(void* arg, const std::string& mine, std::vector<std::string>* all,
                           std::string* error);
  [[nodiscard]] int open(int rank, int size, bool verbose, Exchange exchange, void* arg,
                         std::string* error);
  // ---- netmod::Module (ucx_device.cc)
  // Local and cheap: whether UCX opens here with a transport that reaches
  // other hosts, and the preference for STMPI_NETMOD=auto.
  int probe(int my_rank, std::span<const PeerInfo> table, netmod::Probe* out);
  // Collective over the job; opens UCX only when the peer table has network
  // peers; addresses through PMI. An MPI error code.
  [[nodiscard]] int init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi);
  void finalize();
  // Stops the progress thread and closes the worker by force, telling no peer.
  void abandon();
  netmod::Capabilities capabilities() const;
  netmod::Stats stats() const;
  std::string description() const;
  bool initialized() const { return initialized_; }

  // ---- the Transport concept
  bool send(int peer, const WireHeader& h, const void* payload);
  template <class F>
  int poll(F&& handler);
  std::size_t max_payload() const { return eager_size_ - kHeaders; }
  int expose(int peer, const void* buf, std::size_t bytes, WireHeader* h);
  void unexpose(const WireHeader& h);
  PullStatus pull(int peer, const WireHeader& rts, void* local, std::size_t bytes, RequestDev* req);

  // ---- one-sided primitives (ucx_ops.cc), for UcxRma. 0, or -1 with
  // error() holding UCX's text.
  // Registers `bytes` at `base` and packs its remote key into `packed`.
  [[nodiscard]] int register_memory(void* base, std::size_t bytes, ucp_mem_h* memh,
                                    std::string* packed);
  void deregister_memory(ucp_mem_h memh);
  // A target's packed key as a remote key on the endpoint to it.
  [[nodiscard]] int import_key(int peer, const void* packed, ucp_rkey_h* rkey);
  void release_key(ucp_rkey_h rkey);
  // Puts (read false) of the packed bytes at `buf` to the runs at `base`,
  // or gets of them into `buf`: locally complete on return (puts remotely
  // at flush()), gets complete.
  [[nodiscard]] int transfer(bool read, int peer, char* buf, std::span<const rma::Run> runs,
                             uint64_t base, ucp_rkey_h rkey);
  // A blocking 64-bit or 32-bit atomic: `*value` is the operand in, the old
  // value out (fetching); `compare` for UCP_ATOMIC_OP_CSWAP.
  [[nodiscard]] int atomic(int peer, ucp_atomic_op_t op, std::size_t size, uint64_t* value,
                           uint64_t compare, bool fetch, uint64_t raddr, ucp_rkey_h rkey);
  // Waits until every one-sided operation to `peer` (-1: every peer) is
  // complete at its target. Gets and fetching atomics are complete when they
  // return, so only peers with puts or non-fetching atomics since their last
  // flush cost a round trip; for the others it returns at once.
  [[nodiscard]] int flush(int peer);
  // Orders the one-sided operations issued after it behind those issued
  // before it, at every target (ucp_worker_fence).
  [[nodiscard]] int fence();
  // From any thread, never blocks: progresses the worker unless another
  // thread holds it, and counts as the rank polling (the progress thread
  // stays off).
  void serve();
  const std::string& error() const { return error_; }
  void set_fatal_handler(FatalHandler handler) { fatal_ = handler; }
  const Worker& worker() const { return worker_; }
  bool progress_thread_running() const { return progress_thread_.joinable(); }

  // Counters for tests and performance variables.
  std::size_t credit_waits() const { return credit_waits_; }
  std::size_t credit_messages() const { return credit_messages_; }
  std::size_t reordered() const { return reordered_; }
  uint64_t thread_polls() const { return thread_polls_.load(std::memory_order_relaxed); }
  // Flushes that waited for a peer (the others had nothing to complete).
  uint64_t flush_round_trips() const { return flush_round_trips_; }
  uint64_t thread_blocks() const { return thread_blocks_.load(std::memory_order_relaxed); }
  uint64_t thread_wakeups() const { return thread_wakeups_.load(std::memory_order_relaxed); }

 private:
  struct Arrival {
    void* data;  // UCX's descriptor (released after delivery), or early_ copy
    std::size_t length;
    bool owned;  // a heap copy (early arrival), not a UCX descriptor
  };
  struct Exposure {
    ucp_mem_h memh = nullptr;
    void* packed = nullptr;
    std::size_t packed_bytes = 0;
  };
  // One operation's completion, written by UCX's callback.
  struct OpState {
    std::atomic<bool> done{false};
    ucs_status_t status = UCS_OK;
    RequestDev* req = nullptr;  // pulls
    uint64_t rkey_slot = 0;     // pulls: the remote key to destroy after
    Ucx* owner = nullptr;
  };

  static ucs_status_t on_am(void* arg, const void* header, std::size_t header_length, void* data,
                            std::size_t length, const ucp_am_recv_param_t* param);
  static void on_send_done(void* request, ucs_status_t status, void* user_data);
  static void on_pull_done(void* request, ucs_status_t status, void* user_data);
  static void on_op_done(void* request, ucs_status_t status, void* user_data);
  // Several operations' completion (transfer).
  struct Batch {
    std::atomic<int> pending{0};
    ucs_status_t status = UCS_OK;
  };
  static void on_batch_done(void* request, ucs_status_t status, void* user_data);
  static void on_endpoint_failure(void* owner, int peer, ucs_status_t status);

  // Under lock_: progresses the worker until it has nothing more.
  void progress_locked();
  // Under lock_: sends `bytes` at `data` (a buffer from take_buffer) to
  // `peer` as one active message; the buffer goes back when UCX is done.
  bool send_locked(int peer, char* data, std::size_t bytes);
  char* take_buffer(std::size_t bytes);
  void give_buffer(char* buffer);
  void send_credit_locked(int peer);
  void deliver_in_order(int sender, void* data, std::size_t length, bool owned);
  // Waits for `state` (progressing), at most STMPI_UCX_TIMEOUT. 0 or -1.
  int wait_op(OpState* state, void* request, int peer, const char* what);
  int fail(const std::string& text);
  [[noreturn]] void fatal(const std::string& message);
  void note_polled() { polls_.fetch_add(1, std::memory_order_relaxed); }
  void progress_thread_main(int stay_off_us);
  void stop_progress_thread();
  void say_goodbye();

  bool initialized_ = false;
  bool closing_ = false;  // finalize began: failures of closing connections are expected
  bool verbose_ = false;
  int rank_ = 0;
  int size_ = 0;
  Worker worker_;
  std::size_t eager_size_ = 0;
  std::mutex lock_;

  // Send buffers (eager_size bytes each unless an RTS key needs more).
  std::vector<char*> free_buffers_;

  // Flow control, by peer.
  int credits_ = 0;
  std::vector<int> send_credits_;
  std::vector<int> owed_;
  std::size_t credit_waits_ = 0;
  std::size_t credit_messages_ = 0;

  // Ordering, by peer.
  std::vector<uint32_t> send_seq_;
  std::vector<uint32_t> recv_seq_;
  std::vector<std::map<uint32_t, Arrival>> early_;
  std::size_t reordered_ = 0;
  std::vector<Arrival> arrived_;     // filled by on_am in order, under lock_
  std::vector<Arrival> delivering_;  // poll's own copy (rank thread)
  std::vector<uint8_t> bye_;         // peers that said they are closing

  // One-sided completion, by peer: puts or non-fetching atomics issued
  // since the last flush that covered the peer (under lock_).
  std::vector<uint8_t> unflushed_;
  std::size_t unflushed_peers_ = 0;
  uint64_t flush_round_trips_ = 0;
  void note_unflushed(int peer) {
    if (unflushed_[peer] == 0) ++unflushed_peers_;
    unflushed_[peer] = 1;
  }

  // Rendezvous: exposures by number (sender), unpacked keys by number
  // (receiver), pulls that ended (their callbacks run under lock_).
  uint64_t next_number_ = 1;
  std::unordered_map<uint64_t, Exposure> exposures_;
  std::unordered_map<uint64_t, ucp_rkey_h> rts_keys_;
  std::vector<OpState*> pulls_done_;
  std::vector<OpState*> pulls_finished_;  // poll's own copy

  std::string error_;
  FatalHandler fatal_ = nullptr;

  std::thread progress_thread_;
  std::atomic<bool> stop_thread_{false};
  int stop_fd_ = -1;
  int efd_ = -1;
  // Calls of poll() and turns of the one-sided waits: the progress thread
  // reads them to stay off a worker its rank drives.
  std::atomic<uint64_t> polls_{0};
  std::atomic<uint64_t> thread_polls_{0};
  std::atomic<uint64_t> thread_blocks_{0};
  std::atomic<uint64_t> thread_wakeups_{0};
};

template <class F>
int Ucx::poll(F&& handler) {
  // The device polls every transport; a job without network peers never
  // opened this one.
  if (!initialized_) [[unlikely]]
    return 0;
  note_polled();
  {
    std::lock_guard<std::mutex> guard(lock_);
    progress_locked();
    if (arrived_.empty() && pulls_done_.empty()) return 0;
    delivering_.swap(arrived_);
    pulls_finished_.swap(pulls_done_);
  }
  const int n = static_cast<int>(delivering_.size());
  for (const Arrival& a : delivering_) {
    const char* data = static_cast<const char*>(a.data);
    UcxPrefix prefix;
    WireHeader header;
    std::memcpy(&prefix, data, sizeof prefix);
    std::memcpy(&header, data + sizeof prefix, sizeof header);
    if (prefix.key_bytes != 0) {
      // An RTS with the sender's packed key: keep the unpacked key under a
      // number of ours for the pull.
      std::lock_guard<std::mutex> guard(lock_);
      std::string why;
      ucp_rkey_h rkey = nullptr;
      ucp_ep_h ep = worker_.endpoint(prefix.sender, &why);
      if (ep == nullptr ||
          ucp_ep_rkey_unpack(ep, data + kHeaders + header.payload_bytes, &rkey) != UCS_OK)
        rkey = nullptr;
      const uint64_t number = next_number_++;
      rts_keys_[number] = rkey;
      header.rkey = number;
    }
    handler(header, data + kHeaders);
  }
  {
    std::lock_guard<std::mutex> guard(lock_);
    for (const Arrival& a : delivering_) {
      const int sender = static_cast<const UcxPrefix*>(a.data)->sender;
      if (a.owned) delete[] static_cast<char*>(a.data);
      else ucp_am_data_release(worker_.worker(), a.data);
      if (++owed_[sender] >= credits_ / 2) send_credit_locked(sender);
    }
  }
  delivering_.clear();
  for (OpState* pull : pulls_finished_) {
    RequestDev* req = pull->req;
    const bool ok = pull->status == UCS_OK;
    delete pull;
    protocol::pull_done(req, ok);
  }
  pulls_finished_.clear();
  return n;
}

static_assert(Transport<Ucx>);

}  // namespace stmpi::dev::ucx
