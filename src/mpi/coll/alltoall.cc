// MPI_Alltoall(v,w) and their nonblocking and persistent forms.
//
// linear: every receive and send posted at once (n - 1 of each).
// pairwise: n - 1 steps; in step i exchange with rank XOR i (powers of
//   two) or send to rank + i while receiving from rank - i.
// bruck (Alltoall only, small blocks): blocks rotated so that block i is
//   for rank + i; in step 2^k the blocks whose index has bit k set go, in
//   one message, to rank + 2^k (keeping their index); after ceil(log2 n)
//   steps block i holds the data from rank - i.
// MPI_IN_PLACE: the data to send is copied aside first (Bruck reads it
//   before anything arrives and needs no copy).
#include <algorithm>

#include "mpi/coll/coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/coll/settings.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {
namespace {

// The process's own block, copied in the first round after its messages
// have started: the peers' pulls of this process's data (single copy) run
// while it copies, instead of after.
void copy_own(Schedule& s, const std::vector<Block>& sends, const std::vector<Block>& recvs) {
  const int rank = s.rank();
  s.copy(sends[rank].buf, sends[rank].count, *sends[rank].type, const_cast<void*>(recvs[rank].buf),
         recvs[rank].count, *recvs[rank].type);
}

void linear(Schedule& s, const std::vector<Block>& sends, const std::vector<Block>& recvs) {
  const int n = s.size();
  const int rank = s.rank();
  for (int i = 1; i < n; ++i) {
    const int from = (rank - i + n) % n;
    s.recv(const_cast<void*>(recvs[from].buf), recvs[from].count, *recvs[from].type, from);
  }
  for (int i = 1; i < n; ++i) {
    const int to = (rank + i) % n;
    s.send(sends[to].buf, sends[to].count, *sends[to].type, to);
  }
  copy_own(s, sends, recvs);
  s.fence();
}

void pairwise(Schedule& s, const std::vector<Block>& sends, const std::vector<Block>& recvs) {
  const int n = s.size();
  const int rank = s.rank();
  const bool pof2 = (n & (n - 1)) == 0;
  for (int i = 1; i < n; ++i) {
    const int to = pof2 ? rank ^ i : (rank + i) % n;
    const int from = pof2 ? rank ^ i : (rank - i + n) % n;
    s.send(sends[to].buf, sends[to].count, *sends[to].type, to);
    s.recv(const_cast<void*>(recvs[from].buf), recvs[from].count, *recvs[from].type, from);
    if (i == 1) copy_own(s, sends, recvs);
    s.fence();
  }
  if (n == 1) copy_own(s, sends, recvs);
}

void bruck(Schedule& s, const void* src, MPI_Count scount, Datatype& stype, void* recvbuf,
           MPI_Count rcount, Datatype& rtype) {
  const int n = s.size();
  const int rank = s.rank();
  const MPI_Count bb = rcount * rtype.size;
  Datatype& bytes = byte_type();
  char* tmp = s.scratch_bytes(n * bb);
  char* out = s.scratch_bytes((n / 2 + 1) * bb);
  char* in = s.scratch_bytes((n / 2 + 1) * bb);
  for (int i = 0; i < n; ++i)
    s.copy(block(src, (rank + i) % n, scount, stype.extent), scount, stype, tmp + i * bb, bb,
           bytes);
  for (int pow = 1; pow < n; pow <<= 1) {
    int k = 0;
    for (int i = 1; i < n; ++i)
      if (i & pow) s.copy(tmp + i * bb, bb, bytes, out + (k++) * bb, bb, bytes);
    s.send(out, k * bb, bytes, (rank + pow) % n);
    s.recv(in, k * bb, bytes, (rank - pow + n) % n);
    s.fence();
    k = 0;
    for (int i = 1; i < n; ++i)
      if (i & pow) s.copy(in + (k++) * bb, bb, bytes, tmp + i * bb, bb, bytes);
  }
  for (int i = 0; i < n; ++i)
    s.copy(tmp + i * bb, bb, bytes, block(recvbuf, (rank - i + n) % n, rcount, rtype.extent),
           rcount, rtype);
  s.fence();
}

// In place: copies the span the receive blocks cover aside and returns
// send blocks reading the copy.
std::vector<Block> copy_aside(Schedule& s, const std::vector<Block>& recvs) {
  const char* lo = nullptr;
  const char* hi = nullptr;
  for (const Block& b : recvs) {
    if (b.count == 0 || b.type->size == 0) continue;
    const char* base = static_cast<const char*>(b.buf) + b.type->true_lb;
    const MPI_Aint last = static_cast<MPI_Aint>(b.count - 1) * b.type->extent;
    const char* first = base + std::min<MPI_Aint>(0, last);
    const char* end = base + std::max<MPI_Aint>(0, last) + b.type->true_extent;
    if (lo == nullptr || first < lo) lo = first;
    if (hi == nullptr || end > hi) hi = end;
  }
  std::vector<Block> sends = recvs;
  if (lo == nullptr) return sends;
  char* copy = s.scratch_bytes(hi - lo);
  s.copy(lo, hi - lo, byte_type(), copy, hi - lo, byte_type());
  for (Block& b : sends) b.buf = copy + (static_cast<const char*>(b.buf) - lo);
  return sends;
}

}  // namespace

