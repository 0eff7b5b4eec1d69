// net_layers: what one message between two nodes costs below the MPI
// library, layer by layer, for the per-layer table of the network module
// (src/device/ofi/README.md). Two ranks (one per node) under Hydra; every
// figure is a one-way time (half a round trip), rank 0 prints them.
//
//   provider inject  SIZE   bare fi_inject into a pre-posted fi_recv (sizes
//                           up to the provider's inject_size)
//   provider send    SIZE   bare fi_send (completion read) into a pre-posted
//                           fi_recv
//   provider rndv    SIZE   the rendezvous skeleton on bare libfabric: 8 B
//                           fi_send (the RTS), fi_read of SIZE by the
//                           receiver, 8 B fi_send back (the FIN)
//   transport        SIZE   the network module (Ofi, device/ofi): send() of
//                           a WireHeader + SIZE bytes and poll() at the
//                           other side (eager, payload copied out), or for
//                           SIZE above the eager limit expose + RTS, pull
//                           (fi_read) + FIN, as the protocol drives it
// The MPI ping-pong of the same sizes (test/bench/pingpong.c, net_layers_run.sh
// runs it in the same nodes, interleaved) adds the protocol and the MPI layer.
// The provider rows run on a second fabric/domain/endpoint of their own, so
// they never see the module's buffers.
//
// Output (rank 0): `layer NAME SIZE MEDIAN_US MIN_US MAX_US` over repeats of
// the per-repeat means. Every payload is checked once per repeat.
// Usage: net_layers [-r repeats] [-i round trips per repeat] [-s sizes, e.g. 8,64K]
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "device/ofi/fabric.h"
#include "device/ofi/mr_cache.h"
#include "device/ofi/ofi.h"
#include "device/ofi/settings.h"
#include "pmi/client.h"
#include "util/error.h"
#include "util/param.h"

namespace stmpi::dev::protocol {
// The protocol's rendezvous callback: the bench waits on this flag.
volatile bool g_pulled = false;
volatile bool g_pull_ok = false;
void pull_done(RequestDev*, bool ok) {
  g_pull_ok = ok;
  g_pulled = true;
}
}  // namespace stmpi::dev::protocol

