// Neighborhood collectives (MPI 4.1 sections 8.6-8.8): Neighbor_allgather(v)
// and Neighbor_alltoall(v,w) in their blocking, nonblocking (MPI_I*) and
// persistent (*_init) forms, each with its _c form, on Cartesian, graph
// and distributed graph communicators.
//
// Every call is a one-round collective schedule (../coll/sched/): one
// receive per source and one send per destination (topo::neighbors gives
// both lists and the buffer order) on the communicator's collective
// context; coll::launch runs it to completion, hands it to the progress
// engine, or keeps it for MPI_Start.
// Messages between two processes match in order, so the sends go out in
// the order the receiver's slots expect them: in a Cartesian topology the
// block of send slot j (dimension j/2, down if j is even) lands in the
// receiver's slot j^1 (it arrives from below if it went up), so sends are
// issued in increasing j^1; that also holds when a periodic dimension of
// size 1 or 2 makes the rank below and the rank above the same process.
// Graph topologies send in slot order and rely on FIFO order between a
// pair of processes (the j-th edge s->d is the j-th at both ends).
#include "mpi/topo/neighbor.h"

#include <mpi.h>

#include <vector>

#include "mpi/coll/launch.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/topo/impl_topo.h"
#include "mpi/topo/topology.h"

namespace stmpi::mpi::topo {
std::size_t send_order(bool cartesian, std::size_t k) { return cartesian ? k ^ 1 : k; }

int neighbor_exchange(Comm& comm, const std::vector<NeighborBlock>& sends,
                      const std::vector<NeighborBlock>& recvs, coll::Mode mode,
                      MPI_Request* request) {
  std::vector<int> sources, destinations;
  if (int err = neighbors(comm, &sources, &destinations); err != MPI_SUCCESS) return err;
  const bool cart = comm.topology->kind == MPI_CART;
  return coll::launch(comm, mode, request, [&](coll::Schedule& schedule) {
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const NeighborBlock& b = recvs[i];
      schedule.hold(b.type);
      schedule.recv(b.buf, b.count, *b.type, sources[i]);
    }
    for (std::size_t k = 0; k < destinations.size(); ++k) {
      const std::size_t i = send_order(cart, k);
      const NeighborBlock& b = sends[i];
      schedule.hold(b.type);
      schedule.send(b.buf, b.count, *b.type, destinations[i]);
    }
    return MPI_SUCCESS;
  });
}

