// Node-aware collectives (node.h). Each is a chain of ordinary algorithms
// over lists of ranks: binomial trees inside a node (rooted at the node's
// leader), then recursive doubling, a binomial tree or dissemination among
// the leaders, all in one schedule on the communicator's collective tag.
// Two phases never send between the same pair of processes in the same
// direction, so FIFO matching per source keeps them apart.
//
// bcast: leaders' binomial tree from the root (the root leads its node),
//   then each node's binomial tree from its leader.
// reduce: each node's binomial reduce to its leader (the root on its own
//   node), then the leaders' binomial reduce to the root.
// allreduce: node reduce to the lowest rank of each node, recursive
//   doubling among those leaders, node bcast.
// barrier: the allreduce's pattern with empty messages (dissemination
//   among the leaders).
#include "mpi/coll/node.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "device/device.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/coll/settings.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {
namespace {

using Ranks = std::vector<int>;

int index_of(const Ranks& ranks, int rank) {
  return static_cast<int>(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin());
}

// Binomial reduce over `ranks` toward ranks[root]: `acc` holds this
// process's contribution and, at the root, ends with the result.
// Commutative ops only (children combine in tree order).
void list_reduce(Schedule& s, void* acc, void* tmp, MPI_Count count, Datatype& type,
                 const Ranks& ranks, int me, int root) {
  const int m = static_cast<int>(ranks.size());
  const int v = (me - root + m) % m;
  auto actual = [&](int x) { return ranks[(x + root) % m]; };
  for (int mask = 1; mask < m; mask <<= 1) {
    if (v & mask) {
      s.send(acc, count, type, actual(v - mask));
      s.fence();
      return;
    }
    if (v + mask < m) {
      s.recv(tmp, count, type, actual(v + mask));
      s.fence();
      s.reduce(tmp, acc, count);
    }
  }
  s.fence();
}

// Binomial bcast over `ranks` from ranks[root].
void list_bcast(Schedule& s, void* buf, MPI_Count count, Datatype& type, const Ranks& ranks, int me,
                int root) {
  const int m = static_cast<int>(ranks.size());
  const int v = (me - root + m) % m;
  auto actual = [&](int x) { return ranks[(x + root) % m]; };
  int mask = 1;
  while (mask < m) {
    if (v & mask) {
      s.recv(buf, count, type, actual(v - mask));
      s.fence();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < m) s.send(buf, count, type, actual(v + mask));
  s.fence();
}

// Recursive doubling allreduce over `ranks` (non-powers of two fold the
// first 2r members pairwise), commutative ops.
void list_allreduce(Schedule& s, void* acc, void* tmp, MPI_Count count, Datatype& type,
                    const Ranks& ranks, int me) {
  const int m = static_cast<int>(ranks.size());
  int pof2 = 1;
  while (pof2 * 2 <= m) pof2 *= 2;
  const int rem = m - pof2;
  int newrank = me - rem;
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      s.send(acc, count, type, ranks[me + 1]);
      newrank = -1;
    } else {
      s.recv(tmp, count, type, ranks[me - 1]);
      s.fence();
      s.reduce(tmp, acc, count);
      newrank = me / 2;
    }
    s.fence();
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int pn = newrank ^ mask;
      const int partner = ranks[pn < rem ? pn * 2 + 1 : pn + rem];
      s.send(acc, count, type, partner);
      s.recv(tmp, count, type, partner);
      s.fence();
      s.reduce(tmp, acc, count);
    }
  }
  if (me < 2 * rem) {
    if (me % 2 == 1) s.send(acc, count, type, ranks[me - 1]);
    else s.recv(acc, count, type, ranks[me + 1]);
  }
  s.fence();
}

void list_dissemination(Schedule& s, const Ranks& ranks, int me) {
  const int m = static_cast<int>(ranks.size());
  Datatype& bytes = byte_type();
  for (int d = 1; d < m; d <<= 1) {
    s.send(nullptr, 0, bytes, ranks[(me + d) % m]);
    s.recv(nullptr, 0, bytes, ranks[(me - d + m) % m]);
    s.fence();
  }
}

}  // namespace

