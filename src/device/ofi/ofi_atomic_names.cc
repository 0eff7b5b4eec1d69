// MPI reduction operations and element types under their libfabric names
// (fi_op, fi_datatype): used by one-sided accumulates (ofi_rma.h) and by
// triggered accumulates (ofi_triggered.cc).
#include "device/ofi/ofi_rma.h"

namespace stmpi::dev::ofi {

bool fi_op_of(util::OpKind op, fi_op* out) {
  switch (op) {
    case util::OpKind::kMax: *out = FI_MAX; return true;
    case util::OpKind::kMin: *out = FI_MIN; return true;
    case util::OpKind::kSum: *out = FI_SUM; return true;
    case util::OpKind::kProd: *out = FI_PROD; return true;
    case util::OpKind::kLand: *out = FI_LAND; return true;
    case util::OpKind::kBand: *out = FI_BAND; return true;
    case util::OpKind::kLor: *out = FI_LOR; return true;
    case util::OpKind::kBor: *out = FI_BOR; return true;
    case util::OpKind::kLxor: *out = FI_LXOR; return true;
    case util::OpKind::kBxor: *out = FI_BXOR; return true;
    case util::OpKind::kReplace: *out = FI_ATOMIC_WRITE; return true;
    case util::OpKind::kNoOp: *out = FI_ATOMIC_READ; return true;
    default: return false;  // MINLOC, MAXLOC: pairs, no libfabric op
  }
}

bool fi_datatype_of(util::ElementKind kind, fi_datatype* out) {
  switch (kind) {
    case util::ElementKind::kInt8: *out = FI_INT8; return true;
    case util::ElementKind::kUint8: *out = FI_UINT8; return true;
    case util::ElementKind::kInt16: *out = FI_INT16; return true;
    case util::ElementKind::kUint16: *out = FI_UINT16; return true;
    case util::ElementKind::kInt32: *out = FI_INT32; return true;
    case util::ElementKind::kUint32: *out = FI_UINT32; return true;
    case util::ElementKind::kInt64: *out = FI_INT64; return true;
    case util::ElementKind::kUint64: *out = FI_UINT64; return true;
    case util::ElementKind::kFloat: *out = FI_FLOAT; return true;
    case util::ElementKind::kDouble: *out = FI_DOUBLE; return true;
    case util::ElementKind::kComplexFloat: *out = FI_FLOAT_COMPLEX; return true;
    case util::ElementKind::kComplexDouble: *out = FI_DOUBLE_COMPLEX; return true;
    default: return false;  // long double layouts, bool, pairs: the fallback
  }
}

}  // namespace stmpi::dev::ofi
