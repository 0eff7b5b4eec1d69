// The libfabric network module's transport (netmod::Module of
// device/netmod/netmod.h): FI_MSG on one FI_EP_RDM endpoint. It owns the
// provider (Fabric), the registration cache and the progress thread; the
// module's other pieces reach them through it: OfiRma (ofi_rma.h, one-sided
// operations and atomics on the second endpoint) and TriggeredNic
// (ofi_triggered.h). README.md in this folder maps the files.
//
// Wire format of one message: OfiPrefix (16 bytes: sender, sequence number,
// returned credits, type) + WireHeader (64 bytes) + payload. Providers may
// complete receives out of order (tcp;ofi_rxm reports comp_order none), so
// the receiver delivers by sequence number and holds a copy of any message
// that overtook an earlier one. Flow control: a rank may have
// `credits` eager messages in flight to a peer; the receiver returns them
// piggybacked on its next message to that peer, or in a credit-only message
// once half are owed. A send without credit or bounce buffer answers false
// (the protocol retries later), so a flood of unexpected messages waits at
// the sender instead of exhausting the provider.
#pragma once

#include <rdma/fi_rma.h>

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "device/netmod/types.h"
#include "device/ofi/fabric.h"
#include "device/ofi/mr_cache.h"
#include "device/ofi/progress_thread.h"
#include "device/protocol/wire.h"
#include "device/request_dev.h"
#include "device/transport.h"

namespace stmpi::pmi {
class Client;
}
namespace stmpi::dev {
struct PeerInfo;
}

namespace stmpi::dev::ofi {

struct OfiPrefix {
  int32_t sender;    // world rank
  uint32_t seq;      // kTypeMessage: number of the message from this sender
  uint16_t credits;  // eager credits returned to the receiver of this message
  uint8_t type;      // kTypeMessage or kTypeCredit
  uint8_t pad[5];
};
static_assert(sizeof(OfiPrefix) == 16);
inline constexpr uint8_t kTypeMessage = 0;
inline constexpr uint8_t kTypeCredit = 1;
inline constexpr std::size_t kHeaders = sizeof(OfiPrefix) + sizeof(WireHeader);

// Every operation's context: libfabric may use the fi_context2 (FI_CONTEXT2
// mode), so it comes first and lives until the completion.
struct OpContext {
  enum class Kind : uint8_t { kRecv, kSend, kCredit, kPull, kRma, kBlocking };
  fi_context2 fi{};
  Kind kind = Kind::kRecv;
  int peer = -1;
  uint32_t index = 0;           // kRecv, kSend: buffer number
  RequestDev* req = nullptr;    // kPull
  Registration* reg = nullptr;  // kPull: the local registration (FI_MR_LOCAL)
  bool done = false;            // kBlocking
};

// How the module reaches the rest of the job during init: an allgather of
// byte strings over every rank (the device implements it with PMI).
using Allgather =
    std::function<int(const std::string& mine, std::vector<std::string>* all, std::string* error)>;

// Called when a completion fails that no request can report (an eager
// send): the device aborts the job with the text. Defaults to stderr+abort.
using FatalHandler = void (*)(const std::string& message);

class Ofi final {
 public:
  Ofi() = default;
  Ofi(const Ofi&) = delete;
  Ofi& operator=(const Ofi&) = delete;
  ~Ofi() { finalize(); }

  // Collective over the job: opens the provider and exchanges endpoint
  // names through `allgather`. An MPI error code carrying the provider's text.
  [[nodiscard]] int init(int rank, int size, const Allgather& allgather, bool verbose);
  // ---- netmod::Module (ofi_device.cc): the device's entries. init is
  // collective over the job; it opens the network only when the peer table
  // has network peers and exchanges names through PMI.
  [[nodiscard]] int probe(int my_rank, std::span<const PeerInfo> table, netmod::Probe* out);
  [[nodiscard]] int init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi);
  void finalize();
  netmod::Capabilities capabilities() const;
  netmod::Stats stats() const;
  std::string description() const { return fabric_.choice().description; }
  bool initialized() const { return initialized_; }

  // ---- the Transport concept
  bool send(int peer, const WireHeader& h, const void* payload);
  template <class F>
  int poll(F&& handler);
  std::size_t max_payload() const { return eager_size_ - kHeaders; }
  int expose(int peer, const void* buf, std::size_t bytes, WireHeader* h);
  void unexpose(const WireHeader& h);
  PullStatus pull(int peer, const WireHeader& rts, void* local, std::size_t bytes, RequestDev* req);