int build_alltoallw(Schedule& s, std::vector<Block> sends, const std::vector<Block>& recvs) {
  if (s.comm().is_inter()) return inter_alltoallw(s, sends, recvs);
  int algorithm = -1;
  if (int err =
          choose(settings().alltoallv_algorithm, "ALLTOALLV", {"linear", "pairwise"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  if (sends.empty()) sends = copy_aside(s, recvs);
  if (algorithm == 1) pairwise(s, sends, recvs);
  else linear(s, sends, recvs);
  s.fence();
  return MPI_SUCCESS;
}

int build_alltoall(Schedule& s, const void* sendbuf, MPI_Count sendcount, Datatype* sendtype,
                   void* recvbuf, MPI_Count recvcount, Datatype& recvtype) {
  if (s.comm().is_inter()) {
    if (sendbuf == MPI_IN_PLACE) return inter_in_place_error();
    std::vector<Block> sends, recvs;
    for (int r = 0; r < s.comm().peer_size(); ++r) {
      sends.push_back({block(sendbuf, r, sendcount, sendtype->extent), sendcount, sendtype});
      recvs.push_back({block(recvbuf, r, recvcount, recvtype.extent), recvcount, &recvtype});
    }
    return inter_alltoallw(s, sends, recvs);
  }
  int algorithm = -1;
  if (int err = choose(settings().alltoall_algorithm, "ALLTOALL", {"bruck", "linear", "pairwise"},
                       &algorithm);
      err != MPI_SUCCESS)
    return err;
  const int n = s.size();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const MPI_Count bb = recvcount * recvtype.size;
  if (algorithm < 0) {
    const auto block_bytes = static_cast<std::size_t>(bb);
    if (block_bytes <= settings().alltoall_short_bytes && n >= 8) algorithm = 0;
    else if (block_bytes <= settings().alltoall_medium_bytes) algorithm = 1;
    else algorithm = 2;
  }
  if (algorithm == 0 && n > 1) {
    if (in_place) bruck(s, recvbuf, recvcount, recvtype, recvbuf, recvcount, recvtype);
    else bruck(s, sendbuf, sendcount, *sendtype, recvbuf, recvcount, recvtype);
    return MPI_SUCCESS;
  }
  std::vector<Block> sends, recvs(n);
  for (int i = 0; i < n; ++i)
    recvs[i] = {block(recvbuf, i, recvcount, recvtype.extent), recvcount, &recvtype};
  if (in_place) {
    sends = copy_aside(s, recvs);
  } else {
    sends.resize(n);
    for (int i = 0; i < n; ++i)
      sends[i] = {block(sendbuf, i, sendcount, sendtype->extent), sendcount, sendtype};
  }
  if (algorithm == 2) pairwise(s, sends, recvs);
  else linear(s, sends, recvs);
  s.fence();
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll
