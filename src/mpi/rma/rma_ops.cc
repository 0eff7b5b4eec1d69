// The communication calls (MPI 4.1 section 12.3): Put, Get, Accumulate,
// Get_accumulate, Fetch_and_op, Compare_and_swap and their request-based
// forms. Each checks the epoch and the arguments, resolves the target side
// (target.h), packs a noncontiguous origin and hands the transfer to the
// device RMA interface. Shared memory and single copy complete before the
// call returns, so the request-based forms return complete requests.
#include <vector>

#include <mpi.h>

#include "device/rma/rma.h"
#include "mpi/coll/op.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/request/request.h"
#include "mpi/rma/impl_rma.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/stream_hooks.h"
#include "mpi/rma/target.h"
#include "mpi/rma/win.h"

namespace stmpi::mpi::rma {
namespace {

using errhan::make_error;

int check_same_size(MPI_Count count_a, const Datatype& type_a, const char* what_a,
                    MPI_Count count_b, const Datatype& type_b, const char* function) {
  const MPI_Count a = count_a * type_a.size;
  const MPI_Count b = count_b * type_b.size;
  if (a == b) return MPI_SUCCESS;
  return make_error(MPI_ERR_TYPE,
                    "%s: the %s data (%lld x %s = %lld bytes) and the target data (%lld x %s = "
                    "%lld bytes) differ in size",
                    function, what_a, static_cast<long long>(count_a), datatype_name(type_a.handle),
                    static_cast<long long>(a), static_cast<long long>(count_b),
                    datatype_name(type_b.handle), static_cast<long long>(b));
}

// The predefined type an accumulate's data is made of, or an error.
int basic_type_of(const Datatype& type, const char* arg, const char* function,
                  const Datatype** basic) {
  *basic = type.layout.base_type != 0 ? datatype_get(type.layout.base_type) : nullptr;
  if (*basic != nullptr) return MPI_SUCCESS;
  return make_error(MPI_ERR_TYPE,
                    "%s: %s %s mixes different predefined types; accumulates need data of one "
                    "predefined type",
                    function, arg, datatype_name(type.handle));
}

int check_same_basic(const Datatype& type, const Datatype& basic, const char* arg,
                     const char* function) {
  if (type.layout.base_type == basic.handle) return MPI_SUCCESS;
  return make_error(MPI_ERR_TYPE, "%s: %s %s is not made of %s like the target datatype", function,
                    arg, datatype_name(type.handle), datatype_name(basic.handle));
}

int do_put(const void* origin, MPI_Count ocount, const Datatype& otype, int target, MPI_Aint disp,
           MPI_Count tcount, const Datatype& ttype, Win& win, const char* function) {
  if (int err = check_same_size(ocount, otype, "origin", tcount, ttype, function)) return err;
  if (tcount * ttype.size == 0) return MPI_SUCCESS;
  TargetSpan span;
  if (int err = resolve_target(win, target, disp, tcount, ttype, function, &span)) return err;
  if (win.epoch.stream_access)
    return mpix::stream_record_put(win, target, span, origin, ocount, otype);
  std::vector<char> storage;
  const char* packed = packed_origin(origin, ocount, otype, storage);
  return dev::rma::put(span.region, span.runs.span(), packed);
}

int do_get(void* origin, MPI_Count ocount, const Datatype& otype, int target, MPI_Aint disp,
           MPI_Count tcount, const Datatype& ttype, Win& win, const char* function) {
  if (int err = check_same_size(ocount, otype, "origin", tcount, ttype, function)) return err;
  if (tcount * ttype.size == 0) return MPI_SUCCESS;
  TargetSpan span;
  if (int err = resolve_target(win, target, disp, tcount, ttype, function, &span)) return err;
  if (win.epoch.stream_access)
    return mpix::stream_record_get(win, target, span, origin, ocount, otype);
  std::vector<char> storage;
  char* out = static_cast<char*>(origin) + otype.true_lb;
  if (!otype.contiguous) {
    storage.resize(static_cast<std::size_t>(ocount * otype.size));
    out = storage.data();
  }
  dev::rma::Completion done;
  if (int err = dev::rma::get(span.region, span.runs.span(), out, &done)) return err;
  if (int err = dev::rma::wait(done)) return err;
  if (!otype.contiguous) otype.unpack(storage.data(), ocount * otype.size, ocount, origin);
  return MPI_SUCCESS;
}

// Accumulate and get-accumulate. `otype` is null for MPI_NO_OP (origin
// ignored); `rtype` is null without a result.
int do_accumulate(const void* origin, MPI_Count ocount, const Datatype* otype, void* result,
                  MPI_Count rcount, const Datatype* rtype, int target, MPI_Aint disp,
                  MPI_Count tcount, const Datatype& ttype, const Op& op, Win& win,
                  const char* function) {
  if (!op.predefined)
    return make_error(MPI_ERR_OP,
                      "%s: user-defined operations cannot be used in one-sided accumulates; use a "
                      "predefined operation, MPI_REPLACE or MPI_NO_OP",
                      function);
  const bool no_op = op.handle == MPI_NO_OP;
  if (no_op) otype = nullptr;
  // Nothing moves (zero counts or zero-size types): nothing to check or do,
  // whatever the types are made of (MPICH's rma/badrma).
  if (tcount * ttype.size == 0 && (otype == nullptr || ocount * otype->size == 0) &&
      (rtype == nullptr || rcount * rtype->size == 0))
    return MPI_SUCCESS;
  const Datatype* basic = nullptr;
  if (int err = basic_type_of(ttype, "target_datatype", function, &basic)) return err;
  if (otype != nullptr) {
    if (int err = check_same_basic(*otype, *basic, "origin_datatype", function)) return err;
    if (int err = check_same_size(ocount, *otype, "origin", tcount, ttype, function)) return err;
  }
  if (rtype != nullptr) {
    if (int err = check_same_basic(*rtype, *basic, "result_datatype", function)) return err;
    if (int err = check_same_size(rcount, *rtype, "result", tcount, ttype, function)) return err;
  }
  // An empty access moves no element, so it is valid whatever the operation is
  // defined for (as in MPICH: mpi4py probes Get_accumulate with MPI_BYTE, count 0).
  if (tcount * ttype.size == 0) return MPI_SUCCESS;
  if (int err = op_check(op, *basic)) return err;
  TargetSpan span;
  if (int err = resolve_target(win, target, disp, tcount, ttype, function, &span)) return err;
  if (win.epoch.stream_access)
    return mpix::stream_record_accumulate(win, target, span, origin, ocount, otype,
                                          accumulate_op(op, *basic), rtype != nullptr, function);
  std::vector<char> in_storage, out_storage;
  const char* in = otype != nullptr ? packed_origin(origin, ocount, *otype, in_storage) : nullptr;
  char* out = nullptr;
  if (rtype != nullptr) {
    out = static_cast<char*>(result) + rtype->true_lb;
    if (!rtype->contiguous) {
      out_storage.resize(static_cast<std::size_t>(rcount * rtype->size));
      out = out_storage.data();
    }
  }
  dev::rma::Completion done;
  const dev::rma::AccumulateOp acc = accumulate_op(op, *basic);
  if (int err = dev::rma::accumulate(span.region, span.runs.span(), acc, in, out, &done))
    return err;
  if (int err = dev::rma::wait(done)) return err;
  if (rtype != nullptr && !rtype->contiguous)
    rtype->unpack(out_storage.data(), rcount * rtype->size, rcount, result);
  return MPI_SUCCESS;
}

// The common prologue: MPI_PROC_NULL (nothing to do), rank, epoch.
// Returns 1 when the call is a no-op, else an error code or 0.
int enter(Win& win, int target, bool request_based, const char* function, int* err) {
  *err = MPI_SUCCESS;
  if (target == MPI_PROC_NULL) return 1;
  if ((*err = check_rank(win, target, "target_rank"))) return 1;
  if (request_based && (*err = check_passive(win, target, function))) return 1;
  if ((*err = check_access(win, target, function))) return 1;
  return 0;
}

// Request-based calls: the operation is complete when they return.
int complete_request(int err, MPI_Request* request) {
  if (err != MPI_SUCCESS) return err;
  Request* req = request_create(Request::Kind::kDone);
  req->dev.done.store(true, std::memory_order_release);
  *request = req->handle;
  return MPI_SUCCESS;
}

int put_call(const void* origin, MPI_Count ocount, const Datatype& otype, int target, MPI_Aint disp,
             MPI_Count tcount, const Datatype& ttype, Win& win, bool request_based,
             const char* function) {
  int err = MPI_SUCCESS;
  if (enter(win, target, request_based, function, &err)) return err;
  return do_put(origin, ocount, otype, target, disp, tcount, ttype, win, function);
}

int get_call(void* origin, MPI_Count ocount, const Datatype& otype, int target, MPI_Aint disp,
             MPI_Count tcount, const Datatype& ttype, Win& win, bool request_based,
             const char* function) {
  int err = MPI_SUCCESS;
  if (enter(win, target, request_based, function, &err)) return err;
  return do_get(origin, ocount, otype, target, disp, tcount, ttype, win, function);
}

int accumulate_call(const void* origin, MPI_Count ocount, const Datatype* otype, void* result,
                    MPI_Count rcount, const Datatype* rtype, int target, MPI_Aint disp,
                    MPI_Count tcount, const Datatype& ttype, const Op& op, Win& win,
                    bool request_based, const char* function) {
  int err = MPI_SUCCESS;
  if (enter(win, target, request_based, function, &err)) return err;
  return do_accumulate(origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype,
                       op, win, function);
}

}  // namespace
}  // namespace stmpi::mpi::rma

