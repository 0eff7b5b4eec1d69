// MPI_Bcast and its nonblocking and persistent forms.
//
// binomial: ranks relative to the root; relative rank v receives from v
// minus its lowest set bit and forwards to v + 2^j for every 2^j below
// that bit (all of them at the root), largest subtree first.
//
// scatter_allgather (van de Geijn): the message, as bytes, is cut into n
// chunks; a binomial scatter gives relative rank v chunk v (each process
// receives its subtree's chunks in one message), then a ring allgather
// circulates the chunks in n - 1 steps. Noncontiguous types are packed at
// the root and unpacked elsewhere.
#include <algorithm>

#include "mpi/coll/coll.h"
#include "mpi/coll/direct.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/inter.h"
#include "mpi/coll/launch.h"
#include "mpi/coll/node.h"
#include "mpi/coll/settings.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {
namespace {

void binomial(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root) {
  const int n = s.size();
  const int relative = (s.rank() - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };
  int mask = 1;
  while (mask < n) {
    if (relative & mask) {
      s.recv(buf, count, type, actual(relative - mask));
      s.fence();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (relative + mask < n) s.send(buf, count, type, actual(relative + mask));
  s.fence();
}

void scatter_allgather(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root) {
  const int n = s.size();
  const int relative = (s.rank() - root + n) % n;
  auto actual = [&](int v) { return (v + root) % n; };
  Datatype& bytes_type = byte_type();
  const MPI_Count total = count * type.size;
  char* data;
  if (type.contiguous) {
    data = static_cast<char*>(buf) + type.true_lb;
  } else {
    data = s.scratch_bytes(total);
    if (relative == 0) s.copy(buf, count, type, data, total, bytes_type);
  }
  const MPI_Count chunk = (total + n - 1) / n;
  auto offset = [&](int v) {
    return std::min<MPI_Count>(static_cast<MPI_Count>(v) * chunk, total);
  };
  auto range = [&](int first, int blocks) {  // bytes of chunks [first, first + blocks)
    return offset(std::min(first + blocks, n)) - offset(first);
  };

  // Binomial scatter of the chunks.
  int mask = 1;
  while (mask < n) {
    if (relative & mask) {
      s.recv(data + offset(relative), range(relative, mask), bytes_type, actual(relative - mask));
      s.fence();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const int child = relative + mask;
    if (child < n) s.send(data + offset(child), range(child, mask), bytes_type, actual(child));
  }
  s.fence();

  // Ring allgather: in step i, pass on chunk relative - i, take relative - i - 1.
  const int right = actual((relative + 1) % n);
  const int left = actual((relative - 1 + n) % n);
  for (int i = 0; i < n - 1; ++i) {
    const int out = (relative - i + n) % n;
    const int in = (relative - i - 1 + n) % n;
    s.send(data + offset(out), range(out, 1), bytes_type, right);
    s.recv(data + offset(in), range(in, 1), bytes_type, left);
    s.fence();
  }
  if (!type.contiguous && relative != 0) {
    s.copy(data, total, bytes_type, buf, count, type);
    s.fence();
  }
}

}  // namespace

int build_bcast(Schedule& s, void* buf, MPI_Count count, Datatype& type, int root) {
  if (s.comm().is_inter()) return inter_bcast(s, buf, count, type, root);
  int algorithm = -1;
  if (int err = choose(settings().bcast_algorithm, "BCAST",
                       {"binomial", "scatter_allgather", "node_aware"}, &algorithm);
      err != MPI_SUCCESS)
    return err;
  if (s.size() == 1 || count == 0 || type.size == 0) return MPI_SUCCESS;
  if (algorithm < 0 && node_aware_auto(s.comm(), static_cast<std::size_t>(count * type.size), true))
    algorithm = 2;
  if (algorithm < 0) {
    const bool long_message =
        static_cast<std::size_t>(count * type.size) >= settings().bcast_long_bytes;
    algorithm = long_message && s.size() >= settings().bcast_long_min_procs ? 1 : 0;
  }
  if (algorithm == 2) node_bcast(s, buf, count, type, root);
  else if (algorithm == 1) scatter_allgather(s, buf, count, type, root);
  else binomial(s, buf, count, type, root);
  return MPI_SUCCESS;
}

int bcast(void* buf, MPI_Count count, Datatype& type, int root, Comm& comm) {
  return launch(comm, Mode::kBlocking, nullptr,
                [&](Schedule& s) { return build_bcast(s, buf, count, type, root); });
}

}  // namespace stmpi::mpi::coll

namespace stmpi::impl {
namespace {}  // namespace

using mpi::coll::Mode;

int bcast_any(void* buffer, MPI_Count count, mpi::Datatype& datatype, int root, mpi::Comm& comm,
              mpi::coll::Mode mode, MPI_Request* request) {
  if (int err = MPI_SUCCESS; mode == mpi::coll::Mode::kBlocking &&
                             mpi::coll::direct_bcast(buffer, count, datatype, root, comm, &err))
    return err;
  return mpi::coll::launch(comm, mode, request, [&](mpi::coll::Schedule& s) {
    s.hold(&datatype);
    return mpi::coll::build_bcast(s, buffer, count, datatype, root);
  });
}

}  // namespace stmpi::impl
