// Helpers shared by the collective algorithms: scratch buffers laid out
// like user buffers, local copies between datatypes.
#include <algorithm>
#include <cstring>

#include "mpi/coll/coll.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi::coll {

ScratchBuffer::ScratchBuffer(MPI_Count count, const Datatype& type) {
  if (count <= 0) return;
  // Instance k occupies [true_lb + k*extent, true_lb + k*extent + true_extent).
  const MPI_Aint last = static_cast<MPI_Aint>(count - 1) * type.extent;
  const MPI_Aint low = type.true_lb + std::min<MPI_Aint>(0, last);
  const MPI_Aint high = type.true_lb + type.true_extent + std::max<MPI_Aint>(0, last);
  storage_.reset(new char[static_cast<std::size_t>(std::max<MPI_Aint>(high - low, 1))]);
  base_ = storage_.get() - low;
}

Datatype& byte_type() { return *datatype_get(MPI_BYTE); }

void copy_same(const void* src, void* dst, MPI_Count count, const Datatype& type) {
  if (count == 0 || type.size == 0 || src == dst) return;
  if (type.contiguous) {
    std::memcpy(static_cast<char*>(dst) + type.true_lb,
                static_cast<const char*>(src) + type.true_lb,
                static_cast<std::size_t>(count * type.size));
    return;
  }
  std::vector<char> packed(static_cast<std::size_t>(count * type.size));
  type.pack(src, count, packed.data());
  type.unpack(packed.data(), count * type.size, count, dst);
}

int copy_convert(const void* src, MPI_Count scount, const Datatype& stype, void* dst,
                 MPI_Count rcount, const Datatype& rtype) {
  const MPI_Count bytes = scount * stype.size;
  if (bytes > rcount * rtype.size)
    return errhan::make_error(
        MPI_ERR_TRUNCATE, "local copy of %lld bytes into a receive buffer of %lld bytes",
        static_cast<long long>(bytes), static_cast<long long>(rcount * rtype.size));
  if (bytes == 0) return MPI_SUCCESS;
  if (stype.contiguous && rtype.contiguous) {
    std::memmove(static_cast<char*>(dst) + rtype.true_lb,
                 static_cast<const char*>(src) + stype.true_lb, static_cast<std::size_t>(bytes));
    return MPI_SUCCESS;
  }
  std::vector<char> packed(static_cast<std::size_t>(bytes));
  stype.pack(src, scount, packed.data());
  rtype.unpack(packed.data(), bytes, rcount, dst);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::coll
