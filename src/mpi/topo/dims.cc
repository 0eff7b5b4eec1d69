// MPI_Dims_create (MPI 4.1 section 8.5.2): split nnodes into the free
// (zero) entries of dims as evenly as possible, in non-increasing order.
//
// "As evenly as possible" is taken literally: among all factorizations of
// the free part into non-increasing factors, the one with the smallest
// largest factor, then the smallest difference between largest and
// smallest, then the smallest sum of squares (20 in 4: 5x2x2x1, not
// 5x4x1x1) is chosen; this gives MPICH's results for every n <= 64 in up
// to 4 dimensions (test/mpi/topo/dims.c holds that table). The search walks divisors in decreasing order and
// stops early; the numbers involved (process counts) keep it small.
#include <climits>
#include <vector>

#include <mpi.h>

#include "mpi/impl.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

struct Search {
  std::vector<long> divisors;  // of the number being split, decreasing
  std::vector<long> best;
  std::vector<long> current;
  bool found = false;

  static long sum_of_squares(const std::vector<long>& v) {
    long sum = 0;
    for (long x : v) sum += x * x;
    return sum;
  }

  bool better() const {
    if (!found) return true;
    if (current.front() != best.front()) return current.front() < best.front();
    const long spread = current.front() - current.back();
    if (spread != best.front() - best.back()) return spread < best.front() - best.back();
    return sum_of_squares(current) < sum_of_squares(best);
  }

  // Fills current[slot..] with non-increasing factors <= cap whose product is n.
  void run(long n, std::size_t slot, long cap) {
    const std::size_t left = current.size() - slot;
    if (left == 1) {
      if (n > cap) return;
      current[slot] = n;
      if (better()) {
        best = current;
        found = true;
      }
      return;
    }
    // The largest factor here is at least the left-th root of n.
    for (long f : divisors) {
      if (f > cap || f > n || n % f != 0) continue;
      long power = 1;
      for (std::size_t i = 0; i < left && power < n; ++i) power *= f;
      if (power < n) break;  // f^left < n: no smaller f can work either
      if (found && f > best.front() && slot == 0) continue;
      current[slot] = f;
      run(n / f, slot + 1, f);
    }
  }
};

}  // namespace

int dims_create(int nnodes, int ndims, int dims[]) {
  if (ndims < 0) return mpi::errhan::make_error(MPI_ERR_DIMS, "ndims = %d is negative", ndims);
  if (nnodes <= 0)
    return mpi::errhan::make_error(MPI_ERR_DIMS, "nnodes = %d is not positive", nnodes);
  if (ndims == 0) return MPI_SUCCESS;  // nothing to fill (MPICH accepts it too)
  if (dims == nullptr)
    return mpi::errhan::make_error(MPI_ERR_ARG, "dims must not be NULL");
  long fixed = 1;
  int free_count = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0)
      return mpi::errhan::make_error(MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]);
    if (dims[i] == 0)
      ++free_count;
    else
      fixed *= dims[i];
    if (fixed > INT_MAX) fixed = LONG_MAX / 2;
  }
  if (nnodes % fixed != 0)
    return mpi::errhan::make_error(MPI_ERR_DIMS,
                                   "nnodes = %d is not a multiple of the product %ld of the "
                                   "non-zero entries of dims",
                                   nnodes, fixed);
  const long rest = nnodes / fixed;
  if (free_count == 0) {
    if (rest != 1)
      return mpi::errhan::make_error(MPI_ERR_DIMS,
                                     "dims has no zero entry and its product %ld is not nnodes "
                                     "= %d",
                                     fixed, nnodes);
    return MPI_SUCCESS;
  }
  Search search;
  search.current.assign(static_cast<std::size_t>(free_count), 1);
  std::vector<long> small, large;
  for (long d = 1; d * d <= rest; ++d) {
    if (rest % d != 0) continue;
    small.push_back(d);
    if (d != rest / d) large.push_back(rest / d);
  }
  search.divisors.assign(large.begin(), large.end());
  search.divisors.insert(search.divisors.end(), small.rbegin(), small.rend());
  search.run(rest, 0, rest);
  std::size_t next = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = static_cast<int>(search.best[next++]);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
