// The device: the peer table, the one local-vs-remote branch (class Peers)
// in front of the concrete transports, and the device API over the message
// protocol (protocol/protocol.h). Network modules sit behind
// netmod/modules.h (the one selection point): this file names none of them.
#include "device/device.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <mpi.h>

#include "device/netmod/modules.h"
#include "device/protocol/protocol.h"
#include "device/shm/shm.h"
#include "device/transport.h"
#include "pmi/client.h"
#include "pmi/process_mapping.h"
#include "util/backoff.h"
#include "util/error.h"
#include "util/param.h"
#include "util/pvar.h"

namespace stmpi::dev {
namespace {

struct Settings {
  bool nolocal = false;
  bool verbose = false;
} g_settings;

const util::Param kParams[] = {
    {"nolocal", util::Param::Type::kBool, &g_settings.nolocal, "no",
     "route every other rank, those of this node included, through the network module (tests "
     "the network path on one machine)"},
    {"verbose", util::Param::Type::kBool, &g_settings.verbose, "no",
     "rank 0 prints the peer table (node and transport of every rank) at init"},
};
const util::ParamTable kTable{"device", kParams};
const util::ParamRegistration kRegistration{&kTable};

// Whether any network module is built (else the branch below folds away).
constexpr bool kHaveNetmod =
    netmod::Modules::built(netmod::Kind::kOfi) || netmod::Modules::built(netmod::Kind::kUcx);

// The one local-vs-remote branch: every protocol call to a transport goes
// through here; kNet peers go to the network module the device chose
// (netmod::Modules: one switch on its kind, no virtual call).
class Peers {
 public:
  shm::ShmTransport shm;
  netmod::Modules net;
  std::vector<PeerInfo> table;

