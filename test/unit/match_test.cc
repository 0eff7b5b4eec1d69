// Tests of the hashed matching queues (src/device/match): key packing, MPI
// ordering rules, wildcards, cancel, bin collisions, cost independent of
// queue depth, and a randomized comparison against a linear reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <random>
#include <vector>

#include "device/match/key.h"
#include "device/match/posted_queue.h"
#include "device/match/unexpected_queue.h"

namespace stmpi::dev::match {
namespace {

struct TestRecv : PostedEntry {
  TestRecv(Key k, int i) : id(i) { key = k; }
  int id;
};

struct TestMsg : UnexpectedEntry {
  TestMsg(Key k, int i) : id(i) { key = k; }
  int id;
};

int id_of(PostedEntry* entry) { return entry ? static_cast<TestRecv*>(entry)->id : -1; }
int id_of(UnexpectedEntry* entry) { return entry ? static_cast<TestMsg*>(entry)->id : -1; }

uint32_t bin_of_key(const Key& key) { return bin_of(pack(key)); }

// A tag t >= `from`, with {context_id, source, t} in the same bin as `other`.
int32_t colliding_tag(uint32_t context_id, int32_t source, const Key& other, int32_t from) {
  for (int32_t tag = from; tag <= kTagUb; ++tag) {
    if (bin_of_key(Key{context_id, source, tag}) == bin_of_key(other)) return tag;
  }
  ADD_FAILURE() << "no colliding tag";
  return from;
}

// ---------------------------------------------------------------- keys

TEST(MatchKey, Limits) {
  EXPECT_EQ(kTagUb, (1 << 28) - 1);
  EXPECT_GE(kTagUb, (1 << 22) - 1);
  EXPECT_EQ(kMaxRanks, 1 << 20);
  EXPECT_EQ(kMaxContextId, 0xffffu);
  EXPECT_EQ(kBins, 1021u);
}

TEST(MatchKey, PackLayout) {
  const Key key{0x1234, 0xabcde, 0x7654321};
  EXPECT_EQ(pack(key), 0x1234'abcde'7654321ull);
  EXPECT_EQ(unpack(pack(key)), key);
  const Key top{kMaxContextId, kMaxRanks - 1, kTagUb};
  EXPECT_EQ(pack(top), ~uint64_t{0});
  EXPECT_EQ(unpack(pack(top)), top);
  EXPECT_EQ(pack(Key{0, 0, 0}), 0u);
}

TEST(MatchKey, WildcardsPackAsZeroAndAreIgnored) {
  EXPECT_EQ(pack(Key{7, kAnySource, 5}), pack(Key{7, 0, 5}));
  EXPECT_EQ(pack(Key{7, 3, kAnyTag}), pack(Key{7, 3, 0}));
  EXPECT_EQ(ignore_mask(Key{7, 3, 5}), 0u);
  EXPECT_EQ(ignore_mask(Key{7, kAnySource, 5}), 0x0000'fffff'0000000ull);
  EXPECT_EQ(ignore_mask(Key{7, 3, kAnyTag}), 0x0000'00000'fffffffull);
  EXPECT_EQ(ignore_mask(Key{7, kAnySource, kAnyTag}), 0x0000'fffff'fffffffull);
}

TEST(MatchKey, BinIsXorOfHalvesModulo1021) {
  const uint64_t packed = 0x1234'abcde'7654321ull;
  EXPECT_EQ(bin_of(packed), (0x1234abcdu ^ 0xe7654321u) % 1021u);
  EXPECT_EQ(bin_of(0), 0u);
  EXPECT_LT(bin_of(~uint64_t{0}), kBins);
}

// What the NIC computes from packed bits must agree with matches().
TEST(MatchKey, PackedMatchingAgreesWithMatches) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> small(0, 2);
  for (int i = 0; i < 20000; ++i) {
    const Key msg{static_cast<uint32_t>(small(rng)), small(rng), small(rng)};
    Key pattern{static_cast<uint32_t>(small(rng)), small(rng), small(rng)};
    if (small(rng) == 0) pattern.source = kAnySource;
    if (small(rng) == 0) pattern.tag = kAnyTag;
    const uint64_t ignore = ignore_mask(pattern);
    EXPECT_EQ(matches(pattern, msg), (pack(msg) | ignore) == (pack(pattern) | ignore));
  }
}

TEST(MatchKey, MatchesRules) {
  const Key msg{4, 2, 9};
  EXPECT_TRUE(matches(Key{4, 2, 9}, msg));
  EXPECT_TRUE(matches(Key{4, kAnySource, 9}, msg));
  EXPECT_TRUE(matches(Key{4, 2, kAnyTag}, msg));
  EXPECT_TRUE(matches(Key{4, kAnySource, kAnyTag}, msg));
  EXPECT_FALSE(matches(Key{5, kAnySource, kAnyTag}, msg));
  EXPECT_FALSE(matches(Key{4, 3, kAnyTag}, msg));
  EXPECT_FALSE(matches(Key{4, kAnySource, 8}, msg));
}

// ---------------------------------------------------------------- posted

TEST(PostedQueue, EmptyMatchesNothing) {
  PostedQueue queue;
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.match(Key{0, 0, 0}), nullptr);
}

