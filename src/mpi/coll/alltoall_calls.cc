// The MPI calls of Alltoall(v,w): blocking, nonblocking and persistent,
// int and MPI_Count forms, over the builders in alltoall.cc.
#include "mpi/coll/coll.h"
#include "mpi/coll/direct.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/launch.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::coll::Block;
using mpi::coll::Mode;

// Blocks at buf + displs[i] * unit (unit: the type's extent, or 1 for w).
template <class Count, class Disp>
std::vector<Block> blocks_of(const void* buf, const Count counts[], const Disp displs[],
                             const std::vector<mpi::Datatype*>& types, bool bytes, int n) {
  std::vector<Block> blocks(n);
  for (int i = 0; i < n; ++i) {
    const MPI_Aint unit = bytes ? 1 : types[i]->extent;
    blocks[i] = {static_cast<const char*>(buf) + static_cast<MPI_Aint>(displs[i]) * unit,
                 static_cast<MPI_Count>(counts[i]), types[i]};
  }
  return blocks;
}

int types_of(const MPI_Datatype handles[], int n, const char* name,
             std::vector<mpi::Datatype*>* types) {
  types->resize(n);
  for (int i = 0; i < n; ++i) {
    mpi::Datatype* type = mpi::datatype_get(handles[i]);
    if (type == nullptr)
      return mpi::errhan::make_error(MPI_ERR_TYPE, "%s[%d]=0x%x is not a valid datatype", name, i,
                                     static_cast<unsigned>(handles[i]));
    if (!type->committed)
      return mpi::errhan::make_error(MPI_ERR_TYPE, "%s[%d] is not committed", name, i);
    (*types)[i] = type;
  }
  return MPI_SUCCESS;
}

int alltoallw_run(std::vector<Block> sends, std::vector<Block> recvs, mpi::Comm& comm, Mode mode,
                  MPI_Request* request) {
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    for (const Block& b : sends) s.hold(b.type);
    for (const Block& b : recvs) s.hold(b.type);
    return mpi::coll::build_alltoallw(s, std::move(sends), recvs);
  });
}

}  // namespace

int alltoall_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                 MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm, Mode mode,
                 MPI_Request* request) {
  if (int err = MPI_SUCCESS;
      mode == Mode::kBlocking && mpi::coll::direct_alltoall(sendbuf, sendcount, sendtype, recvbuf,
                                                            recvcount, recvtype, comm, &err))
    return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (sendbuf != MPI_IN_PLACE) s.hold(sendtype);
    s.hold(&recvtype);
    return mpi::coll::build_alltoall(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  });
}

template <class Count, class Disp>
int alltoallv_any(const void* sendbuf, const Count sendcounts[], const Disp sdispls[],
                  mpi::Datatype* sendtype, void* recvbuf, const Count recvcounts[],
                  const Disp rdispls[], mpi::Datatype& recvtype, mpi::Comm& comm, Mode mode,
                  MPI_Request* request) {
  const int n = comm.peer_size();
  std::vector<Block> sends;
  if (sendbuf != MPI_IN_PLACE)
    sends =
        blocks_of(sendbuf, sendcounts, sdispls, std::vector<mpi::Datatype*>(n, sendtype), false, n);
  return alltoallw_run(
      std::move(sends),
      blocks_of(recvbuf, recvcounts, rdispls, std::vector<mpi::Datatype*>(n, &recvtype), false, n),
      comm, mode, request);
}
template decltype(alltoallv_any<int, int>) alltoallv_any<int, int>;
template decltype(alltoallv_any<MPI_Count, MPI_Aint>) alltoallv_any<MPI_Count, MPI_Aint>;

template <class Count, class Disp>
int alltoallw_any(const void* sendbuf, const Count sendcounts[], const Disp sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const Count recvcounts[],
                  const Disp rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm, Mode mode,
                  MPI_Request* request) {
  const int n = comm.peer_size();
  std::vector<mpi::Datatype*> stypes, rtypes;
  std::vector<Block> sends;
  if (int err = types_of(recvtypes, n, "recvtypes", &rtypes); err != MPI_SUCCESS) return err;
  if (sendbuf != MPI_IN_PLACE) {
    if (int err = types_of(sendtypes, n, "sendtypes", &stypes); err != MPI_SUCCESS) return err;
    sends = blocks_of(sendbuf, sendcounts, sdispls, stypes, true, n);
  }
  return alltoallw_run(std::move(sends), blocks_of(recvbuf, recvcounts, rdispls, rtypes, true, n),
                       comm, mode, request);
}
template decltype(alltoallw_any<int, int>) alltoallw_any<int, int>;
template decltype(alltoallw_any<MPI_Count, MPI_Aint>) alltoallw_any<MPI_Count, MPI_Aint>;

}  // namespace stmpi::impl
