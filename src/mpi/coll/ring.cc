#include "mpi/coll/ring.h"

#include "mpi/coll/coll.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/datatype/datatype.h"

namespace stmpi::mpi::coll {

void ring_allgather(Schedule& s, void* buf, const std::vector<MPI_Count>& counts,
                    const std::vector<MPI_Count>& displs, Datatype& type, const Block* own) {
  const int n = s.size();
  const int rank = s.rank();
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  char* base = static_cast<char*>(buf);
  for (int i = 0; i < n - 1; ++i) {
    const int out = (rank - i + n) % n;
    const int in = (rank - i - 1 + n) % n;
    if (i == 0 && own != nullptr) s.send(own->buf, own->count, *own->type, right);
    else s.send(base + displs[out] * type.extent, counts[out], type, right);
    s.recv(base + displs[in] * type.extent, counts[in], type, left);
    if (i == 0 && own != nullptr)
      s.copy(own->buf, own->count, *own->type, base + displs[rank] * type.extent, counts[rank],
             type);
    s.fence();
  }
  if (n == 1 && own != nullptr) {
    s.copy(own->buf, own->count, *own->type, base + displs[rank] * type.extent, counts[rank], type);
    s.fence();
  }
}

void ring_reduce_scatter(Schedule& s, void* acc, void* tmp, const std::vector<MPI_Count>& counts,
                         const std::vector<MPI_Count>& displs, Datatype& type) {
  const int n = s.size();
  const int rank = s.rank();
  const int right = (rank + 1) % n;
  const int left = (rank - 1 + n) % n;
  char* a = static_cast<char*>(acc);
  char* t = static_cast<char*>(tmp);
  // Step i passes on block rank - i - 1 (reduced over i + 1 processes)
  // and takes block rank - i - 2, which joins this process's share.
  for (int i = 0; i < n - 1; ++i) {
    const int out = (rank - i - 1 + 2 * n) % n;
    const int in = (rank - i - 2 + 2 * n) % n;
    s.send(a + displs[out] * type.extent, counts[out], type, right);
    s.recv(t + displs[in] * type.extent, counts[in], type, left);
    s.fence();
    s.reduce(t + displs[in] * type.extent, a + displs[in] * type.extent, counts[in]);
  }
  s.fence();
}

void even_blocks(MPI_Count count, int parts, std::vector<MPI_Count>* counts,
                 std::vector<MPI_Count>* displs) {
  counts->resize(parts);
  displs->resize(parts);
  MPI_Count offset = 0;
  for (int i = 0; i < parts; ++i) {
    (*counts)[i] = count / parts + (i < count % parts ? 1 : 0);
    (*displs)[i] = offset;
    offset += (*counts)[i];
  }
}

}  // namespace stmpi::mpi::coll
