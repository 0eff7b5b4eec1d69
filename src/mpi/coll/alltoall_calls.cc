// The MPI calls of Alltoall(v,w): blocking, nonblocking and persistent,
// int and MPI_Count forms, over the builders in alltoall.cc.
#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/direct.h"
#include "mpi/coll/launch.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::coll::Block;
using mpi::coll::Mode;

int alltoall_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype,
                 void* recvbuf, MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm,
                 Mode mode, MPI_Request* request) {
  if (int err = MPI_SUCCESS;
      mode == Mode::kBlocking && mpi::coll::direct_alltoall(sendbuf, sendcount, sendtype, recvbuf,
                                                            recvcount, recvtype, comm, &err))
    return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (sendbuf != MPI_IN_PLACE) s.hold(sendtype);
    s.hold(&recvtype);
    return mpi::coll::build_alltoall(s, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     recvtype);
  });
}

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

template <class Count, class Disp>
int alltoallv_any(const void* sendbuf, const Count sendcounts[], const Disp sdispls[],
                  mpi::Datatype* sendtype, void* recvbuf, const Count recvcounts[],
                  const Disp rdispls[], mpi::Datatype& recvtype, mpi::Comm& comm, Mode mode,
                  MPI_Request* request) {
  const int n = comm.peer_size();
  std::vector<Block> sends;
  if (sendbuf != MPI_IN_PLACE)
    sends = blocks_of(sendbuf, sendcounts, sdispls, std::vector<mpi::Datatype*>(n, sendtype),
                      false, n);
  return alltoallw_run(std::move(sends),
                       blocks_of(recvbuf, recvcounts, rdispls,
                                 std::vector<mpi::Datatype*>(n, &recvtype), false, n),
                       comm, mode, request);
}

template <class Count, class Disp>
int alltoallw_any(const void* sendbuf, const Count sendcounts[], const Disp sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const Count recvcounts[],
                  const Disp rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm,
                  Mode mode, MPI_Request* request) {
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

}  // namespace

int alltoall(const void* sendbuf, int sendcount, mpi::Datatype* sendtype, void* recvbuf,
             int recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      Mode::kBlocking, nullptr);
}
int alltoall_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
               MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      Mode::kBlocking, nullptr);
}
int ialltoall(const void* sendbuf, int sendcount, mpi::Datatype* sendtype, void* recvbuf,
              int recvcount, mpi::Datatype& recvtype, mpi::Comm& comm, MPI_Request* request) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      Mode::kNonblocking, request);
}
int ialltoall_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm,
                MPI_Request* request) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      Mode::kNonblocking, request);
}
int alltoall_init(const void* sendbuf, int sendcount, mpi::Datatype* sendtype, void* recvbuf,
                  int recvcount, mpi::Datatype& recvtype, mpi::Comm& comm, MPI_Info,
                  MPI_Request* request) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      Mode::kPersistent, request);
}
int alltoall_init_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype,
                    void* recvbuf, MPI_Count recvcount, mpi::Datatype& recvtype, mpi::Comm& comm,
                    MPI_Info, MPI_Request* request) {
  return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      Mode::kPersistent, request);
}

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              mpi::Datatype* sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              mpi::Datatype& recvtype, mpi::Comm& comm) {
  return alltoallv_any(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, Mode::kBlocking, nullptr);
}
int alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                mpi::Datatype* sendtype, void* recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], mpi::Datatype& recvtype, mpi::Comm& comm) {
  return alltoallv_any(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, Mode::kBlocking, nullptr);
}
int ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
               mpi::Datatype* sendtype, void* recvbuf, const int recvcounts[],
               const int rdispls[], mpi::Datatype& recvtype, mpi::Comm& comm,
               MPI_Request* request) {
  return alltoallv_any(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, Mode::kNonblocking, request);
}
int ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                 mpi::Datatype* sendtype, void* recvbuf, const MPI_Count recvcounts[],
                 const MPI_Aint rdispls[], mpi::Datatype& recvtype, mpi::Comm& comm,
                 MPI_Request* request) {
  return alltoallv_any(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, Mode::kNonblocking, request);
}
int alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   mpi::Datatype* sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], mpi::Datatype& recvtype, mpi::Comm& comm, MPI_Info,
                   MPI_Request* request) {
  return alltoallv_any(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, Mode::kPersistent, request);
}
int alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     mpi::Datatype* sendtype, void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], mpi::Datatype& recvtype, mpi::Comm& comm, MPI_Info,
                     MPI_Request* request) {
  return alltoallv_any(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, comm, Mode::kPersistent, request);
}

int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm) {
  return alltoallw_any(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, Mode::kBlocking, nullptr);
}
int alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm) {
  return alltoallw_any(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, Mode::kBlocking, nullptr);
}
int ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm,
               MPI_Request* request) {
  return alltoallw_any(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, Mode::kNonblocking, request);
}
int ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                 const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm,
                 MPI_Request* request) {
  return alltoallw_any(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, Mode::kNonblocking, request);
}
int alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm,
                   MPI_Info, MPI_Request* request) {
  return alltoallw_any(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, Mode::kPersistent, request);
}
int alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], mpi::Comm& comm,
                     MPI_Info, MPI_Request* request) {
  return alltoallw_any(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, comm, Mode::kPersistent, request);
}

}  // namespace stmpi::impl
