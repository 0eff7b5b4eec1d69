// MPI_Allreduce and its nonblocking and persistent forms.
//
// All algorithms first fold a non-power-of-two process count: with p the
// largest power of two <= n and r = n - p, rank 2i (i < r) hands its data
// to 2i+1, which combines (2i) op (2i+1); the p remaining processes are
// numbered newrank, in rank order, and 2i gets the result back last.
//
// recursive_doubling: log2(p) exchanges of the whole vector with newrank
//   XOR 2^k. The operand from the lower ranks is always on the left, so
//   non-commutative ops work and every process evaluates the same
//   expression (bit-identical floating-point results).
// rabenseifner: reduce-scatter by recursive halving (distance 1, 2, 4...:
//   each step keeps half the current window of p blocks and sends the
//   other half to the partner, so each group is a contiguous range of
//   ranks and operand order holds), then an allgather retracing the steps.
//   About 2 (p-1)/p of the vector moves per process instead of log2(p).
// ring: reduce-scatter around the ring, then ring allgather; 2 (n-1) steps
//   of 1/n of the vector. Combines in ring order, so commutative ops only
//   (non-commutative ones use rabenseifner).
// reduce_bcast: MPI_Reduce to rank 0, then MPI_Bcast.
#include <utility>

#include "mpi/coll/checks.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/direct.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/node.h"
#include "mpi/coll/ring.h"
#include "mpi/coll/settings.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {
namespace {

// The non-power-of-two fold shared by recursive doubling and Rabenseifner.
struct Fold {
  int pof2 = 1;
  int rem = 0;
  int newrank = -1;  // -1: folded away
  explicit Fold(int n, int rank) {
    while (pof2 * 2 <= n) pof2 *= 2;
    rem = n - pof2;
    if (rank < 2 * rem) newrank = rank % 2 == 0 ? -1 : rank / 2;
    else newrank = rank - rem;
  }
  int real(int nr) const { return nr < rem ? nr * 2 + 1 : nr + rem; }
};

void fold_in(Schedule& s, const Fold& f, void* buf, void* spare, MPI_Count count, Datatype& type) {
  const int rank = s.rank();
  if (rank >= 2 * f.rem) return;
  if (rank % 2 == 0) {
    s.send(buf, count, type, rank + 1);
    s.fence();
  } else {
    s.recv(spare, count, type, rank - 1);
    s.fence();
    s.reduce(spare, buf, count);  // (rank - 1) op rank
  }
}

void fold_out(Schedule& s, const Fold& f, void* buf, MPI_Count count, Datatype& type) {
  const int rank = s.rank();
  if (rank >= 2 * f.rem) return;
  if (rank % 2 == 1) s.send(buf, count, type, rank - 1);
  else s.recv(buf, count, type, rank + 1);
  s.fence();
}

void recursive_doubling(Schedule& s, void* recvbuf, MPI_Count count, Datatype& type) {
  const Fold f(s.size(), s.rank());
  void* acc = recvbuf;
  void* spare = s.scratch(count, type);
  fold_in(s, f, acc, spare, count, type);
  if (f.newrank >= 0) {
    for (int mask = 1; mask < f.pof2; mask <<= 1) {
      const int partner_new = f.newrank ^ mask;
      const int partner = f.real(partner_new);
      s.send(acc, count, type, partner);
      s.recv(spare, count, type, partner);
      s.fence();
      if (partner_new < f.newrank) {
        s.reduce(spare, acc, count);
      } else {
        s.reduce(acc, spare, count);
        std::swap(acc, spare);
      }
    }
    if (acc != recvbuf) s.copy(acc, count, type, recvbuf, count, type);
    s.fence();
  }
  fold_out(s, f, recvbuf, count, type);
}

// `mine` is the caller's input when it is still apart from `buf` (not
// MPI_IN_PLACE, and this process is not in the fold): the first step then
// sends from it and combines its kept half straight into `buf`, so the
// input is never copied into `buf` as a whole (a large copy at the call
// would be time the caller cannot overlap). nullptr: the input is in `buf`.
void rabenseifner(Schedule& s, const void* mine, void* buf, MPI_Count count, Datatype& type) {
  const Fold f(s.size(), s.rank());
  const bool commutative = s.reduction().commutative;
  char* data = static_cast<char*>(buf);
  const char* input = mine != nullptr ? static_cast<const char*>(mine) : data;
  char* tmp = static_cast<char*>(s.scratch(count, type));
  fold_in(s, f, data, tmp, count, type);
  if (f.newrank >= 0) {
    std::vector<MPI_Count> counts, displs;
    even_blocks(count, f.pof2, &counts, &displs);
    displs.push_back(count);
    const MPI_Aint extent = type.extent;
    auto at = [&](char* base, int b) { return base + displs[b] * extent; };
    auto in_at = [&](int b) { return input + displs[b] * extent; };
    auto span = [&](int lo, int hi) { return displs[hi] - displs[lo]; };
    struct Window {
      int lo, hi;
    };
    std::vector<Window> history;
    int lo = 0, hi = f.pof2;
    for (int mask = 1; mask < f.pof2; mask <<= 1) {
      const int partner_new = f.newrank ^ mask;
      const int partner = f.real(partner_new);
      const int mid = (lo + hi) / 2;
      const bool lower = (f.newrank & mask) == 0;
      const Window keep = lower ? Window{lo, mid} : Window{mid, hi};
      const Window give = lower ? Window{mid, hi} : Window{lo, mid};
      history.push_back({lo, hi});
      const MPI_Count n_keep = span(keep.lo, keep.hi);
      if (input != data) {  // the first step, from the separate input
        s.send(in_at(give.lo), span(give.lo, give.hi), type, partner);
        if (commutative || partner_new > f.newrank) {  // data = mine op theirs
          s.recv(at(data, keep.lo), n_keep, type, partner);
          s.fence();
          s.reduce(in_at(keep.lo), at(data, keep.lo), n_keep);
        } else {  // data = theirs op mine
          s.recv(at(tmp, keep.lo), n_keep, type, partner);
          s.fence();
          s.copy(in_at(keep.lo), n_keep, type, at(data, keep.lo), n_keep, type);
          s.reduce(at(tmp, keep.lo), at(data, keep.lo), n_keep);
        }
        input = data;
        lo = keep.lo;
        hi = keep.hi;
        continue;
      }
      s.send(at(data, give.lo), span(give.lo, give.hi), type, partner);
      s.recv(at(tmp, keep.lo), n_keep, type, partner);
      s.fence();
      if (partner_new < f.newrank || commutative) {
        s.reduce(at(tmp, keep.lo), at(data, keep.lo), n_keep);
      } else {  // tmp = mine op theirs, then back into place
        s.reduce(at(data, keep.lo), at(tmp, keep.lo), n_keep);
        s.copy(at(tmp, keep.lo), n_keep, type, at(data, keep.lo), n_keep, type);
      }
      lo = keep.lo;
      hi = keep.hi;
    }
    for (int mask = f.pof2 / 2; mask >= 1; mask >>= 1) {
      const int partner = f.real(f.newrank ^ mask);
      const Window whole = history.back();
      history.pop_back();
      const int mid = (whole.lo + whole.hi) / 2;
      const Window other = lo == whole.lo ? Window{mid, whole.hi} : Window{whole.lo, mid};
      s.send(at(data, lo), span(lo, hi), type, partner);
      s.recv(at(data, other.lo), span(other.lo, other.hi), type, partner);
      s.fence();
      lo = whole.lo;
      hi = whole.hi;
    }
  }
  fold_out(s, f, data, count, type);
}

void ring(Schedule& s, void* buf, MPI_Count count, Datatype& type) {
  std::vector<MPI_Count> counts, displs;
  even_blocks(count, s.size(), &counts, &displs);
  void* tmp = s.scratch(count, type);
  ring_reduce_scatter(s, buf, tmp, counts, displs, type);
  ring_allgather(s, buf, counts, displs, type);
}

}  // namespace

