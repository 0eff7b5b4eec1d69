// Datatype life cycle and queries: commit, free, size, extents, names;
// MPI_Pack/MPI_Unpack/MPI_Pack_size; addresses.
#include <climits>
#include <cstdint>
#include <cstring>

#include <mpi.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/datatype/type_attr.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::Datatype;
using mpi::errhan::make_error;

int not_null(const void* pointer, const char* what) {
  if (pointer == nullptr) return make_error(MPI_ERR_ARG, "%s is NULL", what);
  return MPI_SUCCESS;
}

int not_negative(MPI_Count value, const char* what, int error_class) {
  if (value < 0) {
    return make_error(error_class, "%s = %lld must not be negative", what,
                      static_cast<long long>(value));
  }
  return MPI_SUCCESS;
}

// The datatype behind an MPI_Datatype* argument of commit and free.
int lookup_inout(const MPI_Datatype* datatype, Datatype** type) {
  if (int err = not_null(datatype, "datatype")) return err;
  if (*datatype == MPI_DATATYPE_NULL) {
    return make_error(MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
  }
  *type = mpi::datatype_get(*datatype);
  if (*type == nullptr) {
    return make_error(MPI_ERR_TYPE, "datatype = 0x%x is not a valid datatype",
                      static_cast<unsigned>(*datatype));
  }
  return MPI_SUCCESS;
}

int check_committed(const Datatype& type) {
  if (!type.committed) {
    return make_error(MPI_ERR_TYPE, "datatype %s is not committed",
                      mpi::datatype_name(type.handle));
  }
  return MPI_SUCCESS;
}

}  // namespace

int type_commit(MPI_Datatype* datatype) {
  Datatype* type = nullptr;
  if (int err = lookup_inout(datatype, &type)) return err;
  type->committed = true;
  return MPI_SUCCESS;
}

