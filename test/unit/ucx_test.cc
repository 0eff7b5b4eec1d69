// The UCX network module on two forked processes over UCX's TCP transport
// (loopback): the transports it asks UCX for, eager messages under flow
// control and in order, rendezvous pulls with the packed key that travels
// after the RTS, one-sided operations and 64-bit atomics against a target
// that never calls into UCX (its progress thread serves them), errors with
// UCX's text, and the progress thread staying off a worker its rank polls.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "device/ucx/settings.h"
#include "device/ucx/ucx_transport.h"
#include "ofi_pair.h"
#include "util/param.h"

namespace stmpi::dev::protocol {
// The protocol's callback, recorded here.
RequestDev* g_pulled = nullptr;
bool g_pull_ok = false;
void pull_done(RequestDev* req, bool ok) {
  g_pulled = req;
  g_pull_ok = ok;
}
}  // namespace stmpi::dev::protocol

namespace {

using namespace stmpi::dev;
using stmpi::dev::ucx::Ucx;
using stmpi::test::Pipes;
using stmpi::test::trade;

void load_settings() {
  setenv("STMPI_UCX_CREDITS", "8", 1);
  setenv("STMPI_UCX_TIMEOUT", "10", 1);
  setenv("STMPI_UCX_PROGRESS_THREAD_US", "200", 1);
  std::string error;
  if (!stmpi::util::load_all(&error)) std::abort();
}

int pipe_exchange(void* arg, const std::string& mine, std::vector<std::string>* all, std::string*) {
  auto* p = static_cast<std::pair<int, Pipes>*>(arg);
  const std::string theirs = trade(p->second, mine);
  all->assign(2, std::string());
  (*all)[p->first] = mine;
  (*all)[1 - p->first] = theirs;
  return 0;
}

template <class F>
bool poll_until(F&& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done())
    if (std::chrono::steady_clock::now() > deadline) return false;
  return true;
}

// Registers `words` 64-bit words at `mine` and trades address and packed
// key with the peer: *remote and *rkey reach the peer's. "" or what failed.
struct Shared {
  ucp_mem_h memh = nullptr;  // of `mine`
  uint64_t remote = 0;       // the peer's words
  ucp_rkey_h rkey = nullptr;
};
std::string share_words(int rank, Ucx& ucx, const Pipes& pipes, std::vector<uint64_t>& mine,
                        Shared* out) {
  std::string packed;
  CHECK(ucx.register_memory(mine.data(), mine.size() * 8, &out->memh, &packed) == 0, ucx.error());
  CHECK(!packed.empty(), "empty packed key");
  const uint64_t base = reinterpret_cast<uint64_t>(mine.data());
  const std::string theirs =
      trade(pipes, std::string(reinterpret_cast<const char*>(&base), 8) + packed);
  std::memcpy(&out->remote, theirs.data(), 8);
  CHECK(ucx.import_key(1 - rank, theirs.data() + 8, &out->rkey) == 0, ucx.error());
  return "";
}

constexpr int kFlood = 600;
constexpr std::size_t kBig = 1 << 20;