TEST(PostedQueue, SameKeyIsFifo) {
  PostedQueue queue;
  TestRecv a({0, 1, 2}, 1), b({0, 1, 2}, 2);
  queue.post(&a);
  queue.post(&b);
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 1);
  EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 2);
  EXPECT_EQ(queue.match(Key{0, 1, 2}), nullptr);
  EXPECT_TRUE(queue.empty());
}

TEST(PostedQueue, OlderExactBeatsNewerWildcard) {
  PostedQueue queue;
  TestRecv exact({0, 1, 2}, 1), any({0, kAnySource, kAnyTag}, 2);
  queue.post(&exact);
  queue.post(&any);
  EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 1);
  EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 2);
}

TEST(PostedQueue, OlderWildcardBeatsNewerExact) {
  for (const Key pattern :
       {Key{0, kAnySource, 2}, Key{0, 1, kAnyTag}, Key{0, kAnySource, kAnyTag}}) {
    PostedQueue queue;
    TestRecv any(pattern, 1), exact({0, 1, 2}, 2);
    queue.post(&any);
    queue.post(&exact);
    EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 1);
    EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 2);
  }
}

TEST(PostedQueue, WildcardsInterleavedWithExactKeepPostingOrder) {
  PostedQueue queue;
  TestRecv r0({0, 1, 2}, 0), r1({0, kAnySource, 2}, 1), r2({0, 1, 2}, 2), r3({0, 1, kAnyTag}, 3);
  for (TestRecv* r : {&r0, &r1, &r2, &r3}) queue.post(r);
  for (int expected = 0; expected < 4; ++expected)
    EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), expected);
}

TEST(PostedQueue, WildcardSource) {
  PostedQueue queue;
  TestRecv any({3, kAnySource, 7}, 1);
  queue.post(&any);
  EXPECT_EQ(queue.match(Key{3, 5, 8}), nullptr);
  EXPECT_EQ(queue.match(Key{4, 5, 7}), nullptr);
  EXPECT_EQ(id_of(queue.match(Key{3, 5, 7})), 1);
}

TEST(PostedQueue, WildcardTag) {
  PostedQueue queue;
  TestRecv any({3, 5, kAnyTag}, 1);
  queue.post(&any);
  EXPECT_EQ(queue.match(Key{3, 6, 7}), nullptr);
  EXPECT_EQ(id_of(queue.match(Key{3, 5, kTagUb})), 1);
}

TEST(PostedQueue, WildcardSourceAndTag) {
  PostedQueue queue;
  TestRecv any({3, kAnySource, kAnyTag}, 1);
  queue.post(&any);
  EXPECT_EQ(queue.match(Key{2, 5, 7}), nullptr);
  EXPECT_EQ(id_of(queue.match(Key{3, kMaxRanks - 1, 0})), 1);
}

TEST(PostedQueue, DifferentContextsNeverMatch) {
  PostedQueue queue;
  TestRecv exact({1, 0, 0}, 1), any({1, kAnySource, kAnyTag}, 2);
  queue.post(&exact);
  queue.post(&any);
  for (uint32_t context_id : {0u, 2u, 1u + (1u << 16)})
    EXPECT_EQ(queue.match(Key{context_id, 0, 0}), nullptr);
  EXPECT_EQ(queue.size(), 2u);
}

