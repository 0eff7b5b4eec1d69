// Binomial-tree arithmetic over ranks relative to a root.
#pragma once

#include <algorithm>
#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"

namespace stmpi::mpi::coll {

// Lowest set bit of relative rank v, or the smallest power of two >= n for
// the root (v = 0): v's subtree is [v, v + bit).
inline int subtree_bit(int relative, int n) {
  if (relative == 0) {
    int bit = 1;
    while (bit < n) bit <<= 1;
    return bit;
  }
  return relative & -relative;
}

inline int subtree_blocks(int relative, int n) {
  return std::min(subtree_bit(relative, n), n - relative);
}

// The root's blocks of a v collective (one per rank), displacements in
// extents of `type`.
template <class Count, class Disp>
std::vector<Block> v_blocks(const void* buf, const Count counts[], const Disp displs[],
                            Datatype* type, int n);

}  // namespace stmpi::mpi::coll
