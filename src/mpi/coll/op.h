// MPI_Op: the predefined reduction operations and user functions, and how
// they combine two buffers of a datatype (used by collectives, by
// MPI_Reduce_local and by one-sided accumulates).
#pragma once

#include <atomic>

#include <mpi.h>

#include "mpi/handle.h"

namespace stmpi::mpi {

struct Datatype;

struct Op {
  int handle = 0;
  bool commutative = true;
  bool predefined = false;
  MPI_User_function* user_fn = nullptr;
  MPI_User_function_c* user_fn_c = nullptr;  // set instead of user_fn by MPI_Op_create_c
  std::atomic<int> refs{1};
};

HandleTable<Op, ObjectKind::kOp>& op_table();
Op* op_get(int handle);     // nullptr for invalid handles and MPI_OP_NULL
void op_init_predefined();  // registers MPI_MAX ... MPI_NO_OP (idempotent)
int op_register(Op* op);    // a new user op (refs = 1); returns its handle
void op_retain(Op* op);
void op_release(Op* op);          // predefined operations are never destroyed
const char* op_name(int handle);  // "MPI_SUM", "user-defined operation", ...

// inout[i] = in[i] op inout[i] for `count` instances of `type`; returns
// MPI_SUCCESS or MPI_ERR_OP when the op does not apply to the type. Both
// buffers have the layout of `type`. User ops call the user function with
// the handle of the type. MPI_REPLACE copies in to inout; MPI_NO_OP leaves
// inout alone.
[[nodiscard]] int op_apply(const Op& op, const void* in, void* inout, MPI_Count count,
                           const Datatype& type);

// Validates op/type compatibility up front (collectives check before
// sending anything). Predefined ops apply to predefined types of their
// groups and to derived types whose elements are all one such type.
[[nodiscard]] int op_check(const Op& op, const Datatype& type);

// MPI_REPLACE and MPI_NO_OP: valid only in one-sided accumulates.
bool op_is_rma_only(const Op& op);

}  // namespace stmpi::mpi