const NodeLayout& node_layout(Comm& comm) {
  if (comm.node_layout) return *comm.node_layout;
  auto layout = std::make_shared<NodeLayout>();
  const int n = comm.size;
  layout->node_of.resize(static_cast<std::size_t>(n));
  std::unordered_map<int, int> index;  // device node -> node index
  for (int r = 0; r < n; ++r) {
    const int node = dev::peer_info(comm.world_rank(r)).node;
    auto [it, added] = index.try_emplace(node, static_cast<int>(layout->leaders.size()));
    if (added) {
      layout->leaders.push_back(r);
      layout->members.emplace_back();
    }
    layout->node_of[static_cast<std::size_t>(r)] = it->second;
    layout->members[static_cast<std::size_t>(it->second)].push_back(r);
  }
  const bool shared = std::any_of(layout->members.begin(), layout->members.end(),
                                  [](const Ranks& m) { return m.size() > 1; });
  layout->hierarchical = layout->leaders.size() > 1 && shared;
  comm.node_layout = std::move(layout);
  return *comm.node_layout;
}

bool node_aware_auto(Comm& comm, std::size_t bytes, bool commutative) {
  if (comm.is_inter() || !commutative || comm.size < 3) return false;
  if (bytes >= settings().node_aware_max_bytes) return false;
  return node_layout(comm).hierarchical;
}

void node_barrier(Schedule& s) {
  const NodeLayout& layout = node_layout(s.comm());
  const int rank = s.rank();
  const int k = layout.node_of[static_cast<std::size_t>(rank)];
  const Ranks& mine = layout.members[static_cast<std::size_t>(k)];
  const int me = index_of(mine, rank);
  Datatype& bytes = byte_type();
  list_reduce(s, nullptr, nullptr, 0, bytes, mine, me, 0);
  if (me == 0) list_dissemination(s, layout.leaders, k);
  list_bcast(s, nullptr, 0, bytes, mine, me, 0);
}

void node_bcast(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root) {
  const NodeLayout& layout = node_layout(s.comm());
  const int rank = s.rank();
  const int k = layout.node_of[static_cast<std::size_t>(rank)];
  const int root_node = layout.node_of[static_cast<std::size_t>(root)];
  Ranks leaders = layout.leaders;
  leaders[static_cast<std::size_t>(root_node)] = root;  // the root leads its node
  const int leader = leaders[static_cast<std::size_t>(k)];
  const Ranks& mine = layout.members[static_cast<std::size_t>(k)];
  if (rank == leader) list_bcast(s, buf, count, type, leaders, k, root_node);
  list_bcast(s, buf, count, type, mine, index_of(mine, rank), index_of(mine, leader));
}

void node_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
                 int root) {
  const NodeLayout& layout = node_layout(s.comm());
  const int rank = s.rank();
  const int k = layout.node_of[static_cast<std::size_t>(rank)];
  const int root_node = layout.node_of[static_cast<std::size_t>(root)];
  Ranks leaders = layout.leaders;
  leaders[static_cast<std::size_t>(root_node)] = root;
  const int leader = leaders[static_cast<std::size_t>(k)];
  const Ranks& mine = layout.members[static_cast<std::size_t>(k)];
  void* acc = recvbuf;
  if (rank != root) {
    acc = s.scratch(count, type);
    s.copy(sendbuf, count, type, acc, count, type);
  } else if (sendbuf != MPI_IN_PLACE) {
    s.copy(sendbuf, count, type, recvbuf, count, type);
  }
  void* tmp = s.scratch(count, type);
  list_reduce(s, acc, tmp, count, type, mine, index_of(mine, rank), index_of(mine, leader));
  if (rank == leader) list_reduce(s, acc, tmp, count, type, leaders, k, root_node);
}

void node_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                    Datatype& type) {
  const NodeLayout& layout = node_layout(s.comm());
  const int rank = s.rank();
  const int k = layout.node_of[static_cast<std::size_t>(rank)];
  const Ranks& mine = layout.members[static_cast<std::size_t>(k)];
  const int me = index_of(mine, rank);
  if (sendbuf != MPI_IN_PLACE) s.copy(sendbuf, count, type, recvbuf, count, type);
  void* tmp = s.scratch(count, type);
  list_reduce(s, recvbuf, tmp, count, type, mine, me, 0);
  if (me == 0) list_allreduce(s, recvbuf, tmp, count, type, layout.leaders, k);
  list_bcast(s, recvbuf, count, type, mine, me, 0);
}

}  // namespace stmpi::mpi::coll
