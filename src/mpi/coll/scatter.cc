// MPI_Scatter(v) and their nonblocking and persistent forms.
//
// binomial (Scatter): the mirror of the binomial gather: the root packs
// the blocks in relative-rank order; each process receives its subtree's
// blocks in one message and passes each child its subtree's slice. Leaves
// receive into the user's buffer.
// linear (Scatter, Scatterv): the root sends every block directly.
#include <algorithm>

#include "mpi/coll/checks.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/settings.h"
#include "mpi/coll/tree.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi::coll {
namespace {

void binomial(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
              void* recvbuf, MPI_Count recvcount, Datatype* recvtype, int root, MPI_Count bb) {
  const int n = s.size();
  const bool in_place = recvbuf == MPI_IN_PLACE;
  const int relative = (s.rank() - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };
  const int blocks = subtree_blocks(relative, n);
  const int bit = subtree_bit(relative, n);
  Datatype& bytes = byte_type();
  if (blocks == 1) {
    s.recv(recvbuf, recvcount, *recvtype, actual(relative - bit));
    s.fence();
    return;
  }
  char* packed = s.scratch_bytes(blocks * bb);
  if (relative == 0) {
    for (int v = 0; v < n; ++v) {
      const int r = actual(v);
      if (r == root && in_place) continue;
      s.copy(block(sendbuf, r, sendcount, sendtype->extent), sendcount, *sendtype, packed + v * bb,
             bb, bytes);
    }
  } else {
    s.recv(packed, blocks * bb, bytes, actual(relative - bit));
    s.fence();
  }
  for (int mask = bit >> 1; mask > 0; mask >>= 1) {
    const int child = relative + mask;
    if (child < n) s.send(packed + mask * bb, std::min(mask, n - child) * bb, bytes, actual(child));
  }
  if (!in_place) s.copy(packed, bb, bytes, recvbuf, recvcount, *recvtype);
  s.fence();
}

}  // namespace

int build_scatterv(Schedule& s, const std::vector<Block>& blocks, void* recvbuf,
                   MPI_Count recvcount, Datatype* recvtype, int root) {
  if (s.comm().is_inter()) return inter_scatterv(s, blocks, recvbuf, recvcount, recvtype, root);
  const int n = s.size();
  if (s.rank() != root) {
    s.recv(recvbuf, recvcount, *recvtype, root);
    s.fence();
    return MPI_SUCCESS;
  }
  for (int r = 0; r < n; ++r) {
    const Block& b = blocks[r];
    if (r != root) s.send(b.buf, b.count, *b.type, r);
    else if (recvbuf != MPI_IN_PLACE)
      s.copy(b.buf, b.count, *b.type, recvbuf, recvcount, *recvtype);
  }
  s.fence();
  return MPI_SUCCESS;
}

int build_scatter(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                  void* recvbuf, MPI_Count recvcount, Datatype* recvtype, int root) {
  if (s.comm().is_inter()) {
    std::vector<Block> blocks;
    if (root == MPI_ROOT)
      for (int r = 0; r < s.comm().peer_size(); ++r)
        blocks.push_back({block(sendbuf, r, sendcount, sendtype->extent), sendcount, sendtype});
    return inter_scatterv(s, blocks, recvbuf, recvcount, recvtype, root);
  }
  int algorithm = -1;
  if (int err = choose(settings().scatter_algorithm, "SCATTER", {"binomial", "linear"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  const int n = s.size();
  const bool is_root = s.rank() == root;
  const MPI_Count bb = is_root ? sendcount * sendtype->size : recvcount * recvtype->size;
  if (n == 1 || bb == 0) {
    if (is_root && recvbuf != MPI_IN_PLACE)
      s.copy(block(sendbuf, root, sendcount, sendtype->extent), sendcount, *sendtype, recvbuf,
             recvcount, *recvtype);
    s.fence();
    return MPI_SUCCESS;
  }
  if (algorithm < 0)
    algorithm = static_cast<std::size_t>(bb) >= settings().gather_linear_bytes ? 1 : 0;
  if (algorithm == 0) {
    binomial(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, bb);
    return MPI_SUCCESS;
  }
  std::vector<Block> blocks;
  if (is_root)
    for (int r = 0; r < n; ++r)
      blocks.push_back({block(sendbuf, r, sendcount, sendtype->extent), sendcount, sendtype});
  return build_scatterv(s, blocks, recvbuf, recvcount, recvtype, root);
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::coll::Mode;
using mpi::errhan::make_error;

int check_scatter_in_place(const void* sendbuf, const void* recvbuf, int root, int rank,
                           const char* name) {
  if (recvbuf == MPI_IN_PLACE && rank != root)
    return make_error(
        MPI_ERR_BUFFER,
        "MPI_IN_PLACE as recvbuf is only allowed at the root (rank %d); this is rank %d", root,
        rank);
  if (rank == root && sendbuf == MPI_IN_PLACE)
    return make_error(MPI_ERR_BUFFER, "MPI_IN_PLACE is not a valid sendbuf for %s", name);
  return MPI_SUCCESS;
}

}  // namespace

int scatter_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                MPI_Count recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm, Mode mode,
                MPI_Request* request) {
  if (int err = check_scatter_in_place(sendbuf, recvbuf, root, comm.rank, "MPI_Scatter");
      err != MPI_SUCCESS)
    return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (mpi::coll::is_root(comm, root)) s.hold(sendtype);
    if (recvbuf != MPI_IN_PLACE &&
        !(comm.is_inter() && (root == MPI_ROOT || root == MPI_PROC_NULL)))
      s.hold(recvtype);
    return mpi::coll::build_scatter(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    root);
  });
}

template <class Count, class Disp>
int scatterv_any(const void* sendbuf, const Count sendcounts[], const Disp displs[],
                 mpi::Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                 mpi::Datatype* recvtype, int root, mpi::Comm& comm, Mode mode,
                 MPI_Request* request) {
  if (int err = check_scatter_in_place(sendbuf, recvbuf, root, comm.rank, "MPI_Scatterv");
      err != MPI_SUCCESS)
    return err;
  std::vector<mpi::coll::Block> blocks;
  if (mpi::coll::is_root(comm, root)) {
    blocks = mpi::coll::v_blocks(sendbuf, sendcounts, displs, sendtype, comm.peer_size());
  }
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (mpi::coll::is_root(comm, root)) s.hold(sendtype);
    if (recvbuf != MPI_IN_PLACE &&
        !(comm.is_inter() && (root == MPI_ROOT || root == MPI_PROC_NULL)))
      s.hold(recvtype);
    return mpi::coll::build_scatterv(s, blocks, recvbuf, recvcount, recvtype, root);
  });
}
template decltype(scatterv_any<int, int>) scatterv_any<int, int>;
template decltype(scatterv_any<MPI_Count, MPI_Aint>) scatterv_any<MPI_Count, MPI_Aint>;

}  // namespace stmpi::impl
