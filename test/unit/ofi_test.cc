// The libfabric network module on two processes over 127.0.0.1, for each
// provider we support: provider selection errors, eager messages under flow
// control, rendezvous pull with the registration cache, one-sided
// operations and remote atomics against a target that never calls into
// libfabric (passive progress), and a failed read carrying the provider's text.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "device/ofi/ofi.h"
#include "device/ofi/ofi_rma.h"
#include "device/ofi/settings.h"
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
using stmpi::dev::ofi::Ofi;

using stmpi::test::Pipes;
using stmpi::test::trade;

// data_progress: STMPI_OFI_DATA_PROGRESS, or nullptr for the default.
void load_settings(const std::string& provider, const char* data_progress = nullptr) {
  setenv("STMPI_OFI_PROVIDER", provider.c_str(), 1);
  if (data_progress != nullptr) setenv("STMPI_OFI_DATA_PROGRESS", data_progress, 1);
  else unsetenv("STMPI_OFI_DATA_PROGRESS");
  setenv("STMPI_OFI_IFACE", "127.0.0.1", 1);
  setenv("STMPI_OFI_CREDITS", "8", 1);
  setenv("STMPI_OFI_TIMEOUT", "3", 1);  // the bad-key read below on providers that never answer
  std::string error;
  if (!stmpi::util::load_all(&error)) std::abort();
}

constexpr int kFlood = 600;
constexpr std::size_t kBig = 1 << 20;

