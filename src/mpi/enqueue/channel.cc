// Channels (channel.h): the slot protocol, the sender's segment space and
// the receiver's mappings of other ranks' segments.
#include "mpi/enqueue/channel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <list>
#include <unordered_map>
#include <vector>

#include "mpi/datatype/datatype.h"
#include "pmi/client.h"
#include "stream/stream.h"
#include "util/param.h"
#include "util/shm_segment.h"

namespace stmpi::mpi::enqueue {

namespace {

std::size_t g_max_bytes = 16384;
int g_slots = 4;
bool g_refuse = false;

const util::Param kParams[] = {
    {"channel_bytes", util::Param::Type::kSize, &g_max_bytes, "16K",
     "largest round of a persistent stream transfer between two ranks of one node that moves "
     "through shared-memory slots (packed by the sender, unpacked by the receiver) instead of "
     "a matched message per round; 0: every round is a message",
     0, 1LL << 24},
    {"channel_slots", util::Param::Type::kInt, &g_slots, "4",
     "slots of such a channel: how many rounds a sender's stream may run ahead of its receiver "
     "once rounds run as stream operations (before that, a sender keeps the rounds no slot "
     "takes in a backlog of its own)",
     1, 64},
    {"channel_refuse", util::Param::Type::kBool, &g_refuse, "no",
     "for tests: receivers refuse every channel, as they would if they could not map the "
     "sender's segment, so senders fall back to messages (rounds already written are re-sent)"},
};
const util::ParamTable kTable{"enqueue", kParams};
const util::ParamRegistration kRegistration{&kTable};

constexpr std::size_t kLine = 64;
constexpr std::size_t kChunkBytes = 256 * 1024;

// The shared header; the slots follow it.
struct alignas(kLine) Header {
  alignas(kLine) std::atomic<uint64_t> written{0};   // sender
  alignas(kLine) std::atomic<uint64_t> consumed{0};  // receiver
  std::atomic<uint32_t> attached{0};                 // receiver mapped it
  std::atomic<uint32_t> detached{0};                 // receiver's transfer is gone
};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(sizeof(Header) == 2 * kLine);

std::size_t round_up(std::size_t n) { return (n + kLine - 1) / kLine * kLine; }

// This rank's segments, and their free space.
struct Chunk {
  util::ShmSegment segment;
  std::size_t used = 0;
};
struct Space {
  Chunk* chunk;
  std::size_t offset;
  std::size_t bytes;
};

std::list<Chunk> g_chunks;
std::vector<Space> g_free;
std::vector<Channel*> g_orphans;  // senders gone, receivers not done
// Other ranks' segments this rank mapped, by name.
std::unordered_map<std::string, util::ShmSegment> g_mapped;

}  // namespace

class Channel {
 public:
  Header* header = nullptr;
  char* slots = nullptr;
  std::size_t slot_bytes = 0;
  uint32_t count = 0;
  Space space{};  // sender: where it lives

