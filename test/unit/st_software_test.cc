// SoftwareTriggers (the library's trigger engine) on its own, over memory of
// this process (kMapped regions: plain stores, no network): the counter
// pool's recycling. Part of test/unit/st_test.
#include <gtest/gtest.h>

#include <cstdint>

#include <mpi.h>

#include "device/rma/region.h"
#include "device/rma/st/software_triggers.h"

namespace stmpi::dev::rma::st {
namespace {

// The software engine's pool: release_counter never waits for a firing
// round; a counter released with operations still queued on it (a broken
// chain) is recycled between rounds, and those operations never fire, even
// when the counter serves the next epoch at once.
TEST(SoftwareTriggers, ReleasedCountersAreRecycledWithoutFiringOldOperations) {
  SoftwareTriggers sw(2, 0);
  alignas(8) uint64_t words[2] = {0, 0};
  Region region;
  region.kind = RegionKind::kMapped;
  region.mapped = reinterpret_cast<char*>(words);
  region.bytes = sizeof words;
  TriggeredOps::CounterId t = 0, c = 0, extra = 0;
  bool ok = false;
  ASSERT_EQ(sw.acquire_counter(&t, &ok), MPI_SUCCESS);
  ASSERT_TRUE(ok);
  ASSERT_EQ(sw.acquire_counter(&c, &ok), MPI_SUCCESS);
  ASSERT_TRUE(ok);
  ASSERT_EQ(sw.acquire_counter(&extra, &ok), MPI_SUCCESS);
  EXPECT_FALSE(ok);  // a pool of 2
  // The old epoch: a signal of 111 into word 0 that never fires.
  ASSERT_EQ(sw.post_signal(region, 0, 111, t, 1, c), MPI_SUCCESS);
  sw.release_counter(t);
  sw.release_counter(c);
  sw.release_counter(c);  // a second release is ignored
  EXPECT_EQ(sw.stats().counters_in_use, 0u);
  // The pool is empty until the retired counters are recycled: acquire does it.
  TriggeredOps::CounterId t2 = 0, c2 = 0;
  ASSERT_EQ(sw.acquire_counter(&t2, &ok), MPI_SUCCESS);
  ASSERT_TRUE(ok);
  ASSERT_EQ(sw.acquire_counter(&c2, &ok), MPI_SUCCESS);
  ASSERT_TRUE(ok);
  EXPECT_EQ(sw.read_counter(t2), 0u);
  EXPECT_EQ(sw.read_counter(c2), 0u);
  ASSERT_EQ(sw.post_signal(region, 8, 222, t2, 1, c2), MPI_SUCCESS);
  ASSERT_EQ(sw.add_counter(t2, 1), MPI_SUCCESS);
  EXPECT_EQ(words[0], 0u);  // the old epoch's signal was dropped
  EXPECT_EQ(words[1], 222u);
  EXPECT_EQ(sw.read_counter(c2), 1u);
  EXPECT_EQ(sw.stats().fired, 1u);
  EXPECT_EQ(sw.stats().counters_max_in_use, 2u);
  // Many epochs through the 2 counters, each released at once after its
  // add (a round recycles what the previous epoch released).
  sw.release_counter(t2);
  sw.release_counter(c2);
  for (uint64_t k = 1; k <= 1000; ++k) {
    ASSERT_EQ(sw.acquire_counter(&t, &ok), MPI_SUCCESS);
    ASSERT_TRUE(ok) << k;
    ASSERT_EQ(sw.acquire_counter(&c, &ok), MPI_SUCCESS);
    ASSERT_TRUE(ok) << k;
    ASSERT_EQ(sw.post_signal(region, 0, k, t, 1, c), MPI_SUCCESS);
    ASSERT_EQ(sw.add_counter(t, 1), MPI_SUCCESS);
    ASSERT_EQ(words[0], k);
    ASSERT_EQ(sw.read_counter(c), 1u);
    sw.release_counter(t);
    sw.release_counter(c);
  }
  EXPECT_EQ(sw.stats().counters_in_use, 0u);
  EXPECT_EQ(sw.stats().counters_max_in_use, 2u);
}

}  // namespace
}  // namespace stmpi::dev::rma::st