// Calls done() (which polls) until it says yes; false after 30 s.
template <class F>
bool poll_until(Ofi&, F&& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

std::string run_rank(int rank, const Pipes& pipes) {
  const int peer = 1 - rank;
  Ofi ofi;
  std::string error;
  const auto allgather = stmpi::test::pair_allgather(rank, pipes);
  CHECK_OK(ofi.init(rank, 2, allgather, false));

  // 1. A flood of eager messages: more than the credits allow at once, while
  // the receiver sleeps. They arrive complete and in order.
  if (rank == 0) {
    std::vector<char> payload(ofi.max_payload());
    for (int i = 0; i < kFlood; ++i) {
      WireHeader h{};
      h.kind = MsgKind::kEager;
      h.tag = i;
      h.sender = rank;
      h.payload_bytes = static_cast<uint32_t>(i % 7 == 0 ? ofi.max_payload() : (i * 13) % 300);
      for (uint32_t b = 0; b < h.payload_bytes; ++b) payload[b] = static_cast<char>(i + b);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!ofi.send(peer, h, payload.data())) {
        ofi.poll([](const WireHeader&, const char*) {});
        CHECK(std::chrono::steady_clock::now() < deadline,
              "send stuck at message " + std::to_string(i));
      }
    }
    CHECK(ofi.credit_waits() > 0, "the flood never waited for credits");
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    int next = 0;
    std::string bad;
    const bool ok = poll_until(ofi, [&] {
      ofi.poll([&](const WireHeader& h, const char* p) {
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
  }

  trade(pipes, "flood done");

  // 2. Rendezvous: rank 0 exposes 1 MiB twice (one registration, then a
  // cache hit), rank 1 pulls it and answers FIN.
  std::vector<char> big(kBig);
  for (int round = 0; round < 2; ++round) {
    if (rank == 0) {
      for (std::size_t b = 0; b < kBig; ++b) big[b] = static_cast<char>(b * 7 + round);
      WireHeader rts{};
      rts.kind = MsgKind::kRts;
      rts.sender = rank;
      rts.total_bytes = kBig;
      CHECK_OK(ofi.expose(peer, big.data(), kBig, &rts));
      while (!ofi.send(peer, rts, nullptr)) ofi.poll([](const WireHeader&, const char*) {});
      bool fin = false;
      CHECK(poll_until(ofi,
                       [&] {
                         ofi.poll([&](const WireHeader& h, const char*) {
                           fin |= h.kind == MsgKind::kFin;
                         });
                         return fin;
                       }),
            "no FIN");
      ofi.unexpose(rts);
    } else {
      WireHeader rts{};
      bool got = false;
      CHECK(poll_until(ofi,
                       [&] {
                         ofi.poll([&](const WireHeader& h, const char*) {
                           if (h.kind == MsgKind::kRts) rts = h, got = true;
                         });
                         return got;
                       }),
            "no RTS");
      RequestDev req;
      protocol::g_pulled = nullptr;
      CHECK(ofi.pull(peer, rts, big.data(), kBig, &req) == PullStatus::kPending,
            "pull: " + ofi.error());
      CHECK(poll_until(ofi,
                       [&] {
                         ofi.poll([](const WireHeader&, const char*) {});
                         return protocol::g_pulled == &req;
                       }),
            "pull never completed");
      CHECK(protocol::g_pull_ok, "pull failed: " + ofi.error());
      for (std::size_t b = 0; b < kBig; ++b)
        CHECK(big[b] == static_cast<char>(b * 7 + round), "pulled byte " + std::to_string(b));
      WireHeader fin{};
      fin.kind = MsgKind::kFin;
      while (!ofi.send(peer, fin, nullptr)) ofi.poll([](const WireHeader&, const char*) {});
    }
  }
  if (rank == 0) CHECK(ofi.cache().hits() >= 1, "the second expose registered again");

  // 3. One-sided: rank 1's window is written, read and updated atomically by
  // rank 0 while rank 1 only watches its own memory (no libfabric calls).
  std::vector<uint64_t> window(512, 0);
  ofi::OfiRma rma(ofi);
  ofi::Registration reg;
  CHECK_OK(rma.register_window(window.data(), window.size() * 8, &reg));
  const uint64_t mine[2] = {reg.remote_address(window.data()), reg.key};
  std::string theirs = trade(pipes, std::string(reinterpret_cast<const char*>(mine), sizeof mine));
  uint64_t remote[2];
  std::memcpy(remote, theirs.data(), sizeof remote);
  if (rank == 0) {
    std::vector<uint64_t> data(100);
    for (int i = 0; i < 100; ++i) data[i] = 1000 + i;
    CHECK_OK(rma.put(peer, data.data(), 800, remote[0] + 8 * 8, remote[1]));
    CHECK_OK(rma.flush());
    for (int i = 0; i < 10; ++i)
      CHECK(rma.fetch_add64(peer, remote[0], remote[1], 3) == static_cast<uint64_t>(3 * i),
            "fetch_add64");
    CHECK(rma.compare_swap64(peer, remote[0] + 8, remote[1], 0, 77) == 0, "compare_swap64 hit");
    CHECK(rma.compare_swap64(peer, remote[0] + 8, remote[1], 5, 99) == 77, "compare_swap64 miss");
    CHECK(rma.load64(peer, remote[0] + 8, remote[1]) == 77, "load64");
    rma.store64(peer, remote[0] + 16, remote[1], 0xabcdef);
    std::vector<uint64_t> back(100, 0);
    CHECK_OK(rma.get(peer, back.data(), 800, remote[0] + 8 * 8, remote[1]));
    CHECK_OK(rma.flush());
    CHECK(back == data, "get after put");
    if (ofi.atomic_valid(0, FI_SUM, FI_INT32)) {
      int32_t add[4] = {1, 2, 3, 4};
      CHECK_OK(rma.atomic(peer, FI_SUM, FI_INT32, add, 4, remote[0] + 200 * 8, remote[1]));
      CHECK_OK(rma.atomic(peer, FI_SUM, FI_INT32, add, 4, remote[0] + 200 * 8, remote[1]));
      int32_t fetched[4] = {};
      CHECK_OK(rma.fetch_atomic(peer, FI_SUM, FI_INT32, add, fetched, 4, remote[0] + 200 * 8,
                                remote[1]));
      CHECK_OK(rma.flush());
      CHECK(fetched[3] == 8, "fetch_atomic result");
    }
    rma.store64(peer, remote[0] + 300 * 8, remote[1], 1);  // done flag
    // A read with a wrong key fails with the provider's text, no hang.
    std::vector<uint64_t> junk(4);
    if (rma.get(peer, junk.data(), 32, remote[0], remote[1] + 4242) == 0) {
      const int rc = rma.flush();
      CHECK(rc != 0, "a read with a bad key succeeded");
      CHECK(stmpi::util::error_string(rc).find("one-sided") != std::string::npos,
            "no error text: " + stmpi::util::error_string(rc));
    }
  } else {
    // Passive: no MPI, no libfabric call until rank 0 is done.
    volatile uint64_t* w = window.data();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (w[300] != 1) {
      CHECK(std::chrono::steady_clock::now() < deadline, "passive target: rank 0 never finished");
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    CHECK(w[0] == 30 && w[1] == 77 && w[2] == 0xabcdef, "window words after atomics");
    for (int i = 0; i < 100; ++i) CHECK(w[8 + i] == static_cast<uint64_t>(1000 + i), "put data");
  }
  trade(pipes, "bye");  // both done before either closes its endpoint
  rma.deregister_window(&reg);
  rma.finalize();
  ofi.finalize();
  return "";
}

std::string run_pair(const std::string& provider, const char* data_progress = nullptr) {
  load_settings(provider, data_progress);
  return stmpi::test::run_pair(run_rank);
}

TEST(Ofi, Sockets) { EXPECT_EQ(run_pair("sockets"), ""); }
// tcp;ofi_rxm with the provider's automatic progress (the default) and with
// manual progress, where its passive target progresses through the module's
// progress thread.
TEST(Ofi, TcpRxm) { EXPECT_EQ(run_pair("tcp;ofi_rxm"), ""); }
TEST(Ofi, TcpRxmManualProgress) { EXPECT_EQ(run_pair("tcp;ofi_rxm", "manual"), ""); }

// A one-rank module (no peer: init's allgather returns this rank's name).
// An MPI error code; *error its text.
int init_alone(Ofi* ofi, std::string* error) {
  auto self = [](const std::string& mine, std::vector<std::string>* all, std::string*) {
    all->assign(1, mine);
    return 0;
  };
  const int rc = ofi->init(0, 1, self, false);
  if (rc != MPI_SUCCESS) *error = stmpi::util::error_string(rc);
  return rc;
}

// STMPI_OFI_DATA_PROGRESS: which progress each setting gets, and the error for a bad value.
TEST(Ofi, DataProgressChoice) {
  struct Case {
    const char* provider;
    const char* setting;
    const char* want;
  };
  const Case cases[] = {{"tcp;ofi_rxm", "provider", "automatic progress"},
                        {"tcp;ofi_rxm", "manual", "manual progress"},
                        {"sockets", "provider", "automatic progress"},
                        {"sockets", "manual", "manual progress"}};
  for (const Case& c : cases) {
    load_settings(c.provider, c.setting);
    std::string error;
    Ofi ofi;
    ASSERT_EQ(init_alone(&ofi, &error), 0) << c.provider << " " << c.setting << ": " << error;
    EXPECT_NE(ofi.description().find(c.want), std::string::npos)
        << c.provider << " " << c.setting << ": " << ofi.description();
    ofi.finalize();
  }
  // A value outside the table's choices stops the loader (MPI_Init).
  setenv("STMPI_OFI_DATA_PROGRESS", "sometimes", 1);
  std::string error;
  ASSERT_FALSE(stmpi::util::load_all(&error));
  EXPECT_NE(error.find("STMPI_OFI_DATA_PROGRESS=sometimes"), std::string::npos) << error;
  EXPECT_NE(error.find("provider or manual"), std::string::npos) << error;
  load_settings("tcp;ofi_rxm");
}

// How many threads of this process run at nice `value` (field 19 of
// /proc/self/task/T/stat), waiting up to a second for at least `at_least`.
int threads_at_nice(const std::string& value, int at_least) {
  int found = 0;
  for (int i = 0; i < 100; ++i) {
    found = 0;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream in(task.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::istringstream rest(stat.substr(stat.rfind(')') + 2));
      std::string field;
      for (int f = 3; f <= 19 && rest >> field; ++f) {
      }
      if (field == value) ++found;
    }
    if (found >= at_least) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return found;
}

// STMPI_OFI_PROVIDER_THREAD_NICE: under automatic progress the threads the
// provider started while it was opened get that nice value (as root); the
// default leaves them, and a value out of range is a load error naming it.
TEST(Ofi, ProviderThreadNice) {
  load_settings("tcp;ofi_rxm", "provider");
  setenv("STMPI_OFI_PROVIDER_THREAD_NICE", "-7", 1);
  std::string error;
  ASSERT_TRUE(stmpi::util::load_all(&error)) << error;
  {
    Ofi ofi;
    ASSERT_EQ(init_alone(&ofi, &error), 0) << error;
    EXPECT_GE(ofi.provider_threads(), 1) << "tcp;ofi_rxm's automatic progress runs in a thread";
    EXPECT_FALSE(ofi.progress_thread_running());
    if (geteuid() == 0)
      EXPECT_EQ(threads_at_nice("-7", ofi.provider_threads()), ofi.provider_threads());
    ofi.finalize();
  }
  unsetenv("STMPI_OFI_PROVIDER_THREAD_NICE");
  ASSERT_TRUE(stmpi::util::load_all(&error)) << error;
  {
    Ofi ofi;
    ASSERT_EQ(init_alone(&ofi, &error), 0) << error;
    EXPECT_EQ(threads_at_nice("-7", 0), 0) << "the default changed a thread's nice value";
    ofi.finalize();
  }
  setenv("STMPI_OFI_PROVIDER_THREAD_NICE", "-30", 1);
  ASSERT_FALSE(stmpi::util::load_all(&error));
  EXPECT_NE(error.find("STMPI_OFI_PROVIDER_THREAD_NICE=-30"), std::string::npos) << error;
  EXPECT_NE(error.find("-20..19"), std::string::npos) << error;
  unsetenv("STMPI_OFI_PROVIDER_THREAD_NICE");
  ASSERT_TRUE(stmpi::util::load_all(&error)) << error;
}

// The progress thread drives the provider while nobody polls it and stays
// off it while the protocol polls (counted by thread_polls()). Timing on a
// shared machine: the busy stretch may lose its CPU now and then, so the
// check is a ratio, tried up to three times.
TEST(Ofi, ProgressThreadIdlesWhileRanksPoll) {
  load_settings("tcp;ofi_rxm", "manual");
  setenv("STMPI_OFI_PROGRESS_BLOCK", "no", 1);  // timed looks (the next test: sleeps)
  std::string load_error;
  ASSERT_TRUE(stmpi::util::load_all(&load_error)) << load_error;
  Ofi ofi;
  std::string error;
  ASSERT_EQ(init_alone(&ofi, &error), 0) << error;
  ASSERT_NE(ofi.description().find("manual progress"), std::string::npos) << ofi.description();
  auto ignore = [](const WireHeader&, const char*) {};
  uint64_t busy = 0, idle = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const uint64_t start = ofi.thread_polls();
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (std::chrono::steady_clock::now() < until) (void)ofi.poll(ignore);
    busy = ofi.thread_polls() - start;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    idle = ofi.thread_polls() - start - busy;
    if (idle >= 8 && busy * 4 < idle) break;
  }
  EXPECT_GE(idle, 8u) << "the progress thread did not drive an idle provider";
  EXPECT_LT(busy * 4, idle) << "the progress thread polled " << busy
                            << " times while the rank polled (" << idle << " while idle)";
  ofi.finalize();
  unsetenv("STMPI_OFI_PROGRESS_BLOCK");
}

// STMPI_OFI_PROGRESS_BLOCK=auto: with nothing to do, the progress thread
// sleeps on the provider's descriptors instead of looking every 50 us, and a
// message that arrives while the rank does not poll wakes it (the rank then
// finds the message). Sent to itself: one process, the same sockets.
TEST(Ofi, ProgressThreadSleepsUntilTheNetworkWakesIt) {
  load_settings("tcp;ofi_rxm", "manual");
  setenv("STMPI_OFI_PROGRESS_BLOCK", "auto", 1);
  std::string error;
  ASSERT_TRUE(stmpi::util::load_all(&error)) << error;
  Ofi ofi;
  ASSERT_EQ(init_alone(&ofi, &error), 0) << error;
  ASSERT_TRUE(ofi.progress_thread_running());
  // As root the sleeping thread runs at STMPI_OFI_PROGRESS_THREAD_NICE (-10).
  if (geteuid() == 0)
    EXPECT_EQ(threads_at_nice("-10", 1), 1) << "no thread of this process runs at nice -10";
  WireHeader h{};
  h.kind = MsgKind::kEager;
  h.sender = 0;
  h.payload_bytes = 8;
  const char payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int got = 0;
  std::string bad;
  auto receive = [&](int tag) {
    return poll_until(ofi, [&] {
      ofi.poll([&](const WireHeader& m, const char* p) {
        ++got;
        if (m.tag != tag || m.payload_bytes != 8 || std::memcmp(p, payload, 8) != 0)
          bad = "wrong message (tag " + std::to_string(m.tag) + ")";
      });
      return got > 0;
    });
  };
  // The first message makes the connection (the rank polls meanwhile).
  h.tag = 76;
  ASSERT_TRUE(poll_until(ofi, [&] {
    if (ofi.send(0, h, payload)) return true;
    ofi.poll([&](const WireHeader&, const char*) { ++got; });
    return false;
  })) << ofi.error();
  ASSERT_TRUE(receive(76));
  ASSERT_EQ(bad, "");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const uint64_t polls = ofi.thread_polls(), blocks = ofi.thread_blocks();
  EXPECT_GE(blocks, 1u) << "the thread never slept on the provider's descriptors";
  // Timed looks would make thousands in 300 ms; sleeps end by timeout (100 ms) or a wake-up.
  EXPECT_LT(polls, 20u) << "the idle thread kept looking";
  const uint64_t wakeups = ofi.thread_wakeups();
  h.tag = 77;
  ASSERT_TRUE(ofi.send(0, h, payload)) << ofi.error();
  bool woken = false;
  for (int i = 0; i < 100 && !woken; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    woken = ofi.thread_wakeups() > wakeups;
  }
  EXPECT_TRUE(woken) << "a message to this rank did not wake the sleeping thread";
  got = 0;
  ASSERT_TRUE(receive(77));
  EXPECT_EQ(bad, "");
  ofi.finalize();
  unsetenv("STMPI_OFI_PROGRESS_BLOCK");
}

TEST(Ofi, UnknownProviderNamesWhatIsAvailable) {
  load_settings("nosuch");
  Ofi ofi;
  std::string error;
  auto never = [](const std::string&, std::vector<std::string>*, std::string*) { return -1; };
  const int rc = ofi.init(0, 1, never, false);
  ASSERT_NE(rc, MPI_SUCCESS);
  error = stmpi::util::error_string(rc);
  EXPECT_NE(error.find("'nosuch'"), std::string::npos) << error;
  EXPECT_NE(error.find("sockets"), std::string::npos) << error;
  EXPECT_NE(error.find("STMPI_OFI_PROVIDER"), std::string::npos) << error;
}

TEST(Ofi, BadInterfaceIsAnError) {
  load_settings("sockets");
  setenv("STMPI_OFI_IFACE", "nosuch0", 1);
  std::string error;
  ASSERT_TRUE(stmpi::util::load_all(&error));
  Ofi ofi;
  auto never = [](const std::string&, std::vector<std::string>*, std::string*) { return -1; };
  const int rc = ofi.init(0, 1, never, false);
  ASSERT_NE(rc, MPI_SUCCESS);
  error = stmpi::util::error_string(rc);
  EXPECT_NE(error.find("STMPI_OFI_IFACE=nosuch0"), std::string::npos) << error;
  EXPECT_NE(error.find("lo 127.0.0.1"), std::string::npos) << error;
}

}  // namespace
