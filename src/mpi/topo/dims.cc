// MPI_Dims_create (MPI 4.1 section 8.5.2): split nnodes into the free
// (zero) entries of dims as evenly as possible, in non-increasing order.
//
// "As evenly as possible" follows MPICH (the balance of Traeff and Luebbe,
// "Specification Guideline Violations by MPI_Dims_create", EuroMPI'15), so
// that programs get the same grids as there:
//   1. a prime that occurs once and whose square exceeds what is left gets
//      a dimension of its own, largest first (never the smallest prime, and
//      at most one fewer than the free dimensions);
//   2. if the prime factors left (with multiplicity) fit into the free
//      dimensions, each is one dimension (padded with 1s); one dimension
//      left takes the rest; a power of one prime is dealt round-robin; if
//      every multiplicity divides by the dimensions left, all are equal;
//   3. otherwise the smallest balance (largest minus smallest factor) over
//      all non-increasing factorizations; among equals the one with the
//      largest smallest factor, then the largest next-to-smallest, and so
//      on, the two largest factors being the most square pair of what the
//      others leave.
// test/mpi/topo/dims.c checks every n <= 64 in 1 to 4 dimensions against
// MPICH; MPICH's own topo/dims5 test (75,000 cases up to 2^31 - 1, through
// test/clients/mpich_tests.sh) passes too.
#include <climits>
#include <utility>
#include <vector>

#include <mpi.h>

#include "mpi/errhan/error.h"
#include "mpi/topo/impl_topo.h"

namespace stmpi::impl {
namespace {

using Factors = std::vector<std::pair<long, int>>;  // (prime, multiplicity), increasing primes

Factors factor(long n) {
  Factors f;
  for (long p = 2; p * p <= n; ++p) {
    if (n % p != 0) continue;
    int count = 0;
    while (n % p == 0) n /= p, ++count;
    f.emplace_back(p, count);
  }
  if (n > 1) f.emplace_back(n, 1);
  return f;
}

// Step 3: slots [0, m) of `dims`, largest first, product n.
struct Balance {
  std::vector<long> divisors;  // of n, increasing
  std::vector<long> tried;     // tried[i] for i >= 2
  std::vector<long> best;
  long best_balance = LONG_MAX;
  int m = 0;

  // The most square pair (a >= b >= at_least) with a * b = q, or b = 0.
  std::pair<long, long> square_pair(long q, long at_least) const {
    long b = 0;
    for (long d : divisors) {
      if (d * d > q) break;
      if (d >= at_least && q % d == 0) b = d;
    }
    return {b == 0 ? 0 : q / b, b};
  }

  void offer(long a, long b) {
    const long smallest = m > 2 ? tried[static_cast<std::size_t>(m - 1)] : b;
    const long balance = a - smallest;
    if (balance > best_balance) return;  // equal: the later one wins
    best_balance = balance;
    best = tried;
    best[0] = a;
    best[1] = b;
  }

  // Chooses slot `slot` (>= 2; the smallest factor is slot m - 1, chosen
  // first) from the divisors of what is left that are at least the factor
  // of the slot after it, smallest first; slots 1 and 0 are a square pair.
  void run(long q, int slot, long at_least) {
    if (slot == 1) {
      const auto [a, b] = square_pair(q, at_least);
      if (b != 0) offer(a, b);
      return;
    }
    const long smallest = slot == m - 1 ? 0 : tried[static_cast<std::size_t>(m - 1)];
    for (long d : divisors) {
      if (d < at_least || q % d != 0) continue;
      // slot + 1 factors (this one and the larger ones) of at least d each.
      long power = 1;
      bool room = true;
      for (int i = 0; i <= slot && room; ++i) {
        if (power > q / d) room = false;
        power *= d;
      }
      if (!room || power > q) break;
      if (slot < m - 1 && d - smallest > best_balance) break;
      tried[static_cast<std::size_t>(slot)] = d;
      run(q / d, slot - 1, d);
    }
  }
};

std::vector<long> balanced_factors(long n, int free_count) {
  Factors f = factor(n);
  std::vector<long> chosen;
  while (f.size() > 1 && static_cast<int>(chosen.size()) < free_count - 1 && f.back().second == 1 &&
         f.back().first * f.back().first > n) {
    chosen.push_back(f.back().first);
    n /= f.back().first;
    f.pop_back();
  }
  const int left = free_count - static_cast<int>(chosen.size());
  int primes = 0;
  for (const auto& [p, count] : f) primes += count;
  if (primes <= left) {
    for (auto it = f.rbegin(); it != f.rend(); ++it)
      for (int i = 0; i < it->second; ++i) chosen.push_back(it->first);
    chosen.resize(static_cast<std::size_t>(free_count), 1);
    return chosen;
  }
  if (left == 1) {
    chosen.push_back(n);
    return chosen;
  }
  std::vector<long> rest(static_cast<std::size_t>(left), 1);
  bool even = true;
  for (const auto& [p, count] : f) even = even && count % left == 0;
  if (f.size() == 1 || even) {
    // One prime: dealt round-robin; every multiplicity divisible: equal parts.
    for (const auto& [p, count] : f)
      for (int i = 0; i < count; ++i) rest[static_cast<std::size_t>(i % left)] *= p;
  } else {
    Balance search;
    search.m = left;
    for (long d = 1; d * d <= n; ++d)
      if (n % d == 0) search.divisors.push_back(d);
    for (std::size_t i = search.divisors.size(); i-- > 0;)
      if (search.divisors[i] * search.divisors[i] != n)
        search.divisors.push_back(n / search.divisors[i]);
    search.tried.assign(static_cast<std::size_t>(left), 1);
    search.run(n, left - 1, 1);
    rest = search.best;
  }
  chosen.insert(chosen.end(), rest.begin(), rest.end());
  return chosen;
}

}  // namespace

int dims_create(int nnodes, int ndims, int dims[]) {
  if (ndims < 0) return mpi::errhan::make_error(MPI_ERR_DIMS, "ndims = %d is negative", ndims);
  if (nnodes <= 0)
    return mpi::errhan::make_error(MPI_ERR_DIMS, "nnodes = %d is not positive", nnodes);
  if (ndims == 0) return MPI_SUCCESS;  // nothing to fill (MPICH accepts it too)
  if (dims == nullptr) return mpi::errhan::make_error(MPI_ERR_ARG, "dims must not be NULL");
  long fixed = 1;
  int free_count = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0)
      return mpi::errhan::make_error(MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]);
    if (dims[i] == 0) ++free_count;
    else fixed *= dims[i];
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
  const std::vector<long> chosen = balanced_factors(rest, free_count);
  std::size_t next = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = static_cast<int>(chosen[next++]);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
