// The triggered-operation pool (src/device/ofi/ofi_triggered.h) on two
// processes over 127.0.0.1 with the sockets provider, for the native
// (FI_TRIGGER) and the deferred (FI_QUEUE_WORK) path: a chain of writes, an
// accumulate and a signal that the target sees only after the trigger, in
// order; the pool's budgets (counters, operation slots), reuse after reset,
// rotation of counters past a small STMPI_OFI_ST_COUNTER_LIMIT, a counter
// retired with work queued on it; a triggered write with a bad key that
// must surface through first_error instead of a hang. tcp;ofi_rxm has
// neither path: both opens answer MPI_ERR_UNSUPPORTED_OPERATION.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <mpi.h>

#include "device/ofi/ofi.h"
#include "device/ofi/ofi_rma.h"
#include "device/ofi/ofi_triggered.h"
#include "device/ofi/settings.h"
#include "ofi_pair.h"
#include "util/error.h"
#include "util/param.h"

namespace stmpi::dev::protocol {
// The protocol's rendezvous callback; no rendezvous happens here.
void pull_done(RequestDev*, bool) {}
}  // namespace stmpi::dev::protocol

namespace {

using namespace stmpi::dev;
using ofi::Ofi;
using ofi::TriggeredBudget;
using ofi::TriggeredNic;
using rma::st::TriggerMode;
using stmpi::test::Pipes;
using stmpi::test::trade;
using CounterId = rma::st::TriggeredOps::CounterId;

void load_settings(const std::string& provider) {
  setenv("STMPI_OFI_PROVIDER", provider.c_str(), 1);
  setenv("STMPI_OFI_IFACE", "127.0.0.1", 1);
  setenv("STMPI_OFI_TIMEOUT", "10", 1);
  std::string error;
  if (!stmpi::util::load_all(&error)) std::abort();
}

// Window layout at rank 1 (64-bit words).
constexpr std::size_t kWords = 8192;
constexpr std::size_t kData = 0;        // 4 x 4 KiB chain writes: words 0..2047
constexpr std::size_t kScatter = 2048;  // 12 runs of 64 B, 128 B apart
constexpr std::size_t kAcc = 3072;      // 8 int64 accumulated
constexpr std::size_t kHostAcc = 3100;  // 8 doubles accumulated by the host path
constexpr std::size_t kSignal = 4000;   // signal of the chain
constexpr std::size_t kRotate = 4001;   // signal of the rotation loop
constexpr std::size_t kSlots = 4002;    // words of the slot-exhaustion signals
constexpr std::size_t kRead = 5000;     // 16 words read by a triggered read
constexpr std::size_t kDone = 8191;     // rank 0 finished

template <class F>
bool wait_for(F&& done, int seconds = 20) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

// The host path of accumulates the NIC cannot do (set_host_accumulate): in
// the library NetRma's locked accumulate; here a put of the operand onto a
// zero target, which shows when it ran and that it completed the chain.
ofi::OfiRma* g_rma = nullptr;
int g_host_calls = 0;
int host_put(const rma::Region& region, std::span<const rma::Run> runs, const rma::AccumulateOp&,
             const void* in) {
  ++g_host_calls;
  if (int err = g_rma->put(region, runs, in)) return err;
  return g_rma->flush();
}

// The host path of reads (set_host_get): in the library the device's kNet get.
int g_host_gets = 0;
int host_get(const rma::Region& region, std::span<const rma::Run> runs, void* out) {
  ++g_host_gets;
  return g_rma->get(region, runs, out, nullptr);
}

rma::Region net_region(int target, uint64_t remote, uint64_t key) {
  rma::Region r;
  r.kind = rma::RegionKind::kNet;
  r.target = target;
  r.remote = remote;
  r.key = key;
  r.bytes = kWords * 8;
  r.native_atomics = true;  // the NIC does 8-byte integer atomics here
  return r;
}

std::string origin_side(int rank, const Pipes& pipes, Ofi& ofi, TriggerMode mode,
                        const rma::Region& region) {
  // 1. A chain: 4 x 4 KiB writes, a 12-run scatter (more pieces than one
  // provider call takes), an accumulate, then a signal on the completion
  // counter. The origin is written after posting: read when fired.
  std::unique_ptr<TriggeredNic> nic;
  CHECK_OK(TriggeredNic::open(ofi, mode, TriggeredBudget{}, &nic));
  CounterId t = 0, c = 0;
  bool available = false;
  CHECK_OK(nic->acquire_counter(&t, &available));
  CHECK(available, "no counter");
  CHECK_OK(nic->acquire_counter(&c, &available));
  CHECK(available && c != t, "no second counter");
  std::vector<uint64_t> src(2048 + 96 + 16, 0);
  for (int i = 0; i < 4; ++i) {
    const rma::Run run{(kData + i * 512) * 8, 4096};
    const rma::st::OriginPiece piece{reinterpret_cast<char*>(&src[i * 512]), 4096};
    CHECK_OK(nic->post_write(region, {&run, 1}, {&piece, 1}, t, 1, c));
  }
  std::vector<rma::Run> scatter;
  for (int i = 0; i < 12; ++i) scatter.push_back({(kScatter + i * 16) * 8, 64});
  const rma::st::OriginPiece packed{reinterpret_cast<char*>(&src[2048]), 12 * 64};
  CHECK_OK(nic->post_write(region, scatter, {&packed, 1}, t, 1, c));
  const rma::Run acc_run{kAcc * 8, 64};
  const rma::st::OriginPiece acc_piece{reinterpret_cast<char*>(&src[2048 + 96]), 64};
  rma::AccumulateOp acc{stmpi::util::OpKind::kSum, stmpi::util::ElementKind::kInt64, 8};
  CHECK_OK(nic->post_accumulate(region, {&acc_run, 1}, {&acc_piece, 1}, acc, t, 1, c));
  // Doubles: not atomic on the NIC with the target's own origins, so the
  // host path runs it when t is bumped.
  g_host_calls = 0;
  nic->set_host_accumulate(host_put);
  const rma::Run host_run{kHostAcc * 8, 64};
  const rma::st::OriginPiece host_piece{reinterpret_cast<char*>(&src[2048 + 104]), 64};
  rma::AccumulateOp dacc{stmpi::util::OpKind::kSum, stmpi::util::ElementKind::kDouble, 8};
  CHECK_OK(nic->post_accumulate(region, {&host_run, 1}, {&host_piece, 1}, dacc, t, 1, c));
  // A read of 16 words into two pieces: run by the host when t is bumped,
  // complete when add_counter returns.
  g_host_gets = 0;
  nic->set_host_get(host_get);
  uint64_t low[8] = {}, high[8] = {};
  const rma::Run read_run{kRead * 8, 128};
  const rma::st::OriginPiece read_pieces[2] = {{reinterpret_cast<char*>(low), 64},
                                               {reinterpret_cast<char*>(high), 64}};
  CHECK_OK(nic->post_read(region, {&read_run, 1}, read_pieces, t, 1, c));
  CHECK_OK(nic->post_signal(region, kSignal * 8, 7, c, 8, c));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = 1000 + i;
  // Each trade() is an exchange: one message each way.
  trade(pipes, "posted");
  const std::string seen = trade(pipes, "looked?");
  CHECK(seen == "nothing arrived", "the target saw data before the trigger: " + seen);
  CHECK(nic->read_counter(c) == 0 && g_host_calls == 0 && g_host_gets == 0 && low[0] == 0,
        "completions before the trigger");
  CHECK_OK(nic->add_counter(t, 1));
  bool read_ok = g_host_gets == 1;
  for (int i = 0; i < 8; ++i) read_ok = read_ok && low[i] == 777000u + i && high[i] == 777008u + i;
  CHECK(read_ok, "the triggered read was not complete when add_counter returned");
  // The origin was read when the trigger fired: changing it now (as the
  // stream's next work may) changes nothing on the way.
  std::fill(src.begin(), src.end(), uint64_t{0xdead});
  CHECK(wait_for([&] { return nic->read_counter(c) >= 9; }),
        "chain never completed: counter " + std::to_string(nic->read_counter(c)));
  CHECK(nic->read_counter(c) == 9, "extra completions");
  CHECK(g_host_calls == 1 && nic->stats().host_fired == 2, "host accumulate or read not run once");
  CHECK_OK(nic->first_error(c));
  const std::string chain = trade(pipes, "chain done");
  CHECK(chain == "chain ok", "target check of the chain: " + chain);
  const std::size_t all_slots = TriggeredBudget{}.ops;
  nic->release_counter(t);
  nic->release_counter(c);
  CHECK(nic->ops_free() == all_slots, "operations not reclaimed");
  CHECK(nic->stats().retired == 0, "a clean counter was retired");
  CHECK(nic->stats().posted == 4 + 2 + 1 + 1, "posted " + std::to_string(nic->stats().posted));
  CHECK(g_host_gets == 1, "the read ran " + std::to_string(g_host_gets) + " times");
  nic.reset();

  // 2. Budgets: 3 counters, 6 slots, counter limit 64.
  TriggeredBudget small;
  small.counters = 3;
  small.ops = 6;
  small.counter_limit = 64;
  CHECK_OK(TriggeredNic::open(ofi, mode, small, &nic));
  CounterId ids[3];
  for (CounterId& id : ids) {
    CHECK_OK(nic->acquire_counter(&id, &available));
    CHECK(available, "pool smaller than its budget");
  }
  CounterId extra = 99;
  CHECK_OK(nic->acquire_counter(&extra, &available));
  CHECK(!available, "a fourth counter from a pool of 3");
  // Slots: 6 signals fit, the 7th is an error naming the parameter.
  for (int i = 0; i < 6; ++i)
    CHECK_OK(nic->post_signal(region, (kSlots + i) * 8, 100 + i, ids[0], 1, ids[1]));
  const int full = nic->post_signal(region, kSlots * 8, 1, ids[0], 1, ids[1]);
  CHECK(stmpi::util::error_class_of(full) == MPI_ERR_OTHER, "a 7th operation in 6 slots");
  CHECK(stmpi::util::error_string(full).find("STMPI_ST_TRIGGERED_OPS=6") != std::string::npos,
        "message: " + stmpi::util::error_string(full));
  CHECK_OK(nic->add_counter(ids[0], 1));
  CHECK(wait_for([&] { return nic->read_counter(ids[1]) >= 6; }), "slot signals never completed");
  nic->release_counter(ids[1]);
  CHECK(nic->ops_free() == 6, "operations not back after release");
  // Reuse after reset: the same counter comes back at 0.
  CounterId again = 99;
  CHECK_OK(nic->acquire_counter(&again, &available));
  CHECK(available && again == ids[1], "released counter not reused");
  CHECK(nic->read_counter(again) == 0, "reused counter not reset");

  // 3. Rotation: 100 epochs on one trigger and one completion counter with
  // a limit of 64: thresholds and values keep growing as 64-bit numbers.
  const CounterId rt = ids[2], rc = again;
  for (uint64_t k = 1; k <= 100; ++k) {
    CHECK_OK(nic->post_signal(region, kRotate * 8, k, rt, k, rc));
    CHECK_OK(nic->add_counter(rt, 1));
    CHECK(wait_for([&] { return nic->read_counter(rc) >= 1; }),
          "rotation epoch " + std::to_string(k) + " never completed");
    nic->release_counter(rc);  // the slot back, then the same counter again
    CounterId next = 99;
    CHECK_OK(nic->acquire_counter(&next, &available));
    CHECK(next == rc && nic->read_counter(rc) == 0, "completion counter not recycled");
    CHECK(nic->read_counter(rt) == k, "trigger value " + std::to_string(nic->read_counter(rt)));
  }
  CHECK(nic->stats().rotations >= 1, "never rotated past STMPI_OFI_ST_COUNTER_LIMIT=64");
  trade(pipes, "rotation done");
  const std::string rotation = trade(pipes, "checked?");
  CHECK(rotation == "rotation ok", "target check of the rotation: " + rotation);
  // A threshold past the limit while work is pending on the counter: error.
  CHECK_OK(nic->post_signal(region, kRotate * 8, 100, rt, 102, rc));
  const int far = nic->post_signal(region, kRotate * 8, 100, rt, 101 + 64, rc);
  CHECK(stmpi::util::error_string(far).find("STMPI_OFI_ST_COUNTER_LIMIT") != std::string::npos,
        "a threshold past the limit with work pending: " + stmpi::util::error_string(far));
  // Released with that signal still queued: retired, not reused; a clean
  // one comes back.
  nic->release_counter(rt);
  CHECK(nic->stats().retired == 1, "counter with queued work not retired");
  nic->release_counter(ids[0]);
  CounterId after = 99;
  CHECK_OK(nic->acquire_counter(&after, &available));
  CHECK(available && after == ids[0], "a clean counter did not come back");
  CHECK_OK(nic->acquire_counter(&after, &available));
  CHECK(!available, "a retired counter came back");
  nic.reset();

  // 4. A triggered write with a bad key: first_error reports it, no hang.
  CHECK_OK(TriggeredNic::open(ofi, mode, TriggeredBudget{}, &nic));
  CHECK_OK(nic->acquire_counter(&t, &available));
  CHECK_OK(nic->acquire_counter(&c, &available));
  rma::Region bad = region;
  bad.key += 4242;
  const rma::Run run{kData * 8, 64};
  const rma::st::OriginPiece piece{reinterpret_cast<char*>(src.data()), 64};
  CHECK_OK(nic->post_write(bad, {&run, 1}, {&piece, 1}, t, 1, c));
  CHECK_OK(nic->post_signal(region, kSignal * 8, 99, c, 1, c));  // never fires
  CHECK_OK(nic->add_counter(t, 1));
  int error = MPI_SUCCESS;
  CHECK(wait_for([&] { return (error = nic->first_error(c)) != MPI_SUCCESS; }, 15),
        "a failed triggered write was never reported");
  CHECK(stmpi::util::error_class_of(error) == MPI_ERR_OTHER, "error class");
  const std::string text = stmpi::util::error_string(error);
  CHECK(text.find("write to rank 1 failed") != std::string::npos, "error text: " + text);
  CHECK(nic->stats().errors == 1, "failures counted: " + std::to_string(nic->stats().errors));
  nic->release_counter(c);
  CHECK(nic->stats().retired == 1, "the broken chain's counter was reused");
  nic->release_counter(t);
  nic.reset();
  trade(pipes, "error done");
  CHECK(trade(pipes, "checked?") == "error ok", "the bad write's signal fired");
  return "";
}

std::string target_side(int rank, const Pipes& pipes, const std::vector<uint64_t>& window) {
  volatile const uint64_t* w = window.data();
  CHECK(trade(pipes, "ready") == "posted", "protocol");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  bool untouched = w[kSignal] == 0;
  for (std::size_t i = 0; i < kAcc + 8; ++i) untouched = untouched && w[i] == (i >= kAcc ? 5 : 0);
  for (std::size_t i = kHostAcc; i < kHostAcc + 8; ++i) untouched = untouched && w[i] == 0;
  const std::string seen = "early: signal " + std::to_string(w[kSignal]) + ", data " +
                           std::to_string(w[kData]) + ", scatter " + std::to_string(w[kScatter]) +
                           ", accumulate " + std::to_string(w[kAcc]);
  CHECK(trade(pipes, untouched ? "nothing arrived" : seen) == "looked?", "protocol");
  if (!untouched) return "";
  const bool signalled = wait_for([&] { return w[kSignal] == 7; });
  bool ok = signalled;
  for (std::size_t i = 0; i < 2048; ++i) ok = ok && w[kData + i] == 1000 + i;
  for (std::size_t i = 0; i < 96; ++i)
    ok = ok && w[kScatter + (i / 8) * 16 + i % 8] == 1000 + 2048 + i;
  for (std::size_t i = 0; i < 8; ++i) ok = ok && w[kAcc + i] == 5 + 1000 + 2048 + 96 + i;
  for (std::size_t i = 0; i < 8; ++i) ok = ok && w[kHostAcc + i] == 1000 + 2048 + 104 + i;
  const char* verdict = ok ? "chain ok" : signalled ? "chain data wrong" : "no signal";
  CHECK(trade(pipes, verdict) == "chain done", "protocol");
  if (!ok) return "";
  CHECK(trade(pipes, "ready") == "rotation done", "protocol");
  ok = w[kRotate] == 100;
  for (int i = 0; i < 6; ++i) ok = ok && w[kSlots + i] == static_cast<uint64_t>(100 + i);
  CHECK(trade(pipes, ok ? "rotation ok" : "rotation words wrong") == "checked?", "protocol");
  if (!ok) return "";
  CHECK(trade(pipes, "ready") == "error done", "protocol");
  CHECK(trade(pipes, w[kSignal] == 7 ? "error ok" : "broken chain signalled") == "checked?",
        "protocol");
  return "";
}

std::string run_rank(TriggerMode mode, int rank, const Pipes& pipes) {
  Ofi ofi;
  CHECK_OK(ofi.init(rank, 2, stmpi::test::pair_allgather(rank, pipes), false));
  std::vector<uint64_t> window(kWords, 0);
  for (std::size_t i = 0; i < 8; ++i) window[kAcc + i] = 5;
  for (std::size_t i = 0; i < 16; ++i) window[kRead + i] = 777000 + i;
  ofi::OfiRma rma(ofi);
  ofi::Registration reg;
  CHECK_OK(rma.register_window(window.data(), window.size() * 8, &reg));
  const uint64_t mine[2] = {reg.remote_address(window.data()), reg.key};
  const std::string theirs = trade(pipes, std::string(reinterpret_cast<const char*>(mine), 16));
  uint64_t remote[2];
  std::memcpy(remote, theirs.data(), sizeof remote);
  std::string result;
  if (rank == 0) {
    // Where the provider wants offsets, the region's remote is 0.
    const uint64_t base = ofi.virt_addr() ? remote[0] : 0;
    g_rma = &rma;
    result = origin_side(rank, pipes, ofi, mode, net_region(1, base, remote[1]));
    if (!result.empty()) return result;
  } else {
    result = target_side(rank, pipes, window);
  }
  trade(pipes, "bye");
  rma.deregister_window(&reg);
  rma.finalize();
  ofi.finalize();
  return result;
}

TEST(OfiTriggered, SocketsNative) {
  load_settings("sockets");
  EXPECT_EQ(stmpi::test::run_pair([](int rank, const Pipes& pipes) {
              return run_rank(TriggerMode::kNative, rank, pipes);
            }),
            "");
}

TEST(OfiTriggered, SocketsDeferred) {
  load_settings("sockets");
  EXPECT_EQ(stmpi::test::run_pair([](int rank, const Pipes& pipes) {
              return run_rank(TriggerMode::kDeferred, rank, pipes);
            }),
            "");
}

TEST(OfiTriggered, TcpRxmHasNeither) {
  load_settings("tcp;ofi_rxm");
  Ofi ofi;
  auto self = [](const std::string& mine, std::vector<std::string>* all, std::string*) {
    all->assign(1, mine);
    return 0;
  };
  const int rc = ofi.init(0, 1, self, false);
  ASSERT_EQ(rc, MPI_SUCCESS) << stmpi::util::error_string(rc);
  for (TriggerMode mode : {TriggerMode::kNative, TriggerMode::kDeferred}) {
    std::unique_ptr<TriggeredNic> nic;
    const int rc = TriggeredNic::open(ofi, mode, TriggeredBudget{}, &nic);
    EXPECT_EQ(stmpi::util::error_class_of(rc), MPI_ERR_UNSUPPORTED_OPERATION)
        << rma::st::trigger_mode_name(mode);
    EXPECT_NE(stmpi::util::error_string(rc).find("STMPI_ST_TRIGGER"), std::string::npos)
        << stmpi::util::error_string(rc);
    EXPECT_EQ(nic, nullptr);
  }
  ofi.finalize();
}

}  // namespace