  // ---- for the module's other pieces (OfiRma, TriggeredNic)
  // Whether the provider does `op` on `type` natively: kind 0 atomic, 1
  // fetching, 2 compare. Cached.
  bool atomic_valid(int kind, fi_op op, fi_datatype type);
  // Remote addresses are virtual addresses (FI_MR_VIRT_ADDR), else offsets.
  bool virt_addr() const { return (fabric_.info()->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0; }
  // Local buffers need a registration descriptor (FI_MR_LOCAL).
  bool local_mr() const { return local_mr_; }
  MrCache& cache() { return cache_; }
  Fabric& fabric() { return fabric_; }
  // Registered windows: while there are any, poll() drives the RMA
  // endpoint too (other ranks' one-sided operations on this rank's memory).
  void add_windows(int delta) { windows_ += delta; }
  // Counts a turn of a wait as a poll: the progress thread stays off the
  // provider while a rank spins (on a lock grant, a flush).
  void note_polled() { polls_.fetch_add(1, std::memory_order_relaxed); }
  // Reports a failure no request can report: the device aborts the job.
  [[noreturn]] void fatal(const std::string& message);
  void set_fatal_handler(FatalHandler handler) { fatal_ = handler; }

  // The text of the last failure no MPI error code carried (a pull that
  // answered kFailed, a failed completion), for tests and messages.
  const std::string& error() const { return error_; }
  bool progress_thread_running() const { return progress_thread_.running(); }
  // The provider's own threads found at init (automatic progress).
  int provider_threads() const { return provider_threads_; }
  // Counters for tests and verbose output (stats() has them all).
  std::size_t credit_waits() const { return credit_waits_; }
  uint64_t thread_polls() const { return progress_thread_.polls(); }
  uint64_t thread_blocks() const { return progress_thread_.sleeps(); }
  uint64_t thread_wakeups() const { return progress_thread_.wakeups(); }

 private:
  struct Arrival {
    WireHeader header;
    const char* payload;
    int sender;
  };

  int open(int rank, int size, const Allgather& allgather, std::string* error);
  int setup_buffers(std::string* error);
  // Waits (up to STMPI_OFI_TIMEOUT) until every send has completed.
  void drain_sends();
  int post_recv(uint32_t index);
  // Reads the message CQ: handles internal completions, collects arrivals.
  int poll_completions(std::vector<Arrival>* arrivals);
  // One received message, delivered in sequence order.
  void arrive(const OfiPrefix& prefix, const char* data, std::size_t len,
              std::vector<Arrival>* arrivals);
  // Reposts released receive buffers, returns owed credits, retries pulls.
  void after_arrivals();
  void handle_cq_error(fid_cq* cq);
  bool send_credit(int peer);
  int issue_pull(OpContext* op, void* local, std::size_t bytes, uint64_t raddr, uint64_t key);

  bool initialized_ = false;
  bool verbose_ = false;
  int rank_ = 0;
  int size_ = 0;
  Fabric fabric_;
  MrCache cache_;
  std::size_t eager_size_ = 0;
  bool local_mr_ = false;

  // Receive buffers: multi-receive slabs, or one eager_size buffer each.
  std::unique_ptr<char[]> recv_memory_;
  std::size_t recv_buffer_size_ = 0;
  std::vector<OpContext> recv_ctx_;
  Registration recv_reg_;
  std::vector<uint32_t> repost_;

  // Bounce buffers for sends.
  std::unique_ptr<char[]> bounce_memory_;
  std::vector<OpContext> bounce_ctx_;
  std::vector<uint32_t> bounce_free_;
  Registration bounce_reg_;

  // Flow control, by peer.
  int credits_ = 0;
  std::vector<int> send_credits_;
  std::vector<int> owed_;
  std::vector<OpContext> credit_ctx_;  // one credit-only message in flight per peer
  std::vector<uint8_t> credit_busy_;
  std::vector<OfiPrefix> credit_buf_;
  std::size_t credit_waits_ = 0;

  // Rendezvous pulls that met -FI_EAGAIN, retried from poll.
  struct PendingPull {
    OpContext* op;
    void* local;
    std::size_t bytes;
    uint64_t raddr;
    uint64_t key;
  };
  std::deque<PendingPull> pending_pulls_;

  std::vector<int8_t> atomic_valid_;  // -1 unknown, by (kind, op, type)
  // 64-bit fetch-add, compare-and-swap, read and write on FI_UINT64 are
  // native (the lock protocol's atomics; found at init).
  bool atomics64_ = false;

  // Ordering, by peer: next sequence number to send / to deliver, and
  // copies of messages that arrived early (header + payload).
  std::vector<uint32_t> send_seq_;
  std::vector<uint32_t> recv_seq_;
  std::vector<std::map<uint32_t, std::string>> early_;
  std::deque<std::string> released_;  // early copies delivered by this poll (stable addresses)
  std::size_t reordered_ = 0;

  std::vector<Arrival> arrivals_;
  std::string error_;
  FatalHandler fatal_ = nullptr;

  // Sets STMPI_OFI_PROVIDER_THREAD_NICE on the threads not in `before`
  // (sorted): the provider's, started while it was opened.
  void prioritize_provider_threads(const std::vector<pid_t>& before);

  ProgressThread progress_thread_;
  int provider_threads_ = 0;          // the provider's own threads (automatic progress)
  int provider_threads_reniced_ = 0;  // of those, set to STMPI_OFI_PROVIDER_THREAD_NICE
  int provider_nice_failed_ = 0;      // errno of a setpriority that failed, 0 if none
  // Calls of poll() and turns of the one-sided waits (flush, a blocking
  // atomic or read, a retry after -FI_EAGAIN), which the progress thread
  // reads to stay off the provider while a rank drives it. The RMA waits
  // were not counted at first: an origin spinning on its lock grant or its
  // flush then looked idle, and its progress thread, woken by every
  // message at nice -10, preempted it.
  std::atomic<uint64_t> polls_{0};
  int windows_ = 0;  // registered windows (add_windows)
};

template <class F>
int Ofi::poll(F&& handler) {
  // The device polls every transport; a job without network peers never
  // opened this one.
  if (!initialized_) [[unlikely]]
    return 0;
  polls_.store(polls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  arrivals_.clear();
  released_.clear();
  poll_completions(&arrivals_);
  // Manual progress is per endpoint: while windows exist, other ranks'
  // one-sided operations on this rank's memory arrive on the RMA endpoint,
  // and a rank waiting in MPI (a fence, a lock grant) must drive it too.
  if (windows_ > 0 && !fabric_.choice().auto_progress) (void)fi_cntr_read(fabric_.rma().cntr);
  for (const Arrival& a : arrivals_) {
    handler(a.header, a.payload);
    ++owed_[a.sender];
  }
  after_arrivals();
  return static_cast<int>(arrivals_.size());
}

static_assert(Transport<Ofi>);

}  // namespace stmpi::dev::ofi
