// ucx_layers: what one message between two nodes costs below the MPI
// library on UCX, layer by layer, for the per-layer table of the UCX module
// (src/device/ucx/README.md); the twin of net_layers.cc (libfabric). Two
// ranks (one per node) under Hydra; every figure is a one-way time (half a
// round trip), rank 0 prints them in net_layers' format, so
// net_layers_run.sh --ucx tabulates them the same way.
//
//   provider send    SIZE   bare ucp_am_send_nbx (eager) answered by the
//                           same, the receiver's handler copying the data
//   provider rndv    SIZE   the rendezvous skeleton on bare UCP: an 8 B
//                           active message (the RTS, with the packed key),
//                           ucp_get_nbx of SIZE by the receiver, 8 B back
//                           (the FIN)
//   transport        SIZE   the network module (Ucx, device/ucx): send() of
//                           a WireHeader + SIZE bytes and poll() at the other
//                           side, or above the eager limit expose + RTS,
//                           pull (ucp_get_nbx) + FIN, as the protocol drives it
// The bare rows use a UCP context and worker of their own, with the module's
// transport choice (UCX_TLS without shared memory unless the user set it).
//
// Output (rank 0): `layer NAME SIZE MEDIAN_US MIN_US MAX_US` over repeats of
// the per-repeat means. Every payload is checked once per repeat.
// Usage: ucx_layers [-r repeats] [-i round trips per repeat] [-s sizes, e.g. 8,64K]
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "device/ucx/settings.h"
#include "device/ucx/ucx_transport.h"
#include "device/ucx/worker.h"
#include "pmi/client.h"
#include "util/param.h"

namespace stmpi::dev::protocol {
volatile bool g_pulled = false;
volatile bool g_pull_ok = false;
void pull_done(RequestDev*, bool ok) {
  g_pull_ok = ok;
  g_pulled = true;
}
}  // namespace stmpi::dev::protocol