int build_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                    Datatype& type) {
  if (s.comm().is_inter()) return inter_allreduce(s, sendbuf, recvbuf, count, type);
  int algorithm = -1;
  if (int err = choose(settings().allreduce_algorithm, "ALLREDUCE",
                       {"recursive_doubling", "rabenseifner", "ring", "reduce_bcast", "node_aware"},
                       &algorithm);
      err != MPI_SUCCESS)
    return err;
  if (count == 0) return MPI_SUCCESS;
  const bool commutative = s.reduction().commutative;
  if (algorithm < 0 && s.size() > 1) {
    const auto bytes = static_cast<std::size_t>(count * type.size);
    if (node_aware_auto(s.comm(), bytes, commutative)) algorithm = 4;
    else if (bytes < settings().allreduce_short_bytes || count < s.size()) algorithm = 0;
    else if (commutative && bytes >= settings().allreduce_ring_bytes) algorithm = 2;
    else algorithm = 1;
  }
  if (algorithm == 2 && !commutative) algorithm = 1;
  if (algorithm == 4 && !commutative) algorithm = 0;
  if (algorithm == 4 && s.size() > 1) {
    node_allreduce(s, sendbuf, recvbuf, count, type);
    return MPI_SUCCESS;
  }
  // Rabenseifner reads a separate input itself unless this process folds.
  const bool input_apart = sendbuf != MPI_IN_PLACE && algorithm == 1 && s.size() > 1 &&
                           s.rank() >= 2 * Fold(s.size(), s.rank()).rem;
  if (sendbuf != MPI_IN_PLACE && !input_apart) s.copy(sendbuf, count, type, recvbuf, count, type);
  if (s.size() == 1) {
    s.fence();
    return MPI_SUCCESS;
  }
  switch (algorithm) {
    case 0: recursive_doubling(s, recvbuf, count, type); break;
    case 1: rabenseifner(s, input_apart ? sendbuf : nullptr, recvbuf, count, type); break;
    case 2: ring(s, recvbuf, count, type); break;
    default:
      s.fence();
      if (int err =
              build_reduce(s, s.rank() == 0 ? MPI_IN_PLACE : recvbuf, recvbuf, count, type, 0);
          err != MPI_SUCCESS)
        return err;
      return build_bcast(s, recvbuf, count, type, 0);
  }
  return MPI_SUCCESS;
}

int allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, Datatype& type,
              const Reduction& reduction, Comm& comm) {
  return launch(comm, Mode::kBlocking, nullptr, [&](Schedule& s) {
    s.set_reduction(reduction);
    return build_allreduce(s, sendbuf, recvbuf, count, type);
  });
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {

using mpi::coll::Mode;

}  // namespace

int allreduce_any(const void* sendbuf, void* recvbuf, MPI_Count count, mpi::Datatype& datatype,
                  mpi::Op& op, mpi::Comm& comm, Mode mode, MPI_Request* request) {
  if (int err = mpi::coll::check_op(op, datatype); err != MPI_SUCCESS) return err;
  if (int err = mpi::coll::check_distinct(sendbuf, recvbuf, count); err != MPI_SUCCESS) return err;
  if (int err = MPI_SUCCESS;
      mode == Mode::kBlocking &&
      mpi::coll::direct_allreduce(sendbuf, recvbuf, count, datatype, op, comm, &err))
    return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    mpi::coll::hold_reduction(s, op, datatype);
    return mpi::coll::build_allreduce(s, sendbuf, recvbuf, count, datatype);
  });
}

}  // namespace stmpi::impl