int type_free(MPI_Datatype* datatype) {
  Datatype* type = nullptr;
  if (int err = lookup_inout(datatype, &type)) return err;
  if (type->predefined) {
    return make_error(MPI_ERR_TYPE, "%s is a predefined datatype and cannot be freed",
                      mpi::datatype_name(type->handle));
  }
  // A failing delete callback fails the free and leaves the type as it is.
  if (int err = mpi::type_attr_delete_all(*type)) return err;
  mpi::datatype_release(type);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int type_size(mpi::Datatype& datatype, int* size) {
  if (int err = not_null(size, "size")) return err;
  *size = datatype.size > INT_MAX ? MPI_UNDEFINED : static_cast<int>(datatype.size);
  return MPI_SUCCESS;
}

int type_size_count(mpi::Datatype& datatype, MPI_Count* size) {
  if (int err = not_null(size, "size")) return err;
  *size = datatype.size;
  return MPI_SUCCESS;
}

int type_get_extent(mpi::Datatype& datatype, MPI_Aint* lb, MPI_Aint* extent) {
  if (int err = not_null(lb, "lb")) return err;
  if (int err = not_null(extent, "extent")) return err;
  *lb = datatype.lb;
  *extent = datatype.extent;
  return MPI_SUCCESS;
}

int type_get_extent_count(mpi::Datatype& datatype, MPI_Count* lb, MPI_Count* extent) {
  if (int err = not_null(lb, "lb")) return err;
  if (int err = not_null(extent, "extent")) return err;
  *lb = datatype.lb;
  *extent = datatype.extent;
  return MPI_SUCCESS;
}

int type_get_true_extent(mpi::Datatype& datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  if (int err = not_null(true_lb, "true_lb")) return err;
  if (int err = not_null(true_extent, "true_extent")) return err;
  *true_lb = datatype.true_lb;
  *true_extent = datatype.true_extent;
  return MPI_SUCCESS;
}

int type_get_true_extent_count(mpi::Datatype& datatype, MPI_Count* true_lb,
                               MPI_Count* true_extent) {
  if (int err = not_null(true_lb, "true_lb")) return err;
  if (int err = not_null(true_extent, "true_extent")) return err;
  *true_lb = datatype.true_lb;
  *true_extent = datatype.true_extent;
  return MPI_SUCCESS;
}

int type_set_name(mpi::Datatype& datatype, const char* type_name) {
  if (int err = not_null(type_name, "type_name")) return err;
  datatype.name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int type_get_name(mpi::Datatype& datatype, char* type_name, int* resultlen) {
  if (int err = not_null(type_name, "type_name")) return err;
  if (int err = not_null(resultlen, "resultlen")) return err;
  const size_t length = datatype.name.size();
  std::memcpy(type_name, datatype.name.c_str(), length + 1);
  *resultlen = static_cast<int>(length);
  return MPI_SUCCESS;
}

// MPI_Pack and MPI_Unpack, over the type of `position` (int or MPI_Count).
template <class Count>
int pack_any(const void* inbuf, MPI_Count incount, Datatype& type, void* outbuf, MPI_Count outsize,
             Count* position, mpi::Comm&) {
  if (int err = not_negative(incount, "incount", MPI_ERR_COUNT)) return err;
  if (int err = not_negative(outsize, "outsize", MPI_ERR_ARG)) return err;
  if (int err = not_null(position, "position")) return err;
  if (int err = not_negative(*position, "*position", MPI_ERR_ARG)) return err;
  if (int err = check_committed(type)) return err;
  const MPI_Count bytes = MPI_Count{incount} * type.size;
  if (*position > outsize || bytes > MPI_Count{outsize} - *position) {
    return make_error(MPI_ERR_TRUNCATE,
                      "packing %lld bytes (incount = %lld of %s) at position %lld overruns "
                      "outsize = %lld",
                      static_cast<long long>(bytes), static_cast<long long>(incount),
                      mpi::datatype_name(type.handle), static_cast<long long>(*position),
                      static_cast<long long>(outsize));
  }
  if (bytes == 0) return MPI_SUCCESS;
  if (outbuf == nullptr) return make_error(MPI_ERR_BUFFER, "outbuf is NULL");
  type.pack(inbuf, incount, static_cast<char*>(outbuf) + *position);
  *position += static_cast<Count>(bytes);
  return MPI_SUCCESS;
}

template <class Count>
int unpack_any(const void* inbuf, MPI_Count insize, Count* position, void* outbuf,
               MPI_Count outcount, Datatype& type, mpi::Comm&) {
  if (int err = not_negative(insize, "insize", MPI_ERR_ARG)) return err;
  if (int err = not_negative(outcount, "outcount", MPI_ERR_COUNT)) return err;
  if (int err = not_null(position, "position")) return err;
  if (int err = not_negative(*position, "*position", MPI_ERR_ARG)) return err;
  if (int err = check_committed(type)) return err;
  const MPI_Count bytes = MPI_Count{outcount} * type.size;
  if (*position > insize || bytes > MPI_Count{insize} - *position) {
    return make_error(MPI_ERR_TRUNCATE,
                      "unpacking %lld bytes (outcount = %lld of %s) at position %lld overruns "
                      "insize = %lld",
                      static_cast<long long>(bytes), static_cast<long long>(outcount),
                      mpi::datatype_name(type.handle), static_cast<long long>(*position),
                      static_cast<long long>(insize));
  }
  if (bytes == 0) return MPI_SUCCESS;
  if (inbuf == nullptr) return make_error(MPI_ERR_BUFFER, "inbuf is NULL");
  type.unpack(static_cast<const char*>(inbuf) + *position, bytes, outcount, outbuf);
  *position += static_cast<Count>(bytes);
  return MPI_SUCCESS;
}

template decltype(pack_any<int>) pack_any<int>;
template decltype(pack_any<MPI_Count>) pack_any<MPI_Count>;
template decltype(unpack_any<int>) unpack_any<int>;
template decltype(unpack_any<MPI_Count>) unpack_any<MPI_Count>;

int pack_size(int incount, mpi::Datatype& datatype, mpi::Comm& comm, int* size) {
  if (int err = not_null(size, "size")) return err;
  MPI_Count total = 0;
  if (int err = pack_size_c(incount, datatype, comm, &total)) return err;
  if (total > INT_MAX) {
    return make_error(MPI_ERR_VALUE_TOO_LARGE,
                      "the packed size of incount = %d of %s is %lld bytes, more than an int holds",
                      incount, mpi::datatype_name(datatype.handle), static_cast<long long>(total));
  }
  *size = static_cast<int>(total);
  return MPI_SUCCESS;
}

int pack_size_c(MPI_Count incount, mpi::Datatype& datatype, mpi::Comm&, MPI_Count* size) {
  if (int err = not_negative(incount, "incount", MPI_ERR_COUNT)) return err;
  if (int err = not_null(size, "size")) return err;
  // Packed data is the raw bytes of the type map: the exact size, no header.
  if (__builtin_mul_overflow(incount, datatype.size, size))
    return make_error(MPI_ERR_COUNT, "incount = %lld of %s is more bytes than MPI_Count holds",
                      static_cast<long long>(incount), mpi::datatype_name(datatype.handle));
  return MPI_SUCCESS;
}

int get_address(const void* location, MPI_Aint* address) {
  if (int err = not_null(address, "address")) return err;
  *address = static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(location));
  return MPI_SUCCESS;
}

MPI_Aint aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}

MPI_Aint aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}

}  // namespace stmpi::impl