std::string run_rank(int rank, const Pipes& pipes) {
  const int peer = 1 - rank;
  Ucx ucx;
  std::string error;
  std::pair<int, Pipes> arg{rank, pipes};
  if (ucx.open(rank, 2, false, &pipe_exchange, &arg, &error) != 0) return "open: " + error;
  CHECK(ucx.worker().tls_choice() == "^posix,sysv,cma",
        "UCX_TLS unset, yet the module chose '" + ucx.worker().tls_choice() + "'");
  CHECK(ucx.progress_thread_running(), "no progress thread");

  // 1. A flood of eager messages while the receiver sleeps: more than the
  // credits allow, so the sender waits; all arrive complete and in order.
  if (rank == 0) {
    std::vector<char> payload(ucx.max_payload());
    for (int i = 0; i < kFlood; ++i) {
      WireHeader h{};
      h.kind = MsgKind::kEager;
      h.tag = i;
      h.sender = rank;
      h.payload_bytes = static_cast<uint32_t>(i % 7 == 0 ? ucx.max_payload() : (i * 13) % 300);
      for (uint32_t b = 0; b < h.payload_bytes; ++b) payload[b] = static_cast<char>(i + b);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!ucx.send(peer, h, payload.data())) {
        ucx.poll([](const WireHeader&, const char*) {});
        CHECK(std::chrono::steady_clock::now() < deadline,
              "send stuck at message " + std::to_string(i));
      }
    }
    CHECK(ucx.credit_waits() > 0, "the flood never waited for credits");
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    int next = 0;
    std::string bad;
    const bool ok = poll_until([&] {
      ucx.poll([&](const WireHeader& h, const char* p) {
        if (h.tag != next)
          bad = "message " + std::to_string(h.tag) + " arrived as " + std::to_string(next);
        for (uint32_t b = 0; b < h.payload_bytes && bad.empty(); ++b)
          if (p[b] != static_cast<char>(h.tag + b))
            bad = "payload of message " + std::to_string(h.tag);
        ++next;
      });
      return next == kFlood || !bad.empty();
    });
    CHECK(ok, "only " + std::to_string(next) + " of the flood arrived");
    CHECK(bad.empty(), bad);
    CHECK(ucx.credit_messages() > 0, "no credit-only message went back");
  }
  trade(pipes, "flood done");

  // 2. Rendezvous: rank 0 exposes 1 MiB; its packed key rides after the
  // RTS; rank 1 pulls it and answers FIN.
  std::vector<char> big(kBig);
  for (int round = 0; round < 2; ++round) {
    if (rank == 0) {
      for (std::size_t b = 0; b < kBig; ++b) big[b] = static_cast<char>(b * 7 + round);
      WireHeader rts{};
      rts.kind = MsgKind::kRts;
      rts.sender = rank;
      rts.total_bytes = kBig;
      CHECK(ucx.expose(peer, big.data(), kBig, &rts) == 0, "expose: " + ucx.error());
      CHECK(rts.address == reinterpret_cast<uint64_t>(big.data()), "RTS address");
      while (!ucx.send(peer, rts, nullptr)) ucx.poll([](const WireHeader&, const char*) {});
      bool fin = false;
      CHECK(poll_until([&] {
              ucx.poll([&](const WireHeader& h, const char*) { fin |= h.kind == MsgKind::kFin; });
              return fin;
            }),
            "no FIN");
      ucx.unexpose(rts);
    } else {
      WireHeader rts{};
      bool got = false;
      CHECK(poll_until([&] {
              ucx.poll([&](const WireHeader& h, const char*) {
                if (h.kind == MsgKind::kRts) rts = h, got = true;
              });
              return got;
            }),
            "no RTS");
      CHECK(rts.total_bytes == kBig, "RTS size");
      std::fill(big.begin(), big.end(), 0);
      RequestDev req;
      protocol::g_pulled = nullptr;
      const PullStatus st = ucx.pull(peer, rts, big.data(), kBig, &req);
      CHECK(st == PullStatus::kPending || st == PullStatus::kDone, "pull: " + ucx.error());
      if (st == PullStatus::kPending)
        CHECK(poll_until([&] {
                ucx.poll([](const WireHeader&, const char*) {});
                return protocol::g_pulled == &req;
              }),
              "pull never completed");
      if (st == PullStatus::kPending) CHECK(protocol::g_pull_ok, "pull failed");
      for (std::size_t b = 0; b < kBig; ++b)
        CHECK(big[b] == static_cast<char>(b * 7 + round), "pulled byte " + std::to_string(b));
      WireHeader fin{};
      fin.kind = MsgKind::kFin;
      while (!ucx.send(peer, fin, nullptr)) ucx.poll([](const WireHeader&, const char*) {});
    }
  }
  trade(pipes, "rendezvous done");

  // 3. One-sided: rank 1's window is written, read and updated atomically
  // by rank 0 while rank 1 only watches its own memory (no UCX call: its
  // progress thread must serve the key request, puts, gets and atomics).
  std::vector<uint64_t> window(512, 0);
  Shared shared;
  if (std::string failed = share_words(rank, ucx, pipes, window, &shared); !failed.empty())
    return failed;
  ucp_mem_h memh = shared.memh;
  ucp_rkey_h rkey = shared.rkey;
  const uint64_t remote[2] = {shared.remote, 0};
  if (rank == 0) {
    std::vector<uint64_t> data(100);
    for (int i = 0; i < 100; ++i) data[i] = 1000 + i;
    const stmpi::dev::rma::Run runs[2] = {{8 * 8, 400}, {8 * 8 + 400, 400}};
    CHECK(
        ucx.transfer(false, peer, reinterpret_cast<char*>(data.data()), runs, remote[0], rkey) == 0,
        ucx.error());
    const uint64_t trips = ucx.flush_round_trips();
    CHECK(ucx.flush(peer) == 0, ucx.error());
    CHECK(ucx.flush_round_trips() == trips + 1, "a flush after puts did not wait for the peer");
    for (int i = 0; i < 10; ++i) {
      uint64_t v = 3;
      CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_ADD, 8, &v, 0, true, remote[0], rkey) == 0, ucx.error());
      CHECK(v == static_cast<uint64_t>(3 * i), "fetch-add returned " + std::to_string(v));
    }
    uint64_t v = 77;
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_CSWAP, 8, &v, 0, true, remote[0] + 8, rkey) == 0,
          ucx.error());
    CHECK(v == 0, "compare-and-swap hit returned " + std::to_string(v));
    v = 99;
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_CSWAP, 8, &v, 5, true, remote[0] + 8, rkey) == 0,
          ucx.error());
    CHECK(v == 77, "compare-and-swap miss returned " + std::to_string(v));
    v = 0xabcdef;
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_SWAP, 8, &v, 0, true, remote[0] + 16, rkey) == 0,
          ucx.error());
    CHECK(v == 0, "swap returned " + std::to_string(v));
    std::vector<uint64_t> back(100, 0);
    CHECK(
        ucx.transfer(true, peer, reinterpret_cast<char*>(back.data()), runs, remote[0], rkey) == 0,
        ucx.error());
    CHECK(back == data, "get after put");
    // Gets and fetching atomics are complete when they return: flushing
    // after them waits for nothing.
    CHECK(ucx.flush(peer) == 0 && ucx.flush(-1) == 0, ucx.error());
    CHECK(ucx.flush_round_trips() == trips + 1,
          "flushes after gets and fetching atomics waited for the peer");
    // A 32-bit atomic add on two halves of a word.
    uint64_t four = 4;
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_ADD, 4, &four, 0, false, remote[0] + 200 * 8, rkey) == 0,
          ucx.error());
    CHECK(ucx.flush(-1) == 0, ucx.error());
    CHECK(ucx.flush_round_trips() == trips + 2, "a flush after a non-fetching atomic did not wait");
    // A key that is not one: an error with UCX's text, naming the rank.
    const std::string junk(64, '\x5a');
    ucp_rkey_h bad = nullptr;
    if (ucx.import_key(peer, junk.data(), &bad) == 0) ucx.release_key(bad);
    else CHECK(ucx.error().find("rank 1") != std::string::npos, ucx.error());
    // A put, a fence and a non-fetching add, with no flush: the add (the
    // PSCW completion signal) lands after the put.
    std::vector<uint64_t> late(8, 0xfeed);
    const stmpi::dev::rma::Run late_run[1] = {{480 * 8, 64}};
    CHECK(ucx.transfer(false, peer, reinterpret_cast<char*>(late.data()), late_run, remote[0],
                       rkey) == 0,
          ucx.error());
    uint64_t add = 1;
    CHECK(ucx.fence() == 0, ucx.error());
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_ADD, 8, &add, 0, false, remote[0] + 301 * 8, rkey) == 0,
          ucx.error());
    uint64_t one = 1;  // done flag
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_SWAP, 8, &one, 0, true, remote[0] + 300 * 8, rkey) == 0,
          ucx.error());
  } else {
    volatile uint64_t* w = window.data();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::atomic_ref<uint64_t>(window[301]).load() != 1) {
      CHECK(std::chrono::steady_clock::now() < deadline, "the ordered add never arrived");
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    for (int i = 480; i < 488; ++i) CHECK(w[i] == 0xfeed, "the put ordered before the add");
    while (w[300] != 1) {
      CHECK(std::chrono::steady_clock::now() < deadline, "passive target: rank 0 never finished");
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    CHECK(w[0] == 30 && w[1] == 77 && w[2] == 0xabcdef, "window words after atomics");
    uint32_t halves[2];
    std::memcpy(halves, const_cast<uint64_t*>(&w[200]), 8);
    CHECK(halves[0] == 4 && halves[1] == 0, "32-bit atomic add");
    for (int i = 0; i < 100; ++i) CHECK(w[8 + i] == static_cast<uint64_t>(1000 + i), "put data");
    CHECK(ucx.thread_polls() > 0, "the progress thread never drove the worker");
    CHECK(ucx.thread_blocks() > 0, "the progress thread never slept on the event descriptor");
    CHECK(ucx.thread_wakeups() > 0, "the network never woke the progress thread");
  }
  trade(pipes, "rma done");

  // 3b. Remote compare-and-swap loops (rank 0, through UCX) and local CPU
  // ones (rank 1, on its own memory, served meanwhile by its progress
  // thread) increment one word at once: no increment may be lost.
  constexpr int kIncrements = 2000;
  if (rank == 0) {
    for (int i = 0; i < kIncrements; ++i) {
      uint64_t seen = 0;
      CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_ADD, 8, &seen, 0, true, remote[0] + 400 * 8, rkey) == 0,
            ucx.error());
      for (;;) {
        uint64_t swapped = seen + 1;
        CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_CSWAP, 8, &swapped, seen, true, remote[0] + 400 * 8,
                         rkey) == 0,
              ucx.error());
        if (swapped == seen) break;
        seen = swapped;
      }
    }
  } else {
    std::atomic_ref<uint64_t> word(window[400]);
    for (int i = 0; i < kIncrements; ++i) {
      uint64_t seen = word.load();
      while (!word.compare_exchange_weak(seen, seen + 1)) {
      }
    }
  }
  trade(pipes, "increments done");
  if (rank == 1)
    CHECK(std::atomic_ref<uint64_t>(window[400]).load() == 2 * kIncrements,
          "concurrent compare-and-swap increments: " +
              std::to_string(std::atomic_ref<uint64_t>(window[400]).load()) + " of " +
              std::to_string(2 * kIncrements));

  // 4. While the rank polls, the progress thread stays off the worker.
  const uint64_t before = ucx.thread_polls();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) ucx.poll([](const WireHeader&, const char*) {});
  CHECK(ucx.thread_polls() <= before + 1, "the progress thread drove a polled worker " +
                                              std::to_string(ucx.thread_polls() - before) +
                                              " times");
  trade(pipes, "bye");
  ucx.release_key(rkey);
  ucx.deregister_memory(memh);
  ucx.finalize();
  return "";
}

