// st_chain: one triggered chain of the stream-triggered path between nodes,
// N x 4 KiB writes + one 64-bit signal, per trigger path of the libfabric
// module, against the provider's plain writes + flush, in the same run,
// interleaved. Two ranks (one per node) under Hydra; rank 0 is the origin,
// rank 1 a passive target that polls its signal word and answers each
// signal with a plain 8-byte write (+ flush) to rank 0's ack word.
//
//   plain     N fi_write + flush, then the signal (fi_write 8 B + flush): the
//             work the software trigger engine issues when its counter fires
//   native    N triggered fi_writemsg on counter T (FI_TRIGGER), the signal a
//             triggered atomic on the writes' completion counter C
//   deferred  the same as fi_control(FI_QUEUE_WORK) deferred work
//
// Per chain: post = CPU time to post the N + 1 operations (per operation);
// rtt = from the trigger (fi_cntr_add on T; for plain, the first write)
// until the target's ack arrived. The ack path is the same in every row, so
// rtt differences are trigger-to-signal differences.
//
// Output (rank 0), medians over repeats of the per-repeat medians:
//   chain PROVIDER PATH N post_us_per_op rtt_us rtt_vs_plain
// Paths the provider lacks print "n/a" with the reason.
// Usage: st_chain [-r repeats] [-i chains per repeat]
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "device/ofi/ofi.h"
#include "device/ofi/ofi_rma.h"
#include "device/ofi/ofi_triggered.h"
#include "device/ofi/settings.h"
#include "pmi/client.h"
#include "util/error.h"
#include "util/param.h"

namespace stmpi::dev::protocol {
void pull_done(RequestDev*, bool) {}  // no rendezvous here
}  // namespace stmpi::dev::protocol