TEST(PostedQueue, RemoveForCancel) {
  PostedQueue queue;
  TestRecv a({0, 1, 2}, 1), b({0, 1, 2}, 2), w({0, kAnySource, 2}, 3);
  queue.post(&a);
  queue.post(&b);
  queue.post(&w);
  EXPECT_TRUE(queue.remove(&a));
  EXPECT_FALSE(queue.remove(&a));
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 2);
  EXPECT_FALSE(queue.remove(&b));  // already matched
  EXPECT_TRUE(queue.remove(&w));
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.match(Key{0, 1, 2}), nullptr);

  TestRecv never({0, 0, 0}, 4);
  EXPECT_FALSE(queue.remove(&never));
  queue.post(&a);  // an entry can be posted again after cancel
  EXPECT_EQ(id_of(queue.match(Key{0, 1, 2})), 1);
}

TEST(PostedQueue, BinCollisionsStillMatchTheRightEntry) {
  const Key a{0, 1, 0};
  const Key b{0, 0, colliding_tag(0, 0, a, 1)};
  const Key c{1, 2, colliding_tag(1, 2, a, 0)};
  ASSERT_EQ(bin_of_key(a), bin_of_key(b));
  ASSERT_EQ(bin_of_key(a), bin_of_key(c));
  PostedQueue queue;
  TestRecv ra(a, 1), rb(b, 2), rc(c, 3), rb2(b, 4);
  for (TestRecv* r : {&ra, &rb, &rc, &rb2}) queue.post(r);
  EXPECT_EQ(id_of(queue.match(c)), 3);
  EXPECT_EQ(id_of(queue.match(b)), 2);
  EXPECT_EQ(id_of(queue.match(b)), 4);
  EXPECT_EQ(queue.match(b), nullptr);
  EXPECT_EQ(id_of(queue.match(a)), 1);
  EXPECT_TRUE(queue.empty());
}

constexpr int kDeep = 32768;

// Tags whose exact keys avoid the bin of `target`.
std::vector<int32_t> tags_outside_bin(const Key& target, int count) {
  std::vector<int32_t> tags;
  for (int32_t tag = 0; static_cast<int>(tags.size()) < count; ++tag) {
    const Key key{target.context_id, target.source, tag};
    if (tag != target.tag && bin_of_key(key) != bin_of_key(target)) tags.push_back(tag);
  }
  return tags;
}

TEST(PostedQueue, ExactMatchCostIndependentOfDepth) {
  const Key target{5, 3, 123456};
  std::vector<std::unique_ptr<TestRecv>> others;
  PostedQueue queue;
  for (int32_t tag : tags_outside_bin(target, kDeep)) {
    others.push_back(std::make_unique<TestRecv>(Key{target.context_id, target.source, tag}, 0));
    queue.post(others.back().get());
  }
  TestRecv wanted(target, 1);
  queue.post(&wanted);
  ASSERT_EQ(queue.size(), static_cast<size_t>(kDeep + 1));
  queue.reset_stats();
  EXPECT_EQ(id_of(queue.match(target)), 1);
  EXPECT_EQ(queue.stats().searches, 1u);
  EXPECT_EQ(queue.stats().examined, 1u);
  queue.reset_stats();
  EXPECT_EQ(queue.match(target), nullptr);
  EXPECT_EQ(queue.stats().examined, 0u);
}

TEST(PostedQueue, CollidingDepthIsCounted) {
  const Key target{0, 0, 0};
  std::vector<std::unique_ptr<TestRecv>> others;
  PostedQueue queue;
  int32_t tag = 0;
  for (int i = 0; i < 100; ++i) {
    tag = colliding_tag(0, 0, target, tag + 1);
    others.push_back(std::make_unique<TestRecv>(Key{0, 0, tag}, 0));
    queue.post(others.back().get());
  }
  TestRecv wanted(target, 1);
  queue.post(&wanted);
  queue.reset_stats();
  EXPECT_EQ(id_of(queue.match(target)), 1);
  EXPECT_EQ(queue.stats().examined, 101u);
}

TEST(PostedQueue, NewerWildcardsAreNotExamined) {
  const Key target{0, 1, 7};
  PostedQueue queue;
  TestRecv wanted(target, 1);
  queue.post(&wanted);
  std::vector<std::unique_ptr<TestRecv>> wildcards;
  for (int i = 0; i < 1000; ++i) {
    wildcards.push_back(std::make_unique<TestRecv>(Key{0, kAnySource, kAnyTag}, 2));
    queue.post(wildcards.back().get());
  }
  queue.reset_stats();
  EXPECT_EQ(id_of(queue.match(target)), 1);
  EXPECT_EQ(queue.stats().examined, 1u);
}