namespace {

using namespace stmpi::dev;

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void die(const std::string& what) {
  fprintf(stderr, "ucx_layers: %s\n", what.c_str());
  exit(1);
}

std::size_t parse_size(const char* s) {
  char* end = nullptr;
  std::size_t v = std::strtoull(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  return v;
}

// The PMI allgather of one string per rank (two ranks), hex-coded.
struct Exchange {
  stmpi::pmi::Client& pmi;
  int rank;
  int round = 0;
  std::string swap(const std::string& mine) {
    static const char kHex[] = "0123456789abcdef";
    std::string text;
    for (unsigned char c : mine) text += {kHex[c >> 4], kHex[c & 15]};
    const std::string key = "ul" + std::to_string(round++) + "-";
    std::string theirs;
    if (pmi.put(key + std::to_string(rank), text) != 0 || pmi.barrier() != 0 ||
        pmi.get(key + std::to_string(1 - rank), &theirs) != 0)
      die(pmi.error());
    std::string bytes;
    for (std::size_t i = 0; i + 1 < theirs.size(); i += 2)
      bytes += static_cast<char>(std::stoi(theirs.substr(i, 2), nullptr, 16));
    return bytes;
  }
};

// Bare UCP on a worker of its own.
class Bare {
 public:
  Bare(Exchange& ex, std::size_t max_bytes) : rank_(ex.rank), sbuf_(max_bytes), rbuf_(max_bytes) {
    ucx::WorkerOptions options;
    options.exclude_shm = ucx::settings().shm_transports == "exclude";
    options.progress_thread = false;
    std::string error;
    if (worker_.open(rank_, 2, options, &error) != 0) die("bare UCP: " + error);
    worker_.set_peer_address(1 - rank_, ex.swap(worker_.address()));
    ucp_am_handler_param_t am{};
    am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG;
    am.id = 0;
    am.cb = &Bare::on_am;
    am.arg = this;
    if (ucp_worker_set_am_recv_handler(worker_.worker(), &am) != UCS_OK) die("am handler");
    ep_ = worker_.endpoint(1 - rank_, &error);
    if (ep_ == nullptr) die(error);
    // The rendezvous rows read the peer's registered send buffer.
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = sbuf_.data();
    mp.length = sbuf_.size();
    if (ucp_mem_map(worker_.context(), &mp, &memh_) != UCS_OK) die("ucp_mem_map");
    void* packed = nullptr;
    std::size_t packed_bytes = 0;
    if (ucp_rkey_pack(worker_.context(), memh_, &packed, &packed_bytes) != UCS_OK)
      die("ucp_rkey_pack");
    const uint64_t base = reinterpret_cast<uint64_t>(sbuf_.data());
    const std::string theirs = ex.swap(std::string(reinterpret_cast<const char*>(&base), 8) +
                                       std::string(static_cast<char*>(packed), packed_bytes));
    ucp_rkey_buffer_release(packed);
    std::memcpy(&peer_base_, theirs.data(), 8);
    if (ucp_ep_rkey_unpack(ep_, theirs.data() + 8, &rkey_) != UCS_OK) die("ucp_ep_rkey_unpack");
  }
  ~Bare() {
    ucp_rkey_destroy(rkey_);
    ucp_mem_unmap(worker_.context(), memh_);
    worker_.close(5);
  }

  // mode 0: eager SIZE both ways; 1: rendezvous skeleton.
  void round_trip(int mode, std::size_t n, char fill) {
    mode_ = mode;
    if (rank_ == 0) deliver(mode, n, fill), receive(mode, n);
    else receive(mode, n), deliver(mode, n, fill);
  }
  const std::vector<char>& received() const { return rbuf_; }

 private:
  static ucs_status_t on_am(void* arg, const void*, std::size_t, void* data, std::size_t length,
                            const ucp_am_recv_param_t*) {
    auto* self = static_cast<Bare*>(arg);
    // Eager rows: the payload; rendezvous rows: the RTS and FIN only signal.
    if (self->mode_ == 0)
      std::memcpy(self->rbuf_.data(), data, std::min(length, self->rbuf_.size()));
    ++self->arrivals_;
    return UCS_OK;
  }
  void wait(void* request) {
    if (request == nullptr) return;
    if (UCS_PTR_IS_ERR(request)) die(ucs_status_string(UCS_PTR_STATUS(request)));
    while (ucp_request_check_status(request) == UCS_INPROGRESS)
      ucp_worker_progress(worker_.worker());
    ucp_request_free(request);
  }
  void send(const void* data, std::size_t n) {
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_AM_SEND_FLAG_EAGER;
    wait(ucp_am_send_nbx(ep_, 0, nullptr, 0, data, n, &param));
  }
  void await_arrival() {
    const double end = now_us() + 30e6;
    while (arrivals_ == 0) {
      ucp_worker_progress(worker_.worker());
      if (now_us() > end) die("bare: no message in 30 s");
    }
    --arrivals_;
  }
  void deliver(int mode, std::size_t n, char fill) {
    if (mode == 0) {
      std::memset(sbuf_.data(), fill, std::min<std::size_t>(n, 64));
      send(sbuf_.data(), n);
      return;
    }
    std::memset(sbuf_.data(), fill, n);
    send(&n, 8);      // the RTS
    await_arrival();  // the FIN
  }
  void receive(int mode, std::size_t n) {
    await_arrival();
    if (mode == 0) return;
    ucp_request_param_t param{};
    wait(ucp_get_nbx(ep_, rbuf_.data(), n, peer_base_, rkey_, &param));
    const uint64_t fin = 0;
    send(&fin, 8);
  }

  int rank_;
  ucx::Worker worker_;
  ucp_ep_h ep_ = nullptr;
  std::vector<char> sbuf_, rbuf_;
  ucp_mem_h memh_ = nullptr;
  ucp_rkey_h rkey_ = nullptr;
  uint64_t peer_base_ = 0;
  int arrivals_ = 0;  // counted by on_am, inside ucp_worker_progress
  int mode_ = 0;
};

// The network module as the protocol drives it.
struct Module {
  ucx::Ucx& ucx;
  int rank;
  std::vector<char> sbuf, rbuf;
  std::deque<WireHeader> arrived;

  void send_header(const WireHeader& h, const void* payload) {
    const double end = now_us() + 30e6;
    while (!ucx.send(1 - rank, h, payload)) {
      ucx.poll([&](const WireHeader& m, const char*) { arrived.push_back(m); });
      if (now_us() > end) die("module send stuck");
    }
  }
  MsgKind wait_message(std::size_t n, WireHeader* got) {
    const double end = now_us() + 30e6;
    while (arrived.empty()) {
      ucx.poll([&](const WireHeader& h, const char* p) {
        if (h.kind == MsgKind::kEager)
          std::memcpy(rbuf.data(), p, std::min<std::size_t>(h.payload_bytes, n));
        arrived.push_back(h);
      });
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
    if (n <= ucx.max_payload()) {
      h.kind = MsgKind::kEager;
      h.payload_bytes = static_cast<uint32_t>(n);
      send_header(h, sbuf.data());
      return;
    }
    std::memset(sbuf.data(), fill, n);
    h.kind = MsgKind::kRts;
    if (ucx.expose(1 - rank, sbuf.data(), n, &h) != 0) die("expose: " + ucx.error());
    send_header(h, nullptr);
    WireHeader fin{};
    if (wait_message(n, &fin) != MsgKind::kFin) die("module: expected a FIN");
    ucx.unexpose(h);
  }
  void receive(std::size_t n) {
    WireHeader h{};
    if (wait_message(n, &h) == MsgKind::kEager) return;
    if (h.kind != MsgKind::kRts) die("module: expected an RTS");
    protocol::g_pulled = false;
    const PullStatus st = ucx.pull(1 - rank, h, rbuf.data(), n, nullptr);
    if (st == PullStatus::kFailed || st == PullStatus::kUnsupported) die("pull: " + ucx.error());
    const double end = now_us() + 30e6;
    while (st == PullStatus::kPending && !protocol::g_pulled) {
      ucx.poll([&](const WireHeader& m, const char*) { arrived.push_back(m); });
      if (now_us() > end) die("module: pull never completed");
    }
    if (st == PullStatus::kPending && !protocol::g_pull_ok) die("pull failed");
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

template <class F>
double one_way(int iters, F&& fn) {
  for (int i = 0; i < 10; ++i) fn(i);
  const double t0 = now_us();
  for (int i = 0; i < iters; ++i) fn(i);
  return (now_us() - t0) / iters / 2;
}

Exchange* g_exchange = nullptr;
int module_exchange(void*, const std::string& mine, std::vector<std::string>* all, std::string*) {
  all->assign(2, std::string());
  (*all)[g_exchange->rank] = mine;
  (*all)[1 - g_exchange->rank] = g_exchange->swap(mine);
  return 0;
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
    } else die("usage: ucx_layers [-r repeats] [-i round trips] [-s sizes]");
  }
  std::string error;
  if (!stmpi::util::load_all(&error)) die(error);
  stmpi::pmi::Client pmi;
  if (pmi.init() != 0 || pmi.size() != 2) die("run with 2 ranks under a PMI launcher");
  const int rank = pmi.rank();
  Exchange ex{pmi, rank};
  g_exchange = &ex;
  const std::size_t max_bytes =
      std::max<std::size_t>(*std::max_element(sizes.begin(), sizes.end()), 64);
  ucx::Ucx module;
  if (module.open(rank, 2, false, &module_exchange, nullptr, &error) != 0)
    die("module open: " + error);
  Bare bare(ex, max_bytes);
  Module mod{module, rank, std::vector<char>(max_bytes), std::vector<char>(max_bytes), {}};
  if (rank == 0)
    printf("# ucx_layers: %s, eager limit %zu, %d repeats x %d round trips\n",
           module.description().c_str(), module.max_payload(), repeats, iters);
  for (std::size_t n : sizes) {
    Stats send, rndv, transport;
    for (int rep = 0; rep < repeats; ++rep) {
      send.per_repeat.push_back(one_way(iters, [&](int i) { bare.round_trip(0, n, char(i)); }));
      if (n > 64)
        rndv.per_repeat.push_back(one_way(iters, [&](int i) { bare.round_trip(1, n, char(i)); }));
      transport.per_repeat.push_back(one_way(iters, [&](int i) { mod.round_trip(n, char(i)); }));
      const char want = static_cast<char>(iters - 1);
      if (bare.received()[0] != want || mod.rbuf[0] != want ||
          mod.rbuf[std::min<std::size_t>(n, 64) - 1] != want)
        die("payload check failed at " + std::to_string(n) + " bytes");
    }
    if (rank == 0) {
      send.print("provider_send", n);
      if (!rndv.per_repeat.empty()) rndv.print("provider_rndv", n);
      transport.print("transport", n);
      fflush(stdout);
    }
  }
  ex.swap("done");
  module.finalize();
  if (rank == 0) printf("# ucx_layers: done\n");
  fflush(stdout);
  (void)pmi.finalize();
  return 0;
}