namespace {

using namespace stmpi::dev;
using ofi::Fabric;
using ofi::Ofi;

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void die(const std::string& what) {
  fprintf(stderr, "net_layers: %s\n", what.c_str());
  exit(1);
}

std::string fi_text(const char* call, ssize_t rc) {
  return std::string(call) + ": " + fi_strerror(static_cast<int>(-rc));
}

std::size_t parse_size(const char* s) {
  char* end = nullptr;
  std::size_t v = std::strtoull(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  return v;
}

// CPU cost of single calls, robust to a loaded machine: the median duration
// of the successful calls of each kind (a call preempted now and then moves
// the mean, not the median), by name, for the message size being measured.
struct CallTimes {
  std::map<std::string, std::vector<double>> us;
  void add(const char* name, double t0) { us[name].push_back(now_us() - t0); }
  void print(std::size_t n) {
    for (auto& [name, v] : us) {
      if (v.empty()) continue;
      std::sort(v.begin(), v.end());
      printf("call %s %zu %.3f %zu\n", name.c_str(), n, v[v.size() / 2], v.size());
    }
    us.clear();
  }
};
CallTimes g_calls;

// The PMI allgather of one string per rank (two ranks).
struct Exchange {
  stmpi::pmi::Client& pmi;
  int rank;
  int round = 0;
  std::string swap(const std::string& mine) {
    const std::string key = "nl" + std::to_string(round++) + "-";
    std::string theirs;
    if (pmi.put(key + std::to_string(rank), mine) != 0 || pmi.barrier() != 0 ||
        pmi.get(key + std::to_string(1 - rank), &theirs) != 0)
      die(pmi.error());
    return theirs;
  }
};

// Bare libfabric on a fabric of its own: one endpoint, pre-posted receives.
class Bare {
 public:
  Bare(Exchange& ex, std::size_t max_bytes) : rank_(ex.rank), bytes_(max_bytes) {
    std::string error, address;
    const ofi::Settings& s = ofi::settings();
    ofi::ProviderChoice choice;
    if (ofi::resolve_iface(s.iface, &address, &error) != 0 ||
        // The progress the module asks for (STMPI_OFI_DATA_PROGRESS).
        ofi::select_provider(s.provider, address,
                             s.data_progress == "manual" ? FI_PROGRESS_MANUAL : FI_PROGRESS_AUTO,
                             &choice, &error) != 0 ||
        fabric_.open(std::move(choice), /*want_wait_set=*/false, &error) != 0)
      die("bare fabric: " + error);
    cache_.init(&fabric_, 8);
    sbuf_.assign(bytes_, 0);
    rbuf_.assign(bytes_, 0);
    rdata_.assign(bytes_, 0);
    target_.assign(bytes_, 0);
    if (cache_.register_range(sbuf_.data(), bytes_, &sreg_, &error) != 0 ||
        cache_.register_range(rbuf_.data(), bytes_, &rreg_, &error) != 0 ||
        cache_.register_range(rdata_.data(), bytes_, &dreg_, &error) != 0 ||
        cache_.register_range(target_.data(), bytes_, &treg_, &error) != 0)
      die("bare registration: " + error);
    std::string names;
    if (fabric_.local_names(&names, &error) != 0) die(error);
    std::vector<std::string> all(2);
    all[rank_] = names;
    all[1 - rank_] = ex.swap(names);
    if (fabric_.insert_peers(all, &error) != 0) die(error);
    char mine[64];
    snprintf(mine, sizeof mine, "%llx:%llx",
             static_cast<unsigned long long>(treg_.remote_address(target_.data())),
             static_cast<unsigned long long>(treg_.key));
    unsigned long long a = 0, k = 0;
    if (sscanf(ex.swap(mine).c_str(), "%llx:%llx", &a, &k) != 2) die("bad key exchange");
    peer_addr_ = a, peer_key_ = k;
    inject_size_ = fabric_.info()->tx_attr->inject_size;
  }
  ~Bare() {
    cache_.deregister(&sreg_);
    cache_.deregister(&rreg_);
    cache_.deregister(&dreg_);
    cache_.deregister(&treg_);
    cache_.clear();
    fabric_.close();
  }
  std::size_t inject_size() const { return inject_size_; }

  // One message of `n` bytes each way; mode 0 send, 1 inject, 2 rndv.
  void round_trip(int mode, std::size_t n, char fill) {
    const int peer = 1 - rank_;
    if (rank_ == 0) {
      deliver(mode, peer, n, fill);
      receive(mode, peer, n);
    } else {
      receive(mode, peer, n);
      deliver(mode, peer, n, fill);
    }
  }
  // Where the last round trip's payload landed: the read buffer after a
  // rendezvous round trip, else the receive buffer.
  const std::vector<char>& received(bool rndv) const { return rndv ? rdata_ : rbuf_; }

 private:
  void post_recv() {
    ofi::Endpoint& e = fabric_.msg();
    for (;;) {
      const ssize_t rc =
          fi_recv(e.ep, rbuf_.data(), bytes_, rreg_.desc, FI_ADDR_UNSPEC, &recv_ctx_);
      if (rc == 0) return;
      if (rc != -FI_EAGAIN) die(fi_text("fi_recv", rc));
      drain();
    }
  }
  // Reads the CQ, counting completions by context (a receive may complete
  // while a send is awaited).
  void drain() {
    fi_cq_data_entry c[8];
    for (;;) {
      const double t0 = now_us();
      const ssize_t k = fi_cq_read(fabric_.msg().cq, c, 8);
      if (k == -FI_EAGAIN) return;
      if (k > 0) g_calls.add("provider_cq_read_hit", t0);
      if (k < 0) {
        fi_cq_err_entry err{};
        fi_cq_readerr(fabric_.msg().cq, &err, 0);
        die(std::string("bare completion failed: ") + fi_strerror(err.err));
      }
      for (ssize_t i = 0; i < k; ++i) {
        if (c[i].op_context == &recv_ctx_) ++done_[0];
        else if (c[i].op_context == &send_ctx_) ++done_[1];
        else if (c[i].op_context == &read_ctx_) ++done_[2];
      }
    }
  }
  void wait(const void* want) {
    const int which = want == &recv_ctx_ ? 0 : want == &send_ctx_ ? 1 : 2;
    const double end = now_us() + 30e6;
    while (done_[which] == 0) {
      drain();
      if (now_us() > end)
        die(std::string("bare: no completion in 30 s for the ") + (which == 0   ? "receive"
                                                                   : which == 1 ? "send"
                                                                                : "read"));
    }
    --done_[which];
  }
  void send_small(int peer, std::size_t n) {
    ofi::Endpoint& e = fabric_.msg();
    for (;;) {
      const double t0 = now_us();
      const ssize_t rc = fi_send(e.ep, sbuf_.data(), n, sreg_.desc, e.peers[peer], &send_ctx_);
      if (rc == 0) {
        g_calls.add(rndv_ ? "provider_send_control" : "provider_send", t0);
        break;
      }
      if (rc != -FI_EAGAIN) die(fi_text("fi_send", rc));
      drain();
    }
    wait(&send_ctx_);
  }
  void deliver(int mode, int peer, std::size_t n, char fill) {
    ofi::Endpoint& e = fabric_.msg();
    rndv_ = mode == 2;
    if (mode == 2) {  // the data sits in target_ for the peer to read
      std::memset(target_.data(), fill, n);
      send_small(peer, 8);  // RTS
      wait_recv();          // FIN
      return;
    }
    std::memset(sbuf_.data(), fill, std::min<std::size_t>(n, 64));
    if (mode == 1) {
      for (;;) {
        const double t0 = now_us();
        const ssize_t rc = fi_inject(e.ep, sbuf_.data(), n, e.peers[peer]);
        if (rc == 0) {
          g_calls.add("provider_inject", t0);
          break;
        }
        if (rc != -FI_EAGAIN) die(fi_text("fi_inject", rc));
        drain();
      }
      return;
    }
    send_small(peer, n);
  }
  void wait_recv() {
    wait(&recv_ctx_);
    post_recv();
  }
  void receive(int mode, int peer, std::size_t n) {
    if (!posted_) post_recv(), posted_ = true;
    if (mode != 2) {
      wait_recv();
      return;
    }
    wait_recv();  // RTS
    ofi::Endpoint& e = fabric_.msg();
    rndv_ = true;
    for (;;) {
      const double t0 = now_us();
      const ssize_t rc = fi_read(e.ep, rdata_.data(), n, dreg_.desc, e.peers[peer], peer_addr_,
                                 peer_key_, &read_ctx_);
      if (rc == 0) {
        g_calls.add("provider_read_post", t0);
        break;
      }
      if (rc != -FI_EAGAIN) die(fi_text("fi_read", rc));
      drain();
    }
    wait(&read_ctx_);
    send_small(peer, 8);  // FIN
  }

  int rank_;
  std::size_t bytes_;
  Fabric fabric_;
  ofi::MrCache cache_;
  std::vector<char> sbuf_, rbuf_, rdata_, target_;
  ofi::Registration sreg_, rreg_, dreg_, treg_;
  uint64_t peer_addr_ = 0, peer_key_ = 0;
  std::size_t inject_size_ = 0;
  bool posted_ = false;
  bool rndv_ = false;  // the round trip under way is a rendezvous one
  fi_context2 recv_ctx_{}, send_ctx_{}, read_ctx_{};
  int done_[3] = {0, 0, 0};  // completed, not yet awaited: receive, send, read
};

// The network module as the protocol drives it.
struct Module {
  Ofi& ofi;
  int rank;
  std::vector<char> sbuf, rbuf;

  void send_header(const WireHeader& h, const void* payload) {
    const double end = now_us() + 30e6;
    for (;;) {
      const double t0 = now_us();
      if (ofi.send(1 - rank, h, payload)) {
        g_calls.add(h.kind == MsgKind::kEager ? "transport_send" : "transport_send_control", t0);
        break;
      }
      ofi.poll([&](const WireHeader& m, const char*) { arrived.push_back(m); });
      if (now_us() > end) die("module send stuck");
    }
  }
  // Arrivals not yet consumed (one poll may bring a FIN and the next RTS).
  std::deque<WireHeader> arrived;
  MsgKind wait_message(std::size_t n, WireHeader* got) {
    const double end = now_us() + 30e6;
    while (arrived.empty()) {
      const double t0 = now_us();
      if (ofi.poll([&](const WireHeader& h, const char* p) {
            if (h.kind == MsgKind::kEager)
              std::memcpy(rbuf.data(), p, std::min<std::size_t>(h.payload_bytes, n));
            arrived.push_back(h);
          }) > 0)
        g_calls.add("transport_poll_hit", t0);
      if (now_us() > end) die("module: no message in 30 s");
    }
    *got = arrived.front();
    arrived.pop_front();
    return got->kind;
  }
  void deliver(std::size_t n, char fill) {
    std::memset(sbuf.data(), fill, std::min<std::size_t>(n, 64));
    WireHeader h{};
    h.sender = rank;
    h.total_bytes = n;
    if (n <= ofi.max_payload()) {
      h.kind = MsgKind::kEager;
      h.payload_bytes = static_cast<uint32_t>(n);
      send_header(h, sbuf.data());
      return;
    }
    std::memset(sbuf.data(), fill, n);
    h.kind = MsgKind::kRts;
    const double t0 = now_us();
    if (ofi.expose(1 - rank, sbuf.data(), n, &h) != 0) die("expose: " + ofi.error());
    g_calls.add("transport_expose", t0);
    send_header(h, nullptr);
    WireHeader fin{};
    if (wait_message(n, &fin) != MsgKind::kFin) die("module: expected a FIN");
    ofi.unexpose(h);
  }
  void receive(std::size_t n) {
    WireHeader h{};
    if (wait_message(n, &h) == MsgKind::kEager) return;
    if (h.kind != MsgKind::kRts) die("module: expected an RTS");
    protocol::g_pulled = false;
    const double t0 = now_us();
    const PullStatus st = ofi.pull(1 - rank, h, rbuf.data(), n, nullptr);
    g_calls.add("transport_pull_post", t0);
    if (st == PullStatus::kFailed) die("pull: " + ofi.error());
    const double end = now_us() + 30e6;
    while (!protocol::g_pulled) {
      ofi.poll([&](const WireHeader& m, const char*) { arrived.push_back(m); });
      if (now_us() > end) die("module: pull never completed");
    }
    if (!protocol::g_pull_ok) die("pull failed: " + ofi.error());
    WireHeader fin{};
    fin.kind = MsgKind::kFin;
    fin.sender = rank;
    send_header(fin, nullptr);
  }
  void round_trip(std::size_t n, char fill) {
    if (rank == 0) deliver(n, fill), receive(n);
    else receive(n), deliver(n, fill);
  }
};

struct Stats {
  std::vector<double> per_repeat;
  void print(const char* name, std::size_t n) const {
    std::vector<double> v = per_repeat;
    std::sort(v.begin(), v.end());
    printf("layer %s %zu %.2f %.2f %.2f\n", name, n, v[v.size() / 2], v.front(), v.back());
  }
};

// Times `iters` round trips of `fn` (after 10 untimed ones): us one way.
template <class F>
double one_way(int iters, F&& fn) {
  for (int i = 0; i < 10; ++i) fn(i);
  const double t0 = now_us();
  for (int i = 0; i < iters; ++i) fn(i);
  return (now_us() - t0) / iters / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5, iters = 200;
  std::vector<std::size_t> sizes{8, 64 << 10};
  for (int opt; (opt = getopt(argc, argv, "r:i:s:")) != -1;) {
    if (opt == 'r') repeats = std::max(1, atoi(optarg));
    else if (opt == 'i') iters = std::max(1, atoi(optarg));
    else if (opt == 's') {
      sizes.clear();
      for (char* t = strtok(optarg, ","); t; t = strtok(nullptr, ","))
        sizes.push_back(parse_size(t));
    } else die("usage: net_layers [-r repeats] [-i round trips] [-s sizes]");
  }
  std::string error;
  if (!stmpi::util::load_all(&error)) die(error);
  stmpi::pmi::Client pmi;
  if (pmi.init() != 0 || pmi.size() != 2) die("run with 2 ranks under a PMI launcher");
  const int rank = pmi.rank();
  Exchange ex{pmi, rank};
  auto allgather = [&](const std::string& mine, std::vector<std::string>* all, std::string*) {
    all->assign(2, std::string());
    (*all)[rank] = mine;
    (*all)[1 - rank] = ex.swap(mine);
    return 0;
  };
  const std::size_t max_bytes =
      std::max<std::size_t>(*std::max_element(sizes.begin(), sizes.end()), 64);
  Ofi ofi;
  if (int err = ofi.init(rank, 2, allgather, false))
    die("module init: " + stmpi::util::error_string(err));
  Bare bare(ex, max_bytes);
  Module mod{ofi, rank, std::vector<char>(max_bytes), std::vector<char>(max_bytes), {}};
  if (rank == 0)
    printf(
        "# net_layers: provider %s, eager limit %zu, inject_size %zu, %d repeats x %d round "
        "trips\n",
        ofi.description().c_str(), ofi.max_payload(), bare.inject_size(), repeats, iters);

  for (std::size_t n : sizes) {
    Stats inject, send, rndv, transport;
    g_calls.us.clear();
    for (int rep = 0; rep < repeats; ++rep) {
      // Interleaved: each repeat runs every layer once.
      if (n <= bare.inject_size())
        inject.per_repeat.push_back(one_way(iters, [&](int i) { bare.round_trip(1, n, char(i)); }));
      send.per_repeat.push_back(one_way(iters, [&](int i) { bare.round_trip(0, n, char(i)); }));
      if (n > 64)
        rndv.per_repeat.push_back(one_way(iters, [&](int i) { bare.round_trip(2, n, char(i)); }));
      transport.per_repeat.push_back(one_way(iters, [&](int i) { mod.round_trip(n, char(i)); }));
      // The last round trip's payload arrived intact.
      const char want = static_cast<char>(iters - 1);
      if (bare.received(n > 64)[0] != want || mod.rbuf[0] != want ||
          mod.rbuf[std::min<std::size_t>(n, 64) - 1] != want)
        die("payload check failed at " + std::to_string(n) + " bytes");
    }
    if (rank == 0) {
      if (!inject.per_repeat.empty()) inject.print("provider_inject", n);
      send.print("provider_send", n);
      if (!rndv.per_repeat.empty()) rndv.print("provider_rndv", n);
      transport.print("transport", n);
      g_calls.print(n);
      fflush(stdout);
    }
  }
  ex.swap("done");
  if (rank == 0) printf("# net_layers: done\n");
  fflush(stdout);
  (void)pmi.finalize();
  return 0;
}
