// Context ids: which communicator a message belongs to.
//
// The id space is the 16-bit context field of the match key
// (dev::match::kMaxContextId). A communicator takes an even id c: its
// point-to-point traffic uses c, its collective traffic c + 1. MPI_COMM_WORLD
// has 0 and MPI_COMM_SELF 2.
//
// Agreement: every process keeps a bitmap of the even ids it has in use.
// A communicator constructor, collective over the parent communicator,
// allreduces (bitwise AND of "free" bits) the bitmaps of all parent members
// on the parent's collective context, and everyone takes the lowest id free
// everywhere. Members of the new communicator mark it used; freeing the
// communicator (its last reference) marks it free again. Disjoint
// communicators made by one MPI_Comm_split share an id, which is safe: a
// process belongs to only one of them.
//
// Threads and nonblocking constructions (MPI_Comm_idup): several
// constructions may be in flight at once in one process. Only one of them
// may offer the real bitmap at a time (the others offer "nothing free" and
// retry), and priority goes to the lowest key (parent context id, then the
// parent's collective sequence number at the start, the same on every
// member), so the lowest construction among all in flight wins everywhere
// and progress is guaranteed. An extra word in the reduced message says
// whether every process offered its real bitmap; only then is an empty
// result "out of context ids" rather than "try again". The top 1024 ids
// (below the bootstrap ids) are a reserve that only blocking constructions
// offer, ordered among themselves: a blocking construction (say
// MPI_Comm_create_group) on processes where a nonblocking one (an
// MPI_Comm_idup started earlier there, later elsewhere) holds the rest of
// the bitmap still agrees on an id, where waiting would deadlock.
//
// Arrival: under MPI_THREAD_MULTIPLE a construction enters that order only
// after every process of it has arrived: its first round offers nothing
// (processes without threads offer from the first round on, so a job
// without threads agrees in one round as before). A round
// holding a process's bitmap could otherwise wait for a member whose thread
// is still in another construction that this bitmap's absence keeps from
// finishing: with threads, a non-member of an MPI_Comm_create_group runs
// ahead into the next construction over all processes, takes its bitmap for
// a round the others cannot join yet, and a lower construction that needs
// that bitmap blocks the very threads the round waits for (MPICH's
// threads/comm/comm_create_group_threads2). Once all have arrived, every
// member loops over the same rounds, so a round never waits for long.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace stmpi::mpi {

struct Comm;
namespace coll {
class Schedule;
}

inline constexpr uint32_t kWorldContextId = 0;
inline constexpr uint32_t kSelfContextId = 2;
// Constructions collective over a group only (MPI_Comm_create_group,
// MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups) have no
// parent whose context they could borrow: they agree on a new id over one
// of these reserved contexts, picked by a hash of the group and the tag
// (see bootstrap_context_id in comm_group_ctor.cc). Never handed out.
inline constexpr uint32_t kBootstrapContextIds = 64;
uint32_t bootstrap_context_id(uint64_t hash);

// Collective over `parent`: agrees on an id free in every member of parent
// and marks it used here. MPI_ERR_OTHER "out of context ids" if none is.
[[nodiscard]] int context_id_allocate(Comm& parent, uint32_t* id);
// The same agreement, nonblocking (MPI_Comm_idup): appends its rounds to
// `s`, a schedule on the parent communicator (it sets the schedule's
// reduction). done(MPI_SUCCESS, id) runs as a step of the schedule once
// the id is agreed and marked used here; done(error, 0) if it fails. Rounds
// in which some process could not offer its mask are repeated inside the
// schedule.
[[nodiscard]] int context_id_schedule(coll::Schedule& s,
                                      std::function<void(int err, uint32_t id)> done);
// `count` (<= kMaxIdsPerAllocation) ids at once; done(MPI_SUCCESS, ids) or
// done(error, nullptr). On an intercommunicator's schedule the agreement
// spans both groups (MPI_Comm_idup of an intercommunicator).
[[nodiscard]] int context_id_schedule_n(coll::Schedule& s, int count,
                                        std::function<void(int err, const uint32_t* ids)> done);
// No id: a communicator whose agreement has not finished (or failed).
inline constexpr uint32_t kNoContextId = ~uint32_t{0};
// The global step of an agreement: turns this process's offer (a byte
// string of context_id_offer_bytes()) into the bitwise AND of the offers of
// every process that takes part, in place, identically everywhere.
using ContextIdCombine = std::function<int(void* offer, std::size_t bytes)>;
inline constexpr int kMaxIdsPerAllocation = 2;
// Agrees on `count` (<= kMaxIdsPerAllocation) ids at once through `combine`;
// `parent` orders concurrent constructions within this process (see above).
// Intercommunicator constructors combine across both groups this way.
[[nodiscard]] int context_id_allocate_n(Comm& parent, int count, uint32_t* ids,
                                        const ContextIdCombine& combine);
std::size_t context_id_offer_bytes();
void context_id_and(const void* in, void* inout, std::size_t bytes);
// Marks an id used without agreement (MPI_COMM_WORLD, MPI_COMM_SELF).
void context_id_reserve(uint32_t id);
// Marks an id free: when the communicator using it is destroyed, or at once
// by a process that took part in the agreement but does not join the new
// communicator (Comm_split with MPI_UNDEFINED, Comm_create outside the group).
void context_id_release(uint32_t id);
// Frees every id (MPI_Finalize).
void context_id_reset();

}  // namespace stmpi::mpi