  bool remote(int peer) const {
    if constexpr (kHaveNetmod) return table[peer].transport == PeerTransport::kNet;
    return false;
  }
  bool send(int peer, const WireHeader& h, const void* payload) {
    if (remote(peer)) return net.send(peer, h, payload);
    return shm.send(peer, h, payload);
  }
  template <class F>
  int poll(F&& handler) {
    int n = shm.poll(handler);
    if constexpr (kHaveNetmod) n += net.poll(handler);
    return n;
  }
  std::size_t max_payload(int peer) const {
    return remote(peer) ? net.max_payload() : shm.max_payload();
  }
  // What fits every transport in use: a job whose module is the stub (no
  // peer on another node) sends active messages through shm only.
  std::size_t max_payload() const {
    if constexpr (kHaveNetmod)
      if (net.kind() != netmod::Kind::kNone) return std::min(shm.max_payload(), net.max_payload());
    return shm.max_payload();
  }
  int expose(int peer, const void* buf, std::size_t bytes, WireHeader* h) {
    return remote(peer) ? net.expose(peer, buf, bytes, h) : shm.expose(peer, buf, bytes, h);
  }
  void unexpose(int peer, const WireHeader& h) {
    if (remote(peer)) net.unexpose(h);
    else shm.unexpose(h);
  }
  PullStatus pull(int peer, const WireHeader& rts, void* local, std::size_t bytes,
                  RequestDev* req) {
    return remote(peer) ? net.pull(peer, rts, local, bytes, req)
                        : shm.pull(peer, rts, local, bytes, req);
  }
};

struct DeviceState {
  int rank = 0;
  int size = 1;
  Peers peers;
  protocol::Protocol<Peers> proto{peers};
  std::vector<int> node_ranks;  // reached by shm (or self)
  int ranks_on_node = 1;
};

DeviceState g;

const char* transport_name(PeerTransport t) {
  switch (t) {
    case PeerTransport::kSelf: return "self";
    case PeerTransport::kShm: return "shm";
    case PeerTransport::kNet: return "net";
  }
  return "?";
}

// Node of every rank: the launcher's process mapping, else host names.
int learn_nodes(pmi::Client& pmi, std::vector<int>* node_of, std::string* source) {
  std::string mapping;
  if (pmi.get("PMI_process_mapping", &mapping) == 0 &&
      pmi::parse_process_mapping(mapping, g.size, node_of)) {
    *source = "PMI_process_mapping " + mapping;
    return MPI_SUCCESS;
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  if (pmi.put("host-" + std::to_string(g.rank), host) != 0 || pmi.barrier() != 0)
    return util::make_error(MPI_ERR_OTHER, "PMI exchange failed: %s", pmi.error().c_str());
  std::vector<std::string> hosts;
  node_of->assign(g.size, 0);
  for (int peer = 0; peer < g.size; ++peer) {
    std::string peer_host;
    if (pmi.get("host-" + std::to_string(peer), &peer_host) != 0)
      return util::make_error(MPI_ERR_OTHER, "PMI get failed: %s", pmi.error().c_str());
    auto it = std::find(hosts.begin(), hosts.end(), peer_host);
    (*node_of)[peer] = static_cast<int>(it - hosts.begin());
    if (it == hosts.end()) hosts.push_back(peer_host);
  }
  *source = "host names";
  return MPI_SUCCESS;
}

int build_peer_table(pmi::Client& pmi) {
  std::vector<int> node_of;
  std::string source;
  if (int err = learn_nodes(pmi, &node_of, &source); err != MPI_SUCCESS) return err;
  g.peers.table.assign(g.size, PeerInfo{});
  g.node_ranks.clear();
  const int mine = node_of[g.rank];
  for (int peer = 0; peer < g.size; ++peer) {
    PeerInfo& info = g.peers.table[peer];
    info.node = node_of[peer];
    if (peer == g.rank) info.transport = PeerTransport::kSelf;
    else if (info.node == mine && !g_settings.nolocal) info.transport = PeerTransport::kShm;
    else info.transport = PeerTransport::kNet;
    if (info.transport != PeerTransport::kNet && info.node == mine) g.node_ranks.push_back(peer);
  }
  if (g_settings.verbose && g.rank == 0) {
    std::fprintf(stderr, "STMPI device: nodes from %s\n", source.c_str());
    for (int peer = 0; peer < g.size; ++peer)
      std::fprintf(stderr, "STMPI device: rank 0 -> rank %d: node %d, %s\n", peer,
                   g.peers.table[peer].node, transport_name(g.peers.table[peer].transport));
  }
  return MPI_SUCCESS;
}

// Performance variables (util/pvar.h): the matching queues' depths and
// search costs, unexpected arrivals, and sends the transports refused.
const util::Pvar kMatchPvars[] = {
    {"posted_depth", util::Pvar::Class::kLevel,
     [] { return uint64_t{g.proto.posted_queue().size()}; },
     "receives posted and not yet matched (wildcards included)"},
    {"posted_depth_max", util::Pvar::Class::kHighwatermark,
     [] { return uint64_t{g.proto.posted_queue().max_size()}; },
     "the most receives the posted queue has held at once"},
    {"unexpected_depth", util::Pvar::Class::kLevel,
     [] { return uint64_t{g.proto.unexpected_queue().size()}; },
     "arrived messages no receive has matched yet"},
    {"unexpected_depth_max", util::Pvar::Class::kHighwatermark,
     [] { return uint64_t{g.proto.unexpected_queue().max_size()}; },
     "the most messages the unexpected queue has held at once"},
    {"unexpected_messages", util::Pvar::Class::kCounter,
     [] { return g.proto.unexpected_arrivals(); },
     "messages that arrived before a matching receive was posted"},
    {"posted_searches", util::Pvar::Class::kCounter,
     [] { return g.proto.posted_queue().stats().searches; },
     "searches of the posted queue (one per arriving message)"},
    {"posted_examined", util::Pvar::Class::kCounter,
     [] { return g.proto.posted_queue().stats().examined; },
     "posted receives compared in those searches (search length = examined / searches)"},
    {"unexpected_searches", util::Pvar::Class::kCounter,
     [] { return g.proto.unexpected_queue().stats().searches; },
     "searches of the unexpected queue (receives and probes)"},
    {"unexpected_examined", util::Pvar::Class::kCounter,
     [] { return g.proto.unexpected_queue().stats().examined; },
     "unexpected messages compared in those searches"},
};
const util::PvarTable kMatchPvarTable{"match", kMatchPvars};
const util::PvarRegistration kMatchPvarRegistration{&kMatchPvarTable};

const util::Pvar kDevicePvars[] = {
    {"backlogged_sends", util::Pvar::Class::kCounter, [] { return g.proto.backlogged_sends(); },
     "messages a transport could not take at once (full ring, no credits) and that waited in "
     "the sender's per-peer backlog"},
};
const util::PvarTable kDevicePvarTable{"device", kDevicePvars};
const util::PvarRegistration kDevicePvarRegistration{&kDevicePvarTable};

const util::Pvar kShmPvars[] = {
    {"ring_full", util::Pvar::Class::kCounter, [] { return g.peers.shm.ring_full_events(); },
     "send attempts that found the ring to a local peer full (a retried send counts again)"},
};
const util::PvarTable kShmPvarTable{"shm", kShmPvars};
const util::PvarRegistration kShmPvarRegistration{&kShmPvarTable};

}  // namespace

int poll_transports() { return g.proto.progress(); }

netmod::Modules& netmod::modules() { return g.peers.net; }

namespace protocol {
void pull_done(RequestDev* req, bool ok) { g.proto.pull_done(req, ok); }
}  // namespace protocol

int init(pmi::Client& pmi) {
  g.rank = pmi.rank();
  g.size = pmi.size();
  if (g.size > match::kMaxRanks)
    return util::make_error(MPI_ERR_OTHER, "%d ranks exceed the supported %d", g.size,
                            match::kMaxRanks);
  if (int err = build_peer_table(pmi); err != MPI_SUCCESS) return err;
  if (int err = g.peers.shm.init(g.rank, g.size, g.node_ranks, g.peers.table[g.rank].node, pmi);
      err != MPI_SUCCESS)
    return err;
  // A rank that only STMPI_DEVICE_NOLOCAL=yes sends through the network
  // (named by the stub module's error when no module is built).
  int nolocal_peer = -1;
  for (int peer = 0; peer < g.size && g_settings.nolocal; ++peer)
    if (g.peers.table[peer].transport == PeerTransport::kNet &&
        g.peers.table[peer].node == g.peers.table[g.rank].node && nolocal_peer < 0)
      nolocal_peer = peer;
  if (int err = g.peers.net.init(g.rank, g.peers.table, pmi, g_settings.verbose, nolocal_peer);
      err != MPI_SUCCESS)
    return err;
  g.proto.init(g.rank, g.size);
  // Ranks of this node share its CPUs (with NOLOCAL too: they still do).
  g.ranks_on_node = 0;
  for (const PeerInfo& info : g.peers.table) g.ranks_on_node += info.node == my_node();
  util::set_ranks_on_node(g.ranks_on_node);
  std::vector<pid_t> local_pids;
  for (int peer : g.node_ranks) local_pids.push_back(g.peers.shm.pid_of(peer));
  util::set_node_cpus(local_pids);
  return MPI_SUCCESS;
}

int finalize() {
  // Queued control messages (FIN, acks) may be what a peer waits for.
  wait_until([] { return g.proto.idle(); });
  g.peers.net.finalize();
  g.peers.shm.finalize();
  return MPI_SUCCESS;
}

bool verbose() { return g_settings.verbose; }
int world_rank() { return g.rank; }
int world_size() { return g.size; }
const PeerInfo& peer_info(int world_rank) { return g.peers.table[world_rank]; }
int my_node() { return g.peers.table[g.rank].node; }
std::span<const int> node_ranks() { return g.node_ranks; }
int ranks_on_node() { return g.ranks_on_node; }

int isend(const void* buf, std::size_t bytes, int dest, const match::Key& key, SendMode mode,
          RequestDev* req) {
  int err = MPI_SUCCESS;
  g.proto.isend(buf, bytes, dest, key, mode, req, &err);
  return err;
}

int irecv(void* buf, std::size_t capacity, const match::Key& pattern, RequestDev* req) {
  g.proto.irecv(buf, capacity, pattern, req);
  return MPI_SUCCESS;
}

bool cancel_recv(RequestDev* req) { return g.proto.cancel_recv(req); }

void cancel_send(RequestDev* req) { g.proto.cancel_send(req); }

bool iprobe(const match::Key& pattern, ProbeInfo* info) {
  const UnexpectedMessage* msg = g.proto.find(pattern);
  if (msg == nullptr) return false;
  *info = ProbeInfo{msg->header.source, msg->header.tag, msg->header.total_bytes};
  return true;
}

UnexpectedMessage* improbe(const match::Key& pattern, ProbeInfo* info) {
  UnexpectedMessage* msg = g.proto.take(pattern);
  if (msg == nullptr) return nullptr;
  *info = ProbeInfo{msg->header.source, msg->header.tag, msg->header.total_bytes};
  return msg;
}

int imrecv(UnexpectedMessage* msg, void* buf, std::size_t capacity, RequestDev* req) {
  g.proto.receive_taken(msg, buf, capacity, req);
  return MPI_SUCCESS;
}

void register_am_handler(uint8_t id, AmHandler handler) {
  g.proto.register_am_handler(id, handler);
}

std::size_t am_max_bytes() { return g.peers.max_payload(); }

int am_send(int peer, uint8_t id, const void* data, std::size_t bytes) {
  if (bytes > am_max_bytes())
    return util::make_error(MPI_ERR_INTERN, "active message of %zu bytes exceeds %zu", bytes,
                            am_max_bytes());
  g.proto.am_send(peer, id, data, bytes);
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev
