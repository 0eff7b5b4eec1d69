// Device pieces that run without a launcher: the launcher's process
// mapping (pmi/process_mapping) and the progress engine's hooks and wait
// policy (device/progress), with a stand-in for the transports' poll.
#include <gtest/gtest.h>

#include <vector>

#include "device/progress.h"
#include "pmi/process_mapping.h"
#include "util/backoff.h"

namespace stmpi::dev {
int g_polls = 0;
int poll_transports() {
  ++g_polls;
  return 0;
}
}  // namespace stmpi::dev

namespace {

using stmpi::pmi::parse_process_mapping;

TEST(ProcessMapping, OneNode) {
  std::vector<int> node;
  ASSERT_TRUE(parse_process_mapping("(vector,(0,1,4))", 4, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 0, 0, 0}));
}

TEST(ProcessMapping, BlocksOverNodes) {
  std::vector<int> node;
  ASSERT_TRUE(parse_process_mapping("(vector,(0,2,2))", 4, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 0, 1, 1}));
}

TEST(ProcessMapping, RepeatsCyclically) {
  std::vector<int> node;
  ASSERT_TRUE(parse_process_mapping(" ( vector, (0,2,2) ) ", 6, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 0, 1, 1, 0, 0}));
  ASSERT_TRUE(parse_process_mapping("(vector,(0,3,1))", 5, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 1, 2, 0, 1}));
}

TEST(ProcessMapping, SeveralBlocks) {
  std::vector<int> node;
  ASSERT_TRUE(parse_process_mapping("(vector,(0,1,3),(1,2,1))", 5, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 0, 0, 1, 2}));
}

TEST(ProcessMapping, RejectsMalformed) {
  std::vector<int> node;
  for (const char* bad :
       {"", "(vector)", "(vector,(0,1))", "(vector,(0,0,2))", "(vector,(0,1,0))", "(list,(0,1,2))",
        "(vector,(0,1,2)", "(vector,(0,1,2)) x", "(vector,(a,1,2))", "(vector,(0,1,99999999999))"})
    EXPECT_FALSE(parse_process_mapping(bad, 4, &node)) << bad;
}

int g_hook_a = 0;
int g_hook_b = 0;
int g_self_id = -1;
int hook_a(void* arg) {
  ++*static_cast<int*>(arg);
  return 1;
}
int hook_removes_itself(void*) {
  ++g_hook_b;
  stmpi::dev::remove_progress_hook(g_self_id);
  return 0;
}

TEST(Progress, HooksRunAndAreRemoved) {
  const int polls = stmpi::dev::g_polls;
  const int a = stmpi::dev::add_progress_hook(&hook_a, &g_hook_a);
  g_self_id = stmpi::dev::add_progress_hook(&hook_removes_itself, nullptr);
  EXPECT_NE(a, g_self_id);
  stmpi::dev::progress();
  stmpi::dev::progress();
  EXPECT_EQ(g_hook_a, 2);
  EXPECT_EQ(g_hook_b, 1);  // removed itself during the first run
  EXPECT_EQ(stmpi::dev::g_polls, polls + 2);
  stmpi::dev::remove_progress_hook(a);
  stmpi::dev::remove_progress_hook(a);  // twice: harmless
  stmpi::dev::remove_progress_hook(12345);
  stmpi::dev::progress();
  EXPECT_EQ(g_hook_a, 2);
  // Freed ids are reused.
  const int again = stmpi::dev::add_progress_hook(&hook_a, &g_hook_a);
  EXPECT_TRUE(again == a || again == g_self_id);
  stmpi::dev::remove_progress_hook(again);
}

int g_yields = 0;
void count_yield() { ++g_yields; }

TEST(Progress, WaitUntilYieldsPerPolicy) {
  stmpi::util::set_yield(&count_yield);
  stmpi::util::set_ranks_on_node(1);  // a CPU of its own: spin about a time slice
  const int budget = stmpi::util::polls_before_yield();
  EXPECT_EQ(budget, 1 << 14);
  stmpi::util::set_lock_shared_by_threads(true);  // MPI_THREAD_MULTIPLE: hand the lock over
  EXPECT_EQ(stmpi::util::polls_before_yield(), 1000);
  stmpi::util::set_lock_shared_by_threads(false);
  EXPECT_EQ(stmpi::util::polls_before_yield(), budget);
  int hook_runs = 0;
  const int id = stmpi::dev::add_progress_hook(&hook_a, &hook_runs);
  stmpi::dev::wait_until([&] { return hook_runs >= 2 * budget + 1; });
  EXPECT_EQ(g_yields, 2);
  stmpi::util::set_ranks_on_node(1 << 20);  // far more ranks than CPUs: yield soon
  EXPECT_EQ(stmpi::util::polls_before_yield(), 20);
  g_yields = 0;
  hook_runs = 0;
  stmpi::dev::wait_until([&] { return hook_runs >= 100; });
  EXPECT_EQ(g_yields, 5);
  stmpi::dev::remove_progress_hook(id);
  stmpi::util::set_yield(nullptr);
}

}  // namespace
