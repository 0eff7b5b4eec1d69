// MPI_Gather(v) and their nonblocking and persistent forms.
//
// binomial (Gather): ranks relative to the root; relative rank v (lowest
// set bit 2^j, or the root) owns the blocks of its subtree, [v, v + 2^j),
// adjacent in one packed buffer in relative-rank order; each process
// receives its children's subtrees and sends its own up in one message.
// Leaves send from the user's buffer; the root unpacks into its layout.
// linear (Gather, Gatherv): every process sends to the root, which posts
// all receives at once.
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
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const int relative = (s.rank() - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };
  const int blocks = subtree_blocks(relative, n);
  const int bit = subtree_bit(relative, n);
  Datatype& bytes = byte_type();
  if (blocks == 1) {
    s.send(sendbuf, sendcount, *sendtype, actual(relative - bit));
    s.fence();
    return;
  }
  char* packed = s.scratch_bytes(blocks * bb);
  if (!in_place) s.copy(sendbuf, sendcount, *sendtype, packed, bb, bytes);
  for (int mask = 1; mask < bit; mask <<= 1) {
    const int child = relative + mask;
    if (child >= n) break;
    s.recv(packed + mask * bb, std::min(mask, n - child) * bb, bytes, actual(child));
  }
  s.fence();
  if (relative != 0) {
    s.send(packed, blocks * bb, bytes, actual(relative - bit));
  } else {
    for (int v = 0; v < n; ++v) {
      const int r = actual(v);
      if (r == root && in_place) continue;
      s.copy(packed + v * bb, bb, bytes, block(recvbuf, r, recvcount, recvtype->extent), recvcount,
             *recvtype);
    }
  }
  s.fence();
}

}  // namespace

int build_gatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                  const std::vector<Block>& blocks, int root) {
  if (s.comm().is_inter()) return inter_gatherv(s, sendbuf, sendcount, sendtype, blocks, root);
  const int n = s.size();
  if (s.rank() != root) {
    s.send(sendbuf, sendcount, *sendtype, root);
    s.fence();
    return MPI_SUCCESS;
  }
  for (int r = 0; r < n; ++r) {
    const Block& b = blocks[r];
    void* dst = const_cast<void*>(b.buf);
    if (r != root) s.recv(dst, b.count, *b.type, r);
    else if (sendbuf != MPI_IN_PLACE) s.copy(sendbuf, sendcount, *sendtype, dst, b.count, *b.type);
  }
  s.fence();
  return MPI_SUCCESS;
}

int build_gather(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                 void* recvbuf, MPI_Count recvcount, Datatype* recvtype, int root) {
  if (s.comm().is_inter()) {
    std::vector<Block> blocks;
    if (root == MPI_ROOT)
      for (int r = 0; r < s.comm().peer_size(); ++r)
        blocks.push_back({block(recvbuf, r, recvcount, recvtype->extent), recvcount, recvtype});
    return inter_gatherv(s, sendbuf, sendcount, sendtype, blocks, root);
  }
  int algorithm = -1;
  if (int err = choose(settings().gather_algorithm, "GATHER", {"binomial", "linear"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  const int n = s.size();
  const bool is_root = s.rank() == root;
  const MPI_Count bb = is_root ? recvcount * recvtype->size : sendcount * sendtype->size;
  if (n == 1 || bb == 0) {
    if (is_root && sendbuf != MPI_IN_PLACE)
      s.copy(sendbuf, sendcount, *sendtype, block(recvbuf, root, recvcount, recvtype->extent),
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
      blocks.push_back({block(recvbuf, r, recvcount, recvtype->extent), recvcount, recvtype});
  return build_gatherv(s, sendbuf, sendcount, sendtype, blocks, root);
}

// Root-side blocks of a v collective: displacements in extents of `type`.
template <class Count, class Disp>
std::vector<Block> v_blocks(const void* buf, const Count counts[], const Disp displs[],
                            Datatype* type, int n) {
  std::vector<Block> blocks(n);
  for (int r = 0; r < n; ++r)
    blocks[r] = {static_cast<const char*>(buf) + static_cast<MPI_Aint>(displs[r]) * type->extent,
                 static_cast<MPI_Count>(counts[r]), type};
  return blocks;
}
template std::vector<Block> v_blocks(const void*, const int[], const int[], Datatype*, int);
template std::vector<Block> v_blocks(const void*, const MPI_Count[], const MPI_Aint[], Datatype*,
                                     int);

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::coll::Mode;
using mpi::errhan::make_error;

}  // namespace

int gather_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
               MPI_Count recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm, Mode mode,
               MPI_Request* request) {
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (sendbuf != MPI_IN_PLACE) s.hold(sendtype);
    if (mpi::coll::is_root(comm, root)) s.hold(recvtype);
    return mpi::coll::build_gather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   root);
  });
}

template <class Count, class Disp>
int gatherv_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                const Count recvcounts[], const Disp displs[], mpi::Datatype* recvtype, int root,
                mpi::Comm& comm, Mode mode, MPI_Request* request) {
  std::vector<mpi::coll::Block> blocks;
  if (mpi::coll::is_root(comm, root)) {
    if (recvbuf == MPI_IN_PLACE)
      return make_error(MPI_ERR_BUFFER, "MPI_IN_PLACE is not a valid recvbuf for MPI_Gatherv");
    blocks = mpi::coll::v_blocks(recvbuf, recvcounts, displs, recvtype, comm.peer_size());
  }
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    if (sendbuf != MPI_IN_PLACE) s.hold(sendtype);
    if (mpi::coll::is_root(comm, root)) s.hold(recvtype);
    return mpi::coll::build_gatherv(s, sendbuf, sendcount, sendtype, blocks, root);
  });
}
template decltype(gatherv_any<int, int>) gatherv_any<int, int>;
template decltype(gatherv_any<MPI_Count, MPI_Aint>) gatherv_any<MPI_Count, MPI_Aint>;

}  // namespace stmpi::impl