namespace stmpi::impl {

using mpi::rma::accumulate_call;
using mpi::rma::complete_request;
using mpi::rma::get_call;
using mpi::rma::put_call;

// Each operation serves its blocking form (request null) and its
// request-based form, whose request is complete on return.
int put_any(const void* origin_addr, MPI_Count origin_count, mpi::Datatype& origin_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            mpi::Datatype& target_datatype, mpi::Win& win, MPI_Request* request) {
  const bool request_based = request != nullptr;
  const int err =
      put_call(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, win, request_based, request_based ? "MPI_Rput" : "MPI_Put");
  return request_based ? complete_request(err, request) : err;
}

int get_any(void* origin_addr, MPI_Count origin_count, mpi::Datatype& origin_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            mpi::Datatype& target_datatype, mpi::Win& win, MPI_Request* request) {
  const bool request_based = request != nullptr;
  const int err =
      get_call(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
               target_datatype, win, request_based, request_based ? "MPI_Rget" : "MPI_Get");
  return request_based ? complete_request(err, request) : err;
}

int accumulate_any(const void* origin_addr, MPI_Count origin_count, mpi::Datatype& origin_datatype,
                   int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                   mpi::Datatype& target_datatype, mpi::Op& op, mpi::Win& win,
                   MPI_Request* request) {
  const bool request_based = request != nullptr;
  const int err =
      accumulate_call(origin_addr, origin_count, &origin_datatype, nullptr, 0, nullptr, target_rank,
                      target_disp, target_count, target_datatype, op, win, request_based,
                      request_based ? "MPI_Raccumulate" : "MPI_Accumulate");
  return request_based ? complete_request(err, request) : err;
}

int get_accumulate_any(const void* origin_addr, MPI_Count origin_count,
                       mpi::Datatype* origin_datatype, void* result_addr, MPI_Count result_count,
                       mpi::Datatype& result_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, mpi::Datatype& target_datatype, mpi::Op& op,
                       mpi::Win& win, MPI_Request* request) {
  const bool request_based = request != nullptr;
  const int err = accumulate_call(origin_addr, origin_count, origin_datatype, result_addr,
                                  result_count, &result_datatype, target_rank, target_disp,
                                  target_count, target_datatype, op, win, request_based,
                                  request_based ? "MPI_Rget_accumulate" : "MPI_Get_accumulate");
  return request_based ? complete_request(err, request) : err;
}

int fetch_and_op(const void* origin_addr, void* result_addr, mpi::Datatype& datatype,
                 int target_rank, MPI_Aint target_disp, mpi::Op& op, mpi::Win& win) {
  if (!datatype.predefined)
    return mpi::errhan::make_error(MPI_ERR_TYPE, "MPI_Fetch_and_op: datatype %s is not predefined",
                                   mpi::datatype_name(datatype.handle));
  return accumulate_call(origin_addr, 1, &datatype, result_addr, 1, &datatype, target_rank,
                         target_disp, 1, datatype, op, win, false, "MPI_Fetch_and_op");
}

int compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                     mpi::Datatype& datatype, int target_rank, MPI_Aint target_disp,
                     mpi::Win& win) {
  constexpr const char* kFunction = "MPI_Compare_and_swap";
  const mpi::TypeClass kind = datatype.type_class;
  if (!datatype.predefined || (kind != mpi::TypeClass::kInteger &&
                               kind != mpi::TypeClass::kLogical && kind != mpi::TypeClass::kByte))
    return mpi::errhan::make_error(MPI_ERR_TYPE,
                                   "%s: datatype %s is not an integer, logical or byte type",
                                   kFunction, mpi::datatype_name(datatype.handle));
  int err = MPI_SUCCESS;
  if (mpi::rma::enter(win, target_rank, false, kFunction, &err)) return err;
  if (win.epoch.stream_access) return mpi::mpix::stream_unsupported(win, kFunction);
  mpi::rma::TargetSpan span;
  if ((err =
           mpi::rma::resolve_target(win, target_rank, target_disp, 1, datatype, kFunction, &span)))
    return err;
  dev::rma::Completion done;
  const dev::rma::AccumulateOp acc = mpi::rma::accumulate_op(*mpi::op_get(MPI_REPLACE), datatype);
  if ((err = dev::rma::compare_swap(span.region, span.runs.span()[0].offset, acc, compare_addr,
                                    origin_addr, result_addr, &done)))
    return err;
  return dev::rma::wait(done);
}

}  // namespace stmpi::impl
