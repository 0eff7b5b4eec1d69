// MPI_Gather and MPI_Scatter: binomial trees over ranks relative to the
// root, moving packed bytes. Relative rank v (lowest set bit 2^j, or the
// root) owns the blocks of its subtree, relative ranks [v, v + 2^j), which
// are adjacent in one packed buffer in relative-rank order. Gather sends
// each subtree's buffer up once; scatter sends each child its subtree's
// slice. log2(n) steps; the root unpacks (or packs) the blocks into the
// user's layout, rotated back to absolute ranks.
#include <algorithm>
#include <vector>

#include "binding/gen/impl.h"
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::coll {
namespace {

// Lowest set bit of v, or the smallest power of two >= n for the root.
int subtree_bit(int relative, int n) {
  if (relative == 0) {
    int bit = 1;
    while (bit < n) bit <<= 1;
    return bit;
  }
  return relative & -relative;
}

int subtree_blocks(int relative, int n) { return std::min(subtree_bit(relative, n), n - relative); }

}  // namespace

int gather(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype, void* recvbuf,
           MPI_Count recvcount, Datatype* recvtype, int root, Comm& comm) {
  const int n = comm.size;
  const bool is_root = comm.rank == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const MPI_Count block_bytes = is_root ? recvcount * recvtype->size : sendcount * sendtype->size;
  if (n == 1 || block_bytes == 0) {
    if (is_root && !in_place)
      return copy_convert(sendbuf, sendcount, *sendtype,
                          block(recvbuf, root, recvcount, recvtype->extent), recvcount, *recvtype);
    return MPI_SUCCESS;
  }
  const uint32_t context = comm.coll_context_id();
  const int relative = (comm.rank - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };
  const int blocks = subtree_blocks(relative, n);
  const int bit = subtree_bit(relative, n);

  // A leaf sends straight from the user's buffer.
  if (blocks == 1)
    return pt2pt::send(sendbuf, sendcount, *sendtype, actual(relative - bit), kTagGather, comm,
                       context, dev::SendMode::kStandard);

  std::vector<char> packed(static_cast<std::size_t>(blocks * block_bytes));
  if (!in_place) sendtype->pack(sendbuf, sendcount, packed.data());
  for (int mask = 1; mask < bit; mask <<= 1) {
    const int child = relative + mask;
    if (child >= n) break;
    const MPI_Count child_bytes = std::min(mask, n - child) * block_bytes;
    if (int err = pt2pt::recv(packed.data() + mask * block_bytes, child_bytes, byte_type(),
                              actual(child), kTagGather, comm, context, MPI_STATUS_IGNORE);
        err != MPI_SUCCESS)
      return err;
  }
  if (!is_root)
    return pt2pt::send(packed.data(), static_cast<MPI_Count>(packed.size()), byte_type(),
                       actual(relative - bit), kTagGather, comm, context, dev::SendMode::kStandard);

  for (int v = 0; v < n; ++v) {
    const int r = actual(v);
    if (r == root && in_place) continue;
    recvtype->unpack(packed.data() + v * block_bytes, block_bytes, recvcount,
                     block(recvbuf, r, recvcount, recvtype->extent));
  }
  return MPI_SUCCESS;
}

int scatter(const void* sendbuf, MPI_Count sendcount, Datatype* sendtype, void* recvbuf,
            MPI_Count recvcount, Datatype* recvtype, int root, Comm& comm) {
  const int n = comm.size;
  const bool is_root = comm.rank == root;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  const MPI_Count block_bytes = is_root ? sendcount * sendtype->size : recvcount * recvtype->size;
  if (n == 1 || block_bytes == 0) {
    if (is_root && !in_place)
      return copy_convert(block(sendbuf, root, sendcount, sendtype->extent), sendcount, *sendtype,
                          recvbuf, recvcount, *recvtype);
    return MPI_SUCCESS;
  }
  const uint32_t context = comm.coll_context_id();
  const int relative = (comm.rank - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };
  const int blocks = subtree_blocks(relative, n);
  const int bit = subtree_bit(relative, n);

  // A leaf receives straight into the user's buffer.
  if (blocks == 1)
    return pt2pt::recv(recvbuf, recvcount, *recvtype, actual(relative - bit), kTagScatter, comm,
                       context, MPI_STATUS_IGNORE);

  std::vector<char> packed(static_cast<std::size_t>(blocks * block_bytes));
  if (is_root) {
    for (int v = 0; v < n; ++v) {
      const int r = actual(v);
      if (r == root && in_place) continue;
      sendtype->pack(block(sendbuf, r, sendcount, sendtype->extent), sendcount,
                     packed.data() + v * block_bytes);
    }
  } else if (int err =
                 pt2pt::recv(packed.data(), static_cast<MPI_Count>(packed.size()), byte_type(),
                             actual(relative - bit), kTagScatter, comm, context, MPI_STATUS_IGNORE);
             err != MPI_SUCCESS) {
    return err;
  }

  std::vector<Request*> sends;
  int first_error = MPI_SUCCESS;
  for (int mask = bit >> 1; mask > 0; mask >>= 1) {
    const int child = relative + mask;
    if (child >= n) continue;
    const MPI_Count child_bytes = std::min(mask, n - child) * block_bytes;
    Request* req = nullptr;
    first_error =
        pt2pt::isend(packed.data() + mask * block_bytes, child_bytes, byte_type(), actual(child),
                     kTagScatter, comm, context, dev::SendMode::kStandard, &req);
    if (first_error != MPI_SUCCESS) break;
    sends.push_back(req);
  }
  const int wait_error = pt2pt::wait_all(static_cast<int>(sends.size()), sends.data());
  if (first_error != MPI_SUCCESS) return first_error;
  if (wait_error != MPI_SUCCESS) return wait_error;
  if (!in_place) recvtype->unpack(packed.data(), block_bytes, recvcount, recvbuf);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::errhan::make_error;

int gather_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
               MPI_Count recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm) {
  const bool is_root = comm.rank == root;
  if (sendbuf == MPI_IN_PLACE && !is_root)
    return make_error(
        MPI_ERR_BUFFER,
        "MPI_IN_PLACE as sendbuf is only allowed at the root (rank %d); this is rank %d", root,
        comm.rank);
  if (is_root && recvbuf == MPI_IN_PLACE)
    return make_error(MPI_ERR_BUFFER, "MPI_IN_PLACE is not a valid recvbuf for MPI_Gather");
  return mpi::coll::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int scatter_any(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
                MPI_Count recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm) {
  const bool is_root = comm.rank == root;
  if (recvbuf == MPI_IN_PLACE && !is_root)
    return make_error(
        MPI_ERR_BUFFER,
        "MPI_IN_PLACE as recvbuf is only allowed at the root (rank %d); this is rank %d", root,
        comm.rank);
  if (is_root && sendbuf == MPI_IN_PLACE)
    return make_error(MPI_ERR_BUFFER, "MPI_IN_PLACE is not a valid sendbuf for MPI_Scatter");
  return mpi::coll::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

}  // namespace

int gather(const void* sendbuf, int sendcount, mpi::Datatype* sendtype, void* recvbuf,
           int recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm) {
  return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int gather_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
             MPI_Count recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm) {
  return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int scatter(const void* sendbuf, int sendcount, mpi::Datatype* sendtype, void* recvbuf,
            int recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm) {
  return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int scatter_c(const void* sendbuf, MPI_Count sendcount, mpi::Datatype* sendtype, void* recvbuf,
              MPI_Count recvcount, mpi::Datatype* recvtype, int root, mpi::Comm& comm) {
  return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

}  // namespace stmpi::impl