  char* slot(uint64_t round) const { return slots + (round - 1) % count * slot_bytes; }
};

std::size_t channel_max_bytes() { return g_max_bytes; }
bool channel_refuse() { return g_refuse; }

namespace {

// Space is reused only once the receiver's transfer is gone: a receiver
// still holding the channel must never see another transfer's counters.
bool drained(const Channel* c) { return c->header->detached.load(std::memory_order_acquire) != 0; }

void give_back(Channel* c) {
  g_free.push_back(c->space);
  delete c;
}

void reclaim_orphans() {
  std::erase_if(g_orphans, [](Channel* c) {
    if (!drained(c)) return false;
    give_back(c);
    return true;
  });
}

bool allocate(std::size_t bytes, Space* out) {
  reclaim_orphans();
  // Exact sizes first: persistent transfers of one program repeat a few sizes.
  for (auto it = g_free.begin(); it != g_free.end(); ++it) {
    if (it->bytes != bytes) continue;
    *out = *it;
    g_free.erase(it);
    return true;
  }
  Chunk* chunk = nullptr;
  for (Chunk& c : g_chunks)
    if (c.segment.bytes() - c.used >= bytes) chunk = &c;
  if (chunk == nullptr) {
    Chunk fresh;
    std::string error;
    if (!fresh.segment.create(pmi::client().kvsname(), "chan", std::max(kChunkBytes, bytes),
                              &error))
      return false;
    g_chunks.push_back(std::move(fresh));
    chunk = &g_chunks.back();
  }
  *out = {chunk, chunk->used, bytes};
  chunk->used += bytes;
  return true;
}

}  // namespace

Channel* channel_create(std::size_t bytes, ChannelRef* ref) {
  *ref = ChannelRef{};
  if (bytes == 0 || bytes > g_max_bytes) return nullptr;
  const std::size_t slot_bytes = round_up(bytes);
  const auto slots = static_cast<uint32_t>(g_slots);
  Space space{};
  if (!allocate(sizeof(Header) + slot_bytes * slots, &space)) return nullptr;
  const std::string& name = space.chunk->segment.name();
  if (name.size() >= sizeof ref->segment) {
    g_free.push_back(space);
    return nullptr;
  }
  char* base = space.chunk->segment.base() + space.offset;
  auto* c = new Channel;
  c->header = new (base) Header;
  c->slots = base + sizeof(Header);
  c->slot_bytes = slot_bytes;
  c->count = slots;
  c->space = space;
  std::memcpy(ref->segment, name.c_str(), name.size() + 1);
  ref->segment_bytes = space.chunk->segment.bytes();
  ref->offset = space.offset;
  ref->slot_bytes = slot_bytes;
  ref->slots = slots;
  return c;
}

Channel* channel_attach(const ChannelRef& ref, std::string* error) {
  if (g_refuse) {
    *error = "refused (STMPI_ENQUEUE_CHANNEL_REFUSE)";
    return nullptr;
  }
  const std::string name(ref.segment, strnlen(ref.segment, sizeof ref.segment));
  auto it = g_mapped.find(name);
  if (it == g_mapped.end()) {
    util::ShmSegment segment;
    if (!segment.open(name, ref.segment_bytes, error)) return nullptr;
    it = g_mapped.emplace(name, std::move(segment)).first;
  }
  const std::size_t need = sizeof(Header) + ref.slot_bytes * ref.slots;
  if (ref.offset % kLine != 0 || ref.offset > it->second.bytes() ||
      it->second.bytes() - ref.offset < need || ref.slots == 0) {
    *error = "the channel lies outside segment " + name;
    return nullptr;
  }
  auto* c = new Channel;
  c->header = reinterpret_cast<Header*>(it->second.base() + ref.offset);
  c->slots = it->second.base() + ref.offset + sizeof(Header);
  c->slot_bytes = ref.slot_bytes;
  c->count = ref.slots;
  c->header->attached.store(1, std::memory_order_release);
  return c;
}

bool channel_writable(const Channel* c, uint64_t round) {
  const Header& h = *c->header;
  return round <= c->count || h.detached.load(std::memory_order_acquire) != 0 ||
         h.consumed.load(std::memory_order_acquire) >= round - c->count;
}

void* channel_slot(const Channel* c, uint64_t round) { return c->slot(round); }

void channel_publish(Channel* c, uint64_t round) {
  c->header->written.store(round, std::memory_order_release);
}

bool channel_read(Channel* c, uint64_t round, std::size_t bytes, void* buf, std::int64_t count,
                  const Datatype& type) {
  Header& h = *c->header;
  if (h.written.load(std::memory_order_acquire) < round) return false;
  const auto capacity = static_cast<std::size_t>(count * type.size);
  const std::size_t copy = std::min(bytes, capacity);
  const char* slot = c->slot(round);
  if (type.contiguous) std::memcpy(static_cast<char*>(buf) + type.true_lb, slot, copy);
  else type.unpack(slot, static_cast<MPI_Count>(copy), count, buf);
  h.consumed.store(round, std::memory_order_release);
  return true;
}

bool channel_attached(const Channel* c) {
  return c->header->attached.load(std::memory_order_acquire) != 0;
}

void channel_release_sender(Channel* c, bool refused) {
  if (refused || drained(c)) give_back(c);
  else g_orphans.push_back(c);
}

void channel_release_receiver(Channel* c) {
  c->header->detached.store(1, std::memory_order_release);
  delete c;
}

namespace {

struct SlotStep {
  stream::SignalWait waits[2];
  stream::CopyRange copy;
  stream::SignalWrite write;
  stream::EpochStep step;
};

}  // namespace

class ChannelPrograms {
 public:
  std::vector<SlotStep> slots;
};

ChannelPrograms* channel_programs(Channel* c, bool sender, void* data, std::size_t bytes) {
  auto* p = new ChannelPrograms;
  p->slots.resize(c->count);
  auto* written = reinterpret_cast<uint64_t*>(&c->header->written);
  auto* consumed = reinterpret_cast<uint64_t*>(&c->header->consumed);
  for (uint32_t s = 0; s < c->count; ++s) {
    // Slot s's first round, k = s + 1, with base values (later rounds add
    // a multiple of the slot count). consumed >= k - slots wraps for the
    // first rounds, which the wrap-safe comparison reads as satisfied.
    const uint64_t k = s + 1;
    SlotStep& step = p->slots[s];
    if (sender) {
      step.waits[0] = {consumed, k - c->count};
      step.waits[1] = {written, k - 1};
      step.copy = {c->slot(k), data, bytes};
      step.write = {written, k};
    } else {
      step.waits[0] = {written, k};
      step.waits[1] = {consumed, k - 1};
      step.copy = {data, c->slot(k), bytes};
      step.write = {consumed, k};
    }
    step.step.waits = step.waits;
    step.step.cmp = stream::Cmp::kGreaterEqual;
    step.step.copies = {&step.copy, 1};
    step.step.writes = {&step.write, 1};
  }
  return p;
}

int channel_enqueue_round(ChannelPrograms* p, stream::Stream& stream, uint64_t round) {
  const uint64_t s = (round - 1) % p->slots.size();
  stream::StepProgram program;
  program.steps = {&p->slots[s].step, 1};
  program.bias = round - 1 - s;
  return stream.run_program(program);
}

void channel_programs_free(ChannelPrograms* p) { delete p; }

void free_channels() {
  for (Channel* c : g_orphans) delete c;
  g_orphans.clear();
  g_free.clear();
  g_chunks.clear();
  g_mapped.clear();
}

}  // namespace stmpi::mpi::enqueue