namespace {

using namespace stmpi::dev;
using ofi::Ofi;
using ofi::TriggeredNic;
using rma::st::TriggerMode;
using CounterId = rma::st::TriggeredOps::CounterId;

constexpr std::size_t kBlock = 4096;
constexpr int kMaxN = 16;
constexpr int kNs[] = {1, 4, 16};
// Target window: kMaxN blocks, then the signal word. Origin: the ack word.
constexpr std::size_t kSignalOffset = kMaxN * kBlock;
constexpr std::size_t kWindowBytes = kSignalOffset + 64;

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

[[noreturn]] void die(const std::string& what) {
  fprintf(stderr, "st_chain: %s\n", what.c_str());
  exit(1);
}

// An MPI error code from the module: 0, or die with its text.
void check(int err) {
  if (err != 0) die(stmpi::util::error_string(err));
}

struct Peer {
  uint64_t addr = 0;  // what the provider wants (virtual address or 0)
  uint64_t key = 0;
};

// What rank 0 needs for one chain kind.
struct Origin {
  ofi::OfiRma& rma;
  Peer target;  // rank 1's window
  volatile uint64_t* ack;
  std::vector<char>& src;
  uint64_t seq = 0;  // chains done (the signal and ack value)
};

rma::Region region_of(const Peer& p) {
  rma::Region r;
  r.kind = rma::RegionKind::kNet;
  r.target = 1;
  r.remote = p.addr;
  r.key = p.key;
  r.bytes = kWindowBytes;
  return r;
}

void wait_ack(Origin& o) {
  const double end = now_us() + 20e6;
  // Yield while waiting: the provider's progress thread needs the core.
  while (*o.ack < o.seq) {
    if (now_us() > end) die("no ack for chain " + std::to_string(o.seq));
    sched_yield();
  }
}

// One plain chain: rtt in *rtt, post cost per op in *post.
void plain_chain(Origin& o, int n, double* post, double* rtt) {
  ++o.seq;
  std::memcpy(o.src.data(), &o.seq, sizeof o.seq);
  const double t0 = now_us();
  for (int i = 0; i < n; ++i)
    check(
        o.rma.put(1, o.src.data() + i * kBlock, kBlock, o.target.addr + i * kBlock, o.target.key));
  const double t1 = now_us();
  check(o.rma.flush());
  check(o.rma.put(1, &o.seq, 8, o.target.addr + kSignalOffset, o.target.key));
  check(o.rma.flush());
  wait_ack(o);
  *rtt = now_us() - t0;
  *post = (t1 - t0) / n;
}

void triggered_chain(Origin& o, TriggeredNic& nic, int n, double* post, double* rtt) {
  ++o.seq;
  std::memcpy(o.src.data(), &o.seq, sizeof o.seq);
  CounterId t = 0, c = 0;
  bool ok = false;
  if (nic.acquire_counter(&t, &ok) != MPI_SUCCESS || !ok ||
      nic.acquire_counter(&c, &ok) != MPI_SUCCESS || !ok)
    die("no counters");
  const rma::Region region = region_of(o.target);
  const double t0 = now_us();
  for (int i = 0; i < n; ++i) {
    const rma::Run run{i * kBlock, kBlock};
    const rma::st::OriginPiece piece{o.src.data() + i * kBlock, kBlock};
    if (int err = nic.post_write(region, {&run, 1}, {&piece, 1}, t, 1, c))
      die(stmpi::util::error_string(err));
  }
  if (int err = nic.post_signal(region, kSignalOffset, o.seq, c, n, c))
    die(stmpi::util::error_string(err));
  const double t1 = now_us();
  if (int err = nic.add_counter(t, 1)) die(stmpi::util::error_string(err));
  wait_ack(o);
  *rtt = now_us() - t1;
  *post = (t1 - t0) / (n + 1);
  const double end = now_us() + 20e6;
  while (nic.read_counter(c) < static_cast<uint64_t>(n + 1)) {
    if (now_us() > end) die("chain completions missing");
    sched_yield();
  }
  if (int err = nic.first_error(c)) die(stmpi::util::error_string(err));
  nic.release_counter(t);
  nic.release_counter(c);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5, chains = 40;
  for (int opt; (opt = getopt(argc, argv, "r:i:")) != -1;) {
    if (opt == 'r') repeats = atoi(optarg);
    else if (opt == 'i') chains = atoi(optarg);
    else die("usage: st_chain [-r repeats] [-i chains per repeat]");
  }
  std::string error;
  if (!stmpi::util::load_all(&error)) die(error);
  stmpi::pmi::Client pmi;
  if (pmi.init() != 0 || pmi.size() != 2) die("run with 2 ranks under a PMI launcher");
  const int rank = pmi.rank();
  auto allgather = [&](const std::string& mine, std::vector<std::string>* all, std::string* e) {
    if (pmi.put("ofi-" + std::to_string(rank), mine) != 0 || pmi.barrier() != 0)
      return *e = pmi.error(), -1;
    all->assign(2, std::string());
    (*all)[rank] = mine;
    if (pmi.get("ofi-" + std::to_string(1 - rank), &(*all)[1 - rank]) != 0)
      return *e = pmi.error(), -1;
    return 0;
  };
  Ofi ofi;
  check(ofi.init(rank, 2, allgather, false));
  ofi::OfiRma rma(ofi);
  // Rank 1's window, rank 0's ack word: registered, exchanged through PMI.
  std::vector<uint64_t> memory(kWindowBytes / 8, 0);
  ofi::Registration reg;
  check(rma.register_window(memory.data(), kWindowBytes, &reg));
  const Peer mine{ofi.virt_addr() ? reg.remote_address(memory.data()) : 0, reg.key};
  char hex[64];
  snprintf(hex, sizeof hex, "%llx:%llx", static_cast<unsigned long long>(mine.addr),
           static_cast<unsigned long long>(mine.key));
  std::string theirs;
  if (pmi.put("win-" + std::to_string(rank), hex) != 0 || pmi.barrier() != 0 ||
      pmi.get("win-" + std::to_string(1 - rank), &theirs) != 0)
    die(pmi.error());
  Peer peer;
  unsigned long long a = 0, k = 0;
  if (sscanf(theirs.c_str(), "%llx:%llx", &a, &k) != 2) die("bad window exchange");
  peer.addr = a, peer.key = k;
  const std::string provider = ofi.fabric().info()->fabric_attr->prov_name;

  if (rank == 1) {
    // Passive target: answer each signal value with an ack of the same value.
    volatile uint64_t* signal = &memory[kSignalOffset / 8];
    uint64_t seen = 0;
    for (;;) {
      while (*signal == seen) sched_yield();
      seen = *signal;
      if (seen == ~uint64_t{0}) break;  // done
      if (memory[0] != seen) die("data did not precede signal " + std::to_string(seen));
      check(rma.put(0, const_cast<uint64_t*>(&seen), 8, peer.addr, peer.key));
      check(rma.flush());
    }
  } else {
    std::vector<char> src(kMaxN * kBlock, 1);
    Origin o{rma, peer, &memory[0], src};
    std::unique_ptr<TriggeredNic> nics[2];
    std::string why[2];
    const TriggerMode modes[2] = {TriggerMode::kNative, TriggerMode::kDeferred};
    for (int p = 0; p < 2; ++p)
      if (int err = TriggeredNic::open(ofi, modes[p], ofi::budget_from_settings(), &nics[p]))
        why[p] = stmpi::util::error_string(err);
    // [n][path 0 plain, 1 native, 2 deferred] -> per-repeat medians
    std::vector<double> post[3][3], rtt[3][3];
    for (int rep = 0; rep < repeats; ++rep)
      for (int ni = 0; ni < 3; ++ni)
        for (int path = 0; path < 3; ++path) {
          if (path > 0 && !nics[path - 1]) continue;
          std::vector<double> ps, rs;
          for (int i = 0; i < chains; ++i) {
            double pc = 0, rt = 0;
            if (path == 0) plain_chain(o, kNs[ni], &pc, &rt);
            else triggered_chain(o, *nics[path - 1], kNs[ni], &pc, &rt);
            ps.push_back(pc), rs.push_back(rt);
          }
          post[ni][path].push_back(median(ps));
          rtt[ni][path].push_back(median(rs));
        }
    const char* names[3] = {"plain", "native", "deferred"};
    for (int ni = 0; ni < 3; ++ni)
      for (int path = 0; path < 3; ++path) {
        if (path > 0 && !nics[path - 1]) {
          printf("chain %s %s %d n/a (%s)\n", provider.c_str(), names[path], kNs[ni],
                 why[path - 1].c_str());
          continue;
        }
        const double r = median(rtt[ni][path]);
        printf("chain %s %s %d %.2f %.1f %.2f\n", provider.c_str(), names[path], kNs[ni],
               median(post[ni][path]), r, r / median(rtt[ni][0]));
      }
    fflush(stdout);
    o.seq = ~uint64_t{0};
    check(rma.put(1, &o.seq, 8, peer.addr + kSignalOffset, peer.key));
    check(rma.flush());
    for (auto& nic : nics) nic.reset();
  }
  if (pmi.barrier() != 0) die(pmi.error());
  rma.deregister_window(&reg);
  rma.finalize();
  ofi.finalize();
  (void)pmi.finalize();
  return 0;
}