int neighbor_degrees(Comm& comm, int* indegree, int* outdegree) {
  std::vector<int> sources, destinations;
  if (int err = neighbors(comm, &sources, &destinations); err != MPI_SUCCESS) return err;
  *indegree = static_cast<int>(sources.size());
  *outdegree = static_cast<int>(destinations.size());
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::topo

namespace stmpi::impl {
namespace {

using mpi::Datatype;
using mpi::errhan::make_error;
using mpi::topo::NeighborBlock;

char* at(const void* buf, MPI_Aint bytes) {
  return const_cast<char*>(static_cast<const char*>(buf)) + bytes;
}

template <typename CountT>
int check_counts(const CountT* counts, int n, const char* arg) {
  if (n > 0 && counts == nullptr) return make_error(MPI_ERR_ARG, "%s is NULL", arg);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0)
      return make_error(MPI_ERR_COUNT, "%s[%d] = %lld is negative", arg, i,
                        static_cast<long long>(counts[i]));
  return MPI_SUCCESS;
}

int degrees(mpi::Comm& comm, int* in, int* out) {
  return mpi::topo::neighbor_degrees(comm, in, out);
}

using mpi::coll::Mode;

int type_of(MPI_Datatype handle, const char* arg, int i, Datatype** out) {
  Datatype* type = mpi::datatype_get(handle);
  if (type == nullptr || !type->committed)
    return make_error(MPI_ERR_TYPE, "%s[%d] (0x%x) is %s", arg, i, static_cast<unsigned>(handle),
                      type == nullptr ? "not a valid datatype" : "not committed");
  *out = type;
  return MPI_SUCCESS;
}

}  // namespace

int neighbor_allgather_any(const void* sendbuf, MPI_Count sendcount, Datatype& sendtype,
                           void* recvbuf, MPI_Count recvcount, Datatype& recvtype, mpi::Comm& comm,
                           Mode mode, MPI_Request* request) {
  int in, out;
  if (int err = degrees(comm, &in, &out); err != MPI_SUCCESS) return err;
  std::vector<NeighborBlock> sends(out, NeighborBlock{at(sendbuf, 0), sendcount, &sendtype});
  std::vector<NeighborBlock> recvs;
  for (int i = 0; i < in; ++i)
    recvs.push_back({at(recvbuf, i * recvcount * recvtype.extent), recvcount, &recvtype});
  return mpi::topo::neighbor_exchange(comm, sends, recvs, mode, request);
}

template <typename CountT, typename DisplT>
int neighbor_allgatherv_any(const void* sendbuf, MPI_Count sendcount, Datatype& sendtype,
                            void* recvbuf, const CountT* recvcounts, const DisplT* displs,
                            Datatype& recvtype, mpi::Comm& comm, Mode mode, MPI_Request* request) {
  int in, out;
  if (int err = degrees(comm, &in, &out); err != MPI_SUCCESS) return err;
  if (int err = check_counts(recvcounts, in, "recvcounts"); err != MPI_SUCCESS) return err;
  if (in > 0 && displs == nullptr) return make_error(MPI_ERR_ARG, "displs is NULL");
  std::vector<NeighborBlock> sends(out, NeighborBlock{at(sendbuf, 0), sendcount, &sendtype});
  std::vector<NeighborBlock> recvs;
  for (int i = 0; i < in; ++i)
    recvs.push_back({at(recvbuf, static_cast<MPI_Aint>(displs[i]) * recvtype.extent),
                     static_cast<MPI_Count>(recvcounts[i]), &recvtype});
  return mpi::topo::neighbor_exchange(comm, sends, recvs, mode, request);
}
template decltype(neighbor_allgatherv_any<int, int>) neighbor_allgatherv_any<int, int>;
template decltype(neighbor_allgatherv_any<MPI_Count, MPI_Aint>)
    neighbor_allgatherv_any<MPI_Count, MPI_Aint>;

int neighbor_alltoall_any(const void* sendbuf, MPI_Count sendcount, Datatype& sendtype,
                          void* recvbuf, MPI_Count recvcount, Datatype& recvtype, mpi::Comm& comm,
                          Mode mode, MPI_Request* request) {
  int in, out;
  if (int err = degrees(comm, &in, &out); err != MPI_SUCCESS) return err;
  std::vector<NeighborBlock> sends, recvs;
  for (int i = 0; i < out; ++i)
    sends.push_back({at(sendbuf, i * sendcount * sendtype.extent), sendcount, &sendtype});
  for (int i = 0; i < in; ++i)
    recvs.push_back({at(recvbuf, i * recvcount * recvtype.extent), recvcount, &recvtype});
  return mpi::topo::neighbor_exchange(comm, sends, recvs, mode, request);
}

template <typename CountT, typename DisplT>
int neighbor_alltoallv_any(const void* sendbuf, const CountT* sendcounts, const DisplT* sdispls,
                           Datatype& sendtype, void* recvbuf, const CountT* recvcounts,
                           const DisplT* rdispls, Datatype& recvtype, mpi::Comm& comm, Mode mode,
                           MPI_Request* request) {
  int in, out;
  if (int err = degrees(comm, &in, &out); err != MPI_SUCCESS) return err;
  if (int err = check_counts(sendcounts, out, "sendcounts"); err != MPI_SUCCESS) return err;
  if (int err = check_counts(recvcounts, in, "recvcounts"); err != MPI_SUCCESS) return err;
  if ((out > 0 && sdispls == nullptr) || (in > 0 && rdispls == nullptr))
    return make_error(MPI_ERR_ARG, "sdispls and rdispls must not be NULL");
  std::vector<NeighborBlock> sends, recvs;
  for (int i = 0; i < out; ++i)
    sends.push_back({at(sendbuf, static_cast<MPI_Aint>(sdispls[i]) * sendtype.extent),
                     static_cast<MPI_Count>(sendcounts[i]), &sendtype});
  for (int i = 0; i < in; ++i)
    recvs.push_back({at(recvbuf, static_cast<MPI_Aint>(rdispls[i]) * recvtype.extent),
                     static_cast<MPI_Count>(recvcounts[i]), &recvtype});
  return mpi::topo::neighbor_exchange(comm, sends, recvs, mode, request);
}
template decltype(neighbor_alltoallv_any<int, int>) neighbor_alltoallv_any<int, int>;
template decltype(neighbor_alltoallv_any<MPI_Count, MPI_Aint>)
    neighbor_alltoallv_any<MPI_Count, MPI_Aint>;

template <typename CountT>
int neighbor_alltoallw_any(const void* sendbuf, const CountT* sendcounts, const MPI_Aint* sdispls,
                           const MPI_Datatype* sendtypes, void* recvbuf, const CountT* recvcounts,
                           const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, mpi::Comm& comm,
                           Mode mode, MPI_Request* request) {
  int in, out;
  if (int err = degrees(comm, &in, &out); err != MPI_SUCCESS) return err;
  if (int err = check_counts(sendcounts, out, "sendcounts"); err != MPI_SUCCESS) return err;
  if (int err = check_counts(recvcounts, in, "recvcounts"); err != MPI_SUCCESS) return err;
  if ((out > 0 && (sdispls == nullptr || sendtypes == nullptr)) ||
      (in > 0 && (rdispls == nullptr || recvtypes == nullptr)))
    return make_error(MPI_ERR_ARG, "displacement and datatype arrays must not be NULL");
  std::vector<NeighborBlock> sends, recvs;
  for (int i = 0; i < out; ++i) {
    Datatype* type = nullptr;
    if (int err = type_of(sendtypes[i], "sendtypes", i, &type); err != MPI_SUCCESS) return err;
    sends.push_back({at(sendbuf, sdispls[i]), static_cast<MPI_Count>(sendcounts[i]), type});
  }
  for (int i = 0; i < in; ++i) {
    Datatype* type = nullptr;
    if (int err = type_of(recvtypes[i], "recvtypes", i, &type); err != MPI_SUCCESS) return err;
    recvs.push_back({at(recvbuf, rdispls[i]), static_cast<MPI_Count>(recvcounts[i]), type});
  }
  return mpi::topo::neighbor_exchange(comm, sends, recvs, mode, request);
}
template decltype(neighbor_alltoallw_any<int>) neighbor_alltoallw_any<int>;
template decltype(neighbor_alltoallw_any<MPI_Count>) neighbor_alltoallw_any<MPI_Count>;

}  // namespace stmpi::impl