// ---------------------------------------------------------------- unexpected

TEST(UnexpectedQueue, ExactFindReturnsOldest) {
  UnexpectedQueue queue;
  TestMsg a({0, 1, 2}, 1), b({0, 1, 3}, 2), c({0, 1, 2}, 3);
  for (TestMsg* m : {&a, &b, &c}) queue.push(m);
  EXPECT_EQ(id_of(queue.find(Key{0, 1, 2})), 1);
  EXPECT_EQ(id_of(queue.find(Key{0, 1, 2})), 1);  // probe leaves it queued
  EXPECT_EQ(queue.size(), 3u);
  EXPECT_EQ(id_of(queue.take(Key{0, 1, 2})), 1);
  EXPECT_EQ(id_of(queue.take(Key{0, 1, 2})), 3);
  EXPECT_EQ(queue.take(Key{0, 1, 2}), nullptr);
  EXPECT_EQ(queue.find(Key{1, 1, 3}), nullptr);
  EXPECT_EQ(id_of(queue.take(Key{0, 1, 3})), 2);
  EXPECT_TRUE(queue.empty());
}

TEST(UnexpectedQueue, WildcardFindReturnsOldest) {
  UnexpectedQueue queue;
  TestMsg m0({0, 4, 9}, 0), m1({1, 2, 5}, 1), m2({0, 2, 5}, 2), m3({0, 3, 5}, 3), m4({0, 2, 6}, 4);
  for (TestMsg* m : {&m0, &m1, &m2, &m3, &m4}) queue.push(m);
  EXPECT_EQ(id_of(queue.find(Key{0, kAnySource, kAnyTag})), 0);
  EXPECT_EQ(id_of(queue.find(Key{1, kAnySource, kAnyTag})), 1);
  EXPECT_EQ(id_of(queue.find(Key{0, kAnySource, 5})), 2);
  EXPECT_EQ(id_of(queue.find(Key{0, 2, kAnyTag})), 2);
  EXPECT_EQ(id_of(queue.find(Key{0, 3, kAnyTag})), 3);
  EXPECT_EQ(queue.find(Key{2, kAnySource, kAnyTag}), nullptr);
  EXPECT_EQ(queue.find(Key{0, 5, kAnyTag}), nullptr);

  EXPECT_EQ(id_of(queue.take(Key{0, kAnySource, 5})), 2);
  EXPECT_EQ(id_of(queue.take(Key{0, kAnySource, 5})), 3);
  EXPECT_EQ(id_of(queue.take(Key{0, 2, kAnyTag})), 4);
  EXPECT_EQ(id_of(queue.take(Key{0, kAnySource, kAnyTag})), 0);
  EXPECT_EQ(id_of(queue.take(Key{1, 2, 5})), 1);
  EXPECT_TRUE(queue.empty());
}

TEST(UnexpectedQueue, RemoveUnlinksFromBothLists) {
  UnexpectedQueue queue;
  TestMsg a({0, 1, 2}, 1), b({0, 1, 2}, 2);
  queue.push(&a);
  queue.push(&b);
  queue.remove(&a);
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(id_of(queue.find(Key{0, 1, 2})), 2);
  EXPECT_EQ(id_of(queue.find(Key{0, kAnySource, kAnyTag})), 2);
  queue.push(&a);  // reused for a later arrival
  EXPECT_EQ(id_of(queue.take(Key{0, kAnySource, 2})), 2);
  EXPECT_EQ(id_of(queue.take(Key{0, 1, 2})), 1);
  EXPECT_TRUE(queue.empty());
}

TEST(UnexpectedQueue, BinCollisionsStillFindTheRightEntry) {
  const Key a{0, 1, 0};
  const Key b{0, 0, colliding_tag(0, 0, a, 1)};
  const Key c{1, 2, colliding_tag(1, 2, a, 0)};
  ASSERT_EQ(bin_of_key(a), bin_of_key(b));
  ASSERT_EQ(bin_of_key(a), bin_of_key(c));
  UnexpectedQueue queue;
  TestMsg mc(c, 1), mb(b, 2), ma(a, 3), mb2(b, 4);
  for (TestMsg* m : {&mc, &mb, &ma, &mb2}) queue.push(m);
  EXPECT_EQ(id_of(queue.find(a)), 3);
  EXPECT_EQ(id_of(queue.take(b)), 2);
  EXPECT_EQ(id_of(queue.take(b)), 4);
  EXPECT_EQ(queue.find(b), nullptr);
  EXPECT_EQ(id_of(queue.take(Key{0, kAnySource, kAnyTag})), 3);
  EXPECT_EQ(id_of(queue.take(c)), 1);
}

