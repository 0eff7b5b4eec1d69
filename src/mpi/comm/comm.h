// MPI_Comm: an intracommunicator (group + context id + error handler).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi/comm/attr_table.h"
#include "mpi/handle.h"

namespace stmpi::mpi {

struct Group;
struct Errhandler;
struct Keyval;
struct Topology;
namespace coll {
struct NodeLayout;
}
namespace enqueue {
struct CommStreams;
}

struct Comm {
  int handle = 0;
  int rank = 0;
  int size = 0;
  Group* group = nullptr;
  // Point-to-point traffic uses context_id; collectives use context_id + 1,
  // so a collective never matches a user receive. See context_id.h.
  uint32_t context_id = 0;
  Errhandler* errhandler = nullptr;
  std::string name;
  AttributeTable<CommAttrs> attributes;
  std::atomic<int> refs{1};
  bool predefined = false;
  // Collectives started on this communicator so far (the same count on
  // every member): it tags the messages of each one (coll/sched).
  uint32_t coll_seq = 0;
  // Intercommunicators (intercomm.cc): the remote group, and an
  // intracommunicator over `group` with its own context id, on which the
  // local half of a constructor runs. Null for intracommunicators.
  Group* remote_group = nullptr;
  Comm* local_comm = nullptr;
  // Process topology (src/mpi/topo), shared by duplicates; null when none.
  std::shared_ptr<const Topology> topology;
  // Hints set by MPI_Comm_set_info / the *_with_info constructors.
  std::vector<std::pair<std::string, std::string>> info;
  // Which node each member runs on, for node-aware collectives
  // (coll/node.h); computed on first use.
  std::shared_ptr<const coll::NodeLayout> node_layout;
  // MPIX_Stream_comm_create(_multiplex): the streams, shared by duplicates
  // (src/mpi/enqueue/stream_object.h); null for other communicators.
  std::shared_ptr<enqueue::CommStreams> streams;

  uint32_t coll_context_id() const { return context_id + 1; }
  bool is_inter() const { return remote_group != nullptr; }
  // Number of valid point-to-point peers: the remote group's size for an
  // intercommunicator, else the communicator's size.
  int peer_size() const;
  // World rank of point-to-point peer `peer_rank` (in the remote group for
  // an intercommunicator).
  int world_rank(int peer_rank) const;
};

extern constinit HandleTable<Comm, ObjectKind::kComm> g_comm_table;
inline HandleTable<Comm, ObjectKind::kComm>& comm_table() { return g_comm_table; }
inline Comm* comm_get(int handle) { return g_comm_table.get(handle); }
Comm* comm_world();
Comm* comm_self();

// Registers a new communicator over `group` (taking over the caller's
// reference to it) with an agreed context id (context_id.h): this process
// must be a member. The communicator inherits `errhandler` (retained).
// With registered = false the object gets no handle (an intercommunicator's
// internal local_comm).
Comm* comm_create_object(Group* group, uint32_t context_id, Errhandler* errhandler,
                         bool registered = true);

void comm_retain(Comm* comm);
// Drops a reference; the last one returns the context id and destroys the
// object. The handle is unregistered earlier, by MPI_Comm_free.
void comm_release(Comm* comm);

// Creates MPI_COMM_WORLD (context 0) and MPI_COMM_SELF (context 2), their
// groups and MPI_GROUP_EMPTY. Called once by MPI_Init.
void comm_init_world(int world_rank, int world_size);
// Runs the delete callbacks of COMM_SELF's attributes, newest first, as
// MPI_Finalize must before anything else. Returns the first callback error.
int comm_delete_self_attributes();
// Deletes remaining attributes of COMM_SELF and COMM_WORLD and releases
// what comm_init_world created. Returns the first callback error.
int comm_finalize_world();

// The value of the MPI_LASTUSEDCODE attribute; MPI_Add_error_code and
// MPI_Add_error_class update it.
void comm_set_last_used_code(int code);

}  // namespace stmpi::mpi