// serve() (a host stream waiting for a word another node writes) drives
// the worker itself: with no progress thread, rank 1 only serves while rank
// 0 adds 5 to its memory and flushes, which needs rank 1's progress, then
// adds 1: rank 1 serves until it sees 6, so it never stops before rank 0's
// flush has returned.
std::string serve_rank(int rank, const Pipes& pipes) {
  const int peer = 1 - rank;
  Ucx ucx;
  std::string error;
  std::pair<int, Pipes> arg{rank, pipes};
  if (ucx.open(rank, 2, false, &pipe_exchange, &arg, &error) != 0) return "open: " + error;
  CHECK(!ucx.progress_thread_running(), "a progress thread with STMPI_UCX_PROGRESS_THREAD=no");
  std::vector<uint64_t> word(8, 0);
  Shared words;
  if (std::string failed = share_words(rank, ucx, pipes, word, &words); !failed.empty())
    return failed;
  if (rank == 0) {
    uint64_t add = 5;
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_ADD, 8, &add, 0, false, words.remote + 8, words.rkey) == 0,
          ucx.error());
    CHECK(ucx.flush(peer) == 0, ucx.error());
    uint64_t one = 1;
    CHECK(ucx.atomic(peer, UCP_ATOMIC_OP_ADD, 8, &one, 0, false, words.remote + 8, words.rkey) == 0,
          ucx.error());
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::atomic_ref<uint64_t>(word[1]).load() != 6) {
      CHECK(std::chrono::steady_clock::now() < deadline, "an add never landed on a serving rank");
      ucx.serve();
    }
  }
  trade(pipes, "bye");
  ucx.release_key(words.rkey);
  ucx.deregister_memory(words.memh);
  ucx.finalize();
  return "";
}

TEST(Ucx, ServeDrivesTheWorker) {
  setenv("STMPI_UCX_PROGRESS_THREAD", "no", 1);
  load_settings();
  unsetenv("STMPI_UCX_PROGRESS_THREAD");
  unsetenv("UCX_TLS");
  EXPECT_EQ(stmpi::test::run_pair(serve_rank), "");
  load_settings();
}

TEST(Ucx, TcpPair) {
  load_settings();
  unsetenv("UCX_TLS");
  EXPECT_EQ(stmpi::test::run_pair(run_rank), "");
}

// A user's UCX_TLS is kept as it is.
TEST(Ucx, UserTransportsAreKept) {
  load_settings();
  setenv("UCX_TLS", "tcp", 1);
  Ucx ucx;
  std::string error;
  auto one = [](void*, const std::string& mine, std::vector<std::string>* all, std::string*) {
    all->assign(1, mine);
    return 0;
  };
  ASSERT_EQ(ucx.open(0, 1, false, one, nullptr, &error), 0) << error;
  EXPECT_EQ(ucx.worker().tls_choice(), "tcp");
  ucx.finalize();
  unsetenv("UCX_TLS");
}

// UCX's errors carry its text.
TEST(Ucx, UnknownTransportIsAnErrorWithUcxText) {
  load_settings();
  setenv("UCX_TLS", "no_such_transport", 1);
  Ucx ucx;
  std::string error;
  auto one = [](void*, const std::string& mine, std::vector<std::string>* all, std::string*) {
    all->assign(1, mine);
    return 0;
  };
  EXPECT_NE(ucx.open(0, 1, false, one, nullptr, &error), 0);
  EXPECT_NE(error.find("ucp_"), std::string::npos) << error;
  unsetenv("UCX_TLS");
}

}  // namespace