TEST(UnexpectedQueue, ExactFindCostIndependentOfDepth) {
  const Key target{5, 3, 123456};
  std::vector<std::unique_ptr<TestMsg>> others;
  UnexpectedQueue queue;
  for (int32_t tag : tags_outside_bin(target, kDeep)) {
    others.push_back(std::make_unique<TestMsg>(Key{target.context_id, target.source, tag}, 0));
    queue.push(others.back().get());
  }
  TestMsg wanted(target, 1);
  queue.push(&wanted);
  queue.reset_stats();
  EXPECT_EQ(id_of(queue.take(target)), 1);
  EXPECT_EQ(queue.stats().searches, 1u);
  EXPECT_EQ(queue.stats().examined, 1u);
}

// ---------------------------------------------------------------- randomized

// The obvious matcher: one list per queue, scanned in order.
class ReferenceMatcher {
 public:
  struct Item {
    Key key;
    int id;
  };

  void post(const Key& pattern, int id) { posted_.push_back({pattern, id}); }
  void push(const Key& msg, int id) { unexpected_.push_back({msg, id}); }

  int match(const Key& msg) {
    for (auto it = posted_.begin(); it != posted_.end(); ++it) {
      if (matches(it->key, msg)) return erase(posted_, it);
    }
    return -1;
  }
  int find(const Key& pattern) const {
    for (const Item& item : unexpected_) {
      if (matches(pattern, item.key)) return item.id;
    }
    return -1;
  }
  int take(const Key& pattern) {
    for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
      if (matches(pattern, it->key)) return erase(unexpected_, it);
    }
    return -1;
  }
  bool remove_posted(int id) {
    for (auto it = posted_.begin(); it != posted_.end(); ++it) {
      if (it->id == id) {
        posted_.erase(it);
        return true;
      }
    }
    return false;
  }
  void remove_unexpected(int id) {
    for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
      if (it->id == id) {
        unexpected_.erase(it);
        return;
      }
    }
  }

  size_t posted_size() const { return posted_.size(); }
  size_t unexpected_size() const { return unexpected_.size(); }
  const std::list<Item>& posted() const { return posted_; }

 private:
  static int erase(std::list<Item>& list, std::list<Item>::iterator it) {
    const int id = it->id;
    list.erase(it);
    return id;
  }

  std::list<Item> posted_;
  std::list<Item> unexpected_;
};

// Small key space with deliberate bin collisions across contexts, sources
// and tags, so that matches, wildcards and shared bins are all frequent.
struct KeySpace {
  std::vector<uint32_t> contexts{0, 1};
  std::vector<int32_t> sources{0, 1, 2};
  std::vector<int32_t> tags{0, 1, 2};

  KeySpace() {
    tags.push_back(colliding_tag(0, 0, Key{0, 1, 0}, 3));
    tags.push_back(colliding_tag(0, 2, Key{1, 0, 1}, 3));
    tags.push_back(colliding_tag(1, 1, Key{1, 1, 2}, 3));
  }

  int colliding_pairs() const {
    std::vector<Key> keys;
    for (uint32_t c : contexts)
      for (int32_t s : sources)
        for (int32_t t : tags) keys.push_back(Key{c, s, t});
    int pairs = 0;
    for (size_t i = 0; i < keys.size(); ++i)
      for (size_t j = i + 1; j < keys.size(); ++j)
        pairs += bin_of_key(keys[i]) == bin_of_key(keys[j]);
    return pairs;
  }

  template <class Rng>
  Key message(Rng& rng) const {
    return Key{pick(contexts, rng), pick(sources, rng), pick(tags, rng)};
  }

  template <class Rng>
  Key pattern(Rng& rng) const {
    Key key = message(rng);
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) key.source = kAnySource;
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) key.tag = kAnyTag;
    return key;
  }

  template <class T, class Rng>
  static T pick(const std::vector<T>& values, Rng& rng) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
  }
};

TEST(MatchKeySpace, HasCollisions) { EXPECT_GE(KeySpace{}.colliding_pairs(), 3); }

