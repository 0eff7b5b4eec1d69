#include "mpi/coll/op.h"

#include <climits>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>

#include "mpi/coll/impl_coll.h"
#include "mpi/coll/op_kernels.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"

namespace stmpi::mpi {
namespace {

using errhan::make_error;

constexpr int kPredefinedOps = 14;
constexpr const char* kOpNames[kPredefinedOps + 1] = {
    nullptr,    "MPI_MAX",    "MPI_MIN",    "MPI_SUM",     "MPI_PROD",
    "MPI_LAND", "MPI_BAND",   "MPI_LOR",    "MPI_BOR",     "MPI_LXOR",
    "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP",
};

Op g_predefined[kPredefinedOps];
std::once_flag g_init_once;
std::mutex g_table_mutex;  // serializes add/remove; lookups rely on the caller's lock

OpKind kind_of(const Op& op) { return static_cast<OpKind>(op.handle & 0xff); }

// Which groups of predefined types each operation is defined on.
bool class_allows(OpKind op, TypeClass type_class) {
  switch (op) {
    case OpKind::kMax:
    case OpKind::kMin: return type_class == TypeClass::kInteger || type_class == TypeClass::kFloat;
    case OpKind::kSum:
    case OpKind::kProd:
      return type_class == TypeClass::kInteger || type_class == TypeClass::kFloat ||
             type_class == TypeClass::kComplex;
    case OpKind::kLand:
    case OpKind::kLor:
    case OpKind::kLxor:
      return type_class == TypeClass::kInteger || type_class == TypeClass::kLogical;
    case OpKind::kBand:
    case OpKind::kBor:
    case OpKind::kBxor: return type_class == TypeClass::kInteger || type_class == TypeClass::kByte;
    case OpKind::kMinloc:
    case OpKind::kMaxloc: return type_class == TypeClass::kPair;
    case OpKind::kReplace:
    case OpKind::kNoOp: return true;
  }
  return false;
}

// The predefined type all of `type`'s elements are, or nullptr.
const Datatype* base_of(const Datatype& type) {
  const int base = type.layout.base_type;
  if (base == 0) return nullptr;
  return base == type.handle ? &type : datatype_get(base);
}

// Calls fn(offset, len) for every run of data bytes of `count` instances.
template <class Fn>
void for_each_run(const Datatype& type, MPI_Count count, Fn fn) {
  if (type.contiguous) {
    fn(type.true_lb, count * type.size);
    return;
  }
  for (MPI_Count i = 0; i < count; ++i) {
    const MPI_Aint base = i * type.extent;
    for (const DataBlock& block : type.layout.blocks) {
      for (MPI_Count k = 0; k < block.count; ++k) {
        fn(base + block.disp + k * block.stride, block.len);
      }
    }
  }
}

int apply_user(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type) {
  MPI_Datatype handle = type.handle;
  void* in_arg = const_cast<void*>(in);
  if (op.user_fn_c != nullptr) {
    MPI_Count len = count;
    op.user_fn_c(in_arg, inout, &len, &handle);
    return MPI_SUCCESS;
  }
  // The int-count interface sees the data in chunks that fit an int.
  while (count > 0) {
    int len = count > INT_MAX ? INT_MAX : static_cast<int>(count);
    op.user_fn(in_arg, inout, &len, &handle);
    in_arg = static_cast<char*>(in_arg) + MPI_Count{len} * type.extent;
    inout = static_cast<char*>(inout) + MPI_Count{len} * type.extent;
    count -= len;
  }
  return MPI_SUCCESS;
}

}  // namespace

HandleTable<Op, ObjectKind::kOp>& op_table() {
  static HandleTable<Op, ObjectKind::kOp> table;
  return table;
}

Op* op_get(int handle) { return op_table().get(handle); }

void op_init_predefined() {
  std::call_once(g_init_once, [] {
    for (int i = 0; i < kPredefinedOps; ++i) {
      Op& op = g_predefined[i];
      op.handle = MPI_MAX + i;
      op.predefined = true;
      op.commutative = true;
      op_table().add_predefined(op.handle, &op);
    }
  });
}

int op_register(Op* op) {
  std::lock_guard lock(g_table_mutex);
  op->handle = op_table().add(op);
  return op->handle;
}

void op_retain(Op* op) {
  if (op == nullptr || op->predefined) return;
  op->refs.fetch_add(1, std::memory_order_relaxed);
}

void op_release(Op* op) {
  if (op == nullptr || op->predefined) return;
  if (op->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  {
    std::lock_guard lock(g_table_mutex);
    op_table().remove(op->handle);
  }
  delete op;
}

const char* op_name(int handle) {
  if (handle == MPI_OP_NULL) return "MPI_OP_NULL";
  const Op* op = op_get(handle);
  if (op == nullptr) return "invalid operation";
  if (!op->predefined) return "user-defined operation";
  return kOpNames[handle & 0xff];
}

bool op_is_rma_only(const Op& op) {
  return op.predefined && (kind_of(op) == OpKind::kReplace || kind_of(op) == OpKind::kNoOp);
}

int op_check(const Op& op, const Datatype& type) {
  if (!op.predefined || op_is_rma_only(op) || type.size == 0) return MPI_SUCCESS;
  const OpKind kind = kind_of(op);
  const Datatype* base = base_of(type);
  if (base == nullptr) {
    return make_error(MPI_ERR_OP,
                      "%s is not defined for datatype %s: its elements are not all of one "
                      "predefined type",
                      op_name(op.handle), datatype_name(type.handle));
  }
  if (!class_allows(kind, base->type_class) ||
      op_kernel(kind, base->element_kind, false) == nullptr) {
    if (base == &type) {
      return make_error(MPI_ERR_OP, "%s is not defined for datatype %s", op_name(op.handle),
                        datatype_name(type.handle));
    }
    return make_error(MPI_ERR_OP, "%s is not defined for datatype %s (made of %s)",
                      op_name(op.handle), datatype_name(type.handle), datatype_name(base->handle));
  }
  return MPI_SUCCESS;
}

int op_apply(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type) {
  if (!op.predefined) return apply_user(op, in, inout, count, type);
  const OpKind kind = kind_of(op);
  if (kind == OpKind::kNoOp || count <= 0 || type.size == 0) return MPI_SUCCESS;
  const char* a = static_cast<const char*>(in);
  char* b = static_cast<char*>(inout);
  if (kind == OpKind::kReplace) {
    for_each_run(type, count, [&](MPI_Aint offset, MPI_Aint len) {
      std::memmove(b + offset, a + offset, static_cast<size_t>(len));
    });
    return MPI_SUCCESS;
  }
  if (int err = op_check(op, type)) return err;
  const Datatype& base = *base_of(type);
  const MPI_Count values = count * type.layout.base_count;

  if (type.layout.base_dense) {
    // The values form one array: apply the kernel in place.
    const MPI_Aint first = type.true_lb - base.true_lb;
    op_kernel(kind, base.element_kind, false)(a + first, b + first, values);
    return MPI_SUCCESS;
  }
  if (base.type_class != TypeClass::kPair) {
    // Every data run holds whole values of the base type.
    const OpKernel kernel = op_kernel(kind, base.element_kind, false);
    for_each_run(type, count, [&](MPI_Aint offset, MPI_Aint len) {
      kernel(a + offset, b + offset, len / base.size);
    });
    return MPI_SUCCESS;
  }
  // Pairs scattered with gaps: combine their packed forms, then scatter back.
  const MPI_Count bytes = count * type.size;
  std::unique_ptr<char[]> packed_in(new (std::nothrow) char[static_cast<size_t>(bytes)]);
  std::unique_ptr<char[]> packed_inout(new (std::nothrow) char[static_cast<size_t>(bytes)]);
  if (!packed_in || !packed_inout) {
    return make_error(MPI_ERR_NO_MEM, "no memory for %lld bytes to reduce %s",
                      static_cast<long long>(2 * bytes), datatype_name(type.handle));
  }
  type.pack(in, count, packed_in.get());
  type.pack(inout, count, packed_inout.get());
  op_kernel(kind, base.element_kind, true)(packed_in.get(), packed_inout.get(), values);
  type.unpack(packed_inout.get(), bytes, count, inout);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi

namespace stmpi::impl {
namespace {

using mpi::errhan::make_error;

int register_user_op(MPI_User_function* user_fn, MPI_User_function_c* user_fn_c, int commute,
                     MPI_Op* op) {
  if (op == nullptr) return make_error(MPI_ERR_ARG, "op is NULL");
  if (user_fn == nullptr && user_fn_c == nullptr) return make_error(MPI_ERR_ARG, "user_fn is NULL");
  auto* object = new (std::nothrow) mpi::Op;
  if (object == nullptr) return make_error(MPI_ERR_NO_MEM, "out of memory creating an operation");
  object->commutative = commute != 0;
  object->user_fn = user_fn;
  object->user_fn_c = user_fn_c;
  *op = mpi::op_register(object);
  return MPI_SUCCESS;
}

}  // namespace

template <class UserFunction>
int op_create_any(UserFunction* user_fn, int commute, MPI_Op* op) {
  if constexpr (std::is_same_v<UserFunction, MPI_User_function_c>)
    return register_user_op(nullptr, user_fn, commute, op);
  else return register_user_op(user_fn, nullptr, commute, op);
}
template decltype(op_create_any<MPI_User_function>) op_create_any<MPI_User_function>;
template decltype(op_create_any<MPI_User_function_c>) op_create_any<MPI_User_function_c>;

int op_free(MPI_Op* op) {
  if (op == nullptr) return make_error(MPI_ERR_ARG, "op is NULL");
  if (*op == MPI_OP_NULL) return make_error(MPI_ERR_OP, "op is MPI_OP_NULL");
  mpi::Op* object = mpi::op_get(*op);
  if (object == nullptr) {
    return make_error(MPI_ERR_OP, "op = 0x%x is not a valid operation", static_cast<unsigned>(*op));
  }
  if (object->predefined) {
    return make_error(MPI_ERR_OP, "%s is a predefined operation and cannot be freed",
                      mpi::op_name(*op));
  }
  mpi::op_release(object);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int op_commutative(mpi::Op& op, int* commute) {
  if (commute == nullptr) return make_error(MPI_ERR_ARG, "commute is NULL");
  *commute = op.commutative ? 1 : 0;
  return MPI_SUCCESS;
}

int reduce_local_any(const void* inbuf, void* inoutbuf, MPI_Count count, mpi::Datatype& datatype,
                     mpi::Op& op) {
  if (count < 0) {
    return make_error(MPI_ERR_COUNT, "count = %lld must not be negative",
                      static_cast<long long>(count));
  }
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) {
    return make_error(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in MPI_Reduce_local");
  }
  if (mpi::op_is_rma_only(op)) {
    return make_error(MPI_ERR_OP, "%s is only valid in one-sided accumulate operations",
                      mpi::op_name(op.handle));
  }
  if (int err = mpi::op_check(op, datatype)) return err;
  return mpi::op_apply(op, inbuf, inoutbuf, count, datatype);
}

}  // namespace stmpi::impl