class MatchRandomized : public ::testing::TestWithParam<uint64_t> {};

TEST_P(MatchRandomized, AgreesWithLinearReference) {
  const KeySpace space;
  std::mt19937_64 rng(GetParam());
  PostedQueue posted;
  UnexpectedQueue unexpected;
  ReferenceMatcher reference;
  std::vector<std::unique_ptr<TestRecv>> recvs;
  std::vector<std::unique_ptr<TestMsg>> msgs;

  auto new_recv = [&](const Key& pattern) {
    recvs.push_back(std::make_unique<TestRecv>(pattern, static_cast<int>(recvs.size())));
    posted.post(recvs.back().get());
    reference.post(pattern, recvs.back()->id);
  };
  auto new_msg = [&](const Key& msg) {
    msgs.push_back(std::make_unique<TestMsg>(msg, static_cast<int>(msgs.size())));
    unexpected.push(msgs.back().get());
    reference.push(msg, msgs.back()->id);
  };

  enum Op { kPost, kArrive, kReceive, kProbe, kCancel, kMprobe, kOpCount };
  std::discrete_distribution<int> op_dist({15, 35, 25, 10, 10, 5});
  constexpr int kSteps = 20000;
  int matched = 0, taken = 0, cancelled = 0;
  for (int step = 0; step < kSteps; ++step) {
    const int op = op_dist(rng);
    SCOPED_TRACE(testing::Message() << "step " << step << " op " << op);
    switch (op) {
      case kPost: new_recv(space.pattern(rng)); break;
      case kArrive: {
        const Key msg = space.message(rng);
        const int got = id_of(posted.match(msg));
        ASSERT_EQ(got, reference.match(msg));
        if (got < 0) new_msg(msg);
        else ++matched;
        break;
      }
      case kReceive: {
        const Key pattern = space.pattern(rng);
        const int got = id_of(unexpected.take(pattern));
        ASSERT_EQ(got, reference.take(pattern));
        if (got < 0) new_recv(pattern);
        else ++taken;
        break;
      }
      case kProbe: {
        const Key pattern = space.pattern(rng);
        ASSERT_EQ(id_of(unexpected.find(pattern)), reference.find(pattern));
        break;
      }
      case kCancel: {
        if (recvs.empty()) break;
        // Recent receives are likelier to be still queued.
        const size_t back =
            std::uniform_int_distribution<size_t>(0, std::min<size_t>(recvs.size() - 1, 50))(rng);
        TestRecv* recv = recvs[recvs.size() - 1 - back].get();
        const bool removed = posted.remove(recv);
        ASSERT_EQ(removed, reference.remove_posted(recv->id));
        cancelled += removed;
        break;
      }
      case kMprobe: {
        const Key pattern = space.pattern(rng);
        UnexpectedEntry* found = unexpected.find(pattern);
        ASSERT_EQ(id_of(found), reference.find(pattern));
        if (found) {
          unexpected.remove(found);
          reference.remove_unexpected(id_of(found));
        }
        break;
      }
      default: FAIL();
    }
    ASSERT_EQ(posted.size(), reference.posted_size());
    ASSERT_EQ(unexpected.size(), reference.unexpected_size());
  }
  // Every kind of outcome happened.
  EXPECT_GT(matched, kSteps / 20);
  EXPECT_GT(taken, kSteps / 20);
  EXPECT_GT(cancelled, 0);

  // What remains posted is exactly what the reference holds.
  for (const ReferenceMatcher::Item& item : reference.posted())
    EXPECT_TRUE(posted.remove(recvs[item.id].get()));
  EXPECT_TRUE(posted.empty());
  while (UnexpectedEntry* msg = unexpected.take(Key{0, kAnySource, kAnyTag})) {
    EXPECT_EQ(id_of(msg), reference.take(Key{0, kAnySource, kAnyTag}));
  }
  while (UnexpectedEntry* msg = unexpected.take(Key{1, kAnySource, kAnyTag})) {
    EXPECT_EQ(id_of(msg), reference.take(Key{1, kAnySource, kAnyTag}));
  }
  EXPECT_TRUE(unexpected.empty());
  EXPECT_EQ(reference.unexpected_size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, MatchRandomized,
                         ::testing::Values(1, 2, 3, 42, 1234, 987654321, 0xdeadbeef, 20240611));

}  // namespace
}  // namespace stmpi::dev::match
