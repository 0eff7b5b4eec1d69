// Window objects as MPI objects: the handle table, error handlers,
// attributes (predefined MPI_WIN_* and user keyvals), names, the group and
// info hints (MPI 4.1 sections 12.2.6-12.2.7, 7.7.3, 9.3.2).
#include <cstdint>
#include <cstring>
#include <string>

#include <mpi.h>

#include "mpi/comm/comm.h"
#include "mpi/comm/keyval.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/info/info.h"
#include "mpi/rma/impl_rma.h"
#include "mpi/rma/rma_internal.h"
#include "mpi/rma/win.h"

namespace stmpi::mpi {
namespace {

bool info_bool(std::string_view value) { return value == "true" || value == "1" || value == "yes"; }

}  // namespace

int win_set_attr_as(Win& win, int keyval, void* value, AttrType type, const char* function) {
  return win.attributes.set(win.handle, keyval, value, type, function);
}

int win_get_attr_as(Win& win, int keyval, void* value, int* flag, AttrType as,
                    const char* function) {
  // The predefined attributes: C reads pointers (the base itself); Fortran,
  // or their Fortran numbers (the C number plus one), read the values.
  auto* out = static_cast<void**>(value);
  auto* out_int = static_cast<intptr_t*>(value);
  const bool c_number = (keyval & 1) != 0;
  const bool as_value = as != AttrType::kPointer || !c_number;
  const int c_keyval = c_number ? keyval : keyval - 1;
  *flag = 1;
  switch (c_keyval) {
    case MPI_WIN_BASE:
      if (as_value) *out_int = reinterpret_cast<intptr_t>(win.base);
      else *out = win.base;
      return MPI_SUCCESS;
    case MPI_WIN_SIZE:
      if (as_value) *out_int = win.bytes;
      else *out = &win.bytes;
      return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
      if (as_value) *out_int = win.disp_unit;
      else *out = &win.disp_unit;
      return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
      if (as_value) *out_int = win.flavor;
      else *out = &win.flavor;
      return MPI_SUCCESS;
    case MPI_WIN_MODEL:
      if (as_value) *out_int = win.model;
      else *out = &win.model;
      return MPI_SUCCESS;
    default: break;
  }
  *flag = 0;
  return win.attributes.get(keyval, value, flag, as, function);
}

HandleTable<Win, ObjectKind::kWin>& win_table() {
  static HandleTable<Win, ObjectKind::kWin>* const table = new HandleTable<Win, ObjectKind::kWin>;
  return *table;
}

int win_raise(Win* win, int code, const char* function) {
  if (code == MPI_SUCCESS) return code;
  Errhandler* eh = win->errhandler;
  if (eh == nullptr) return errhan::raise_on_comm(nullptr, code, function);
  switch (eh->kind) {
    case Errhandler::Kind::kReturn: return code;
    case Errhandler::Kind::kUserWin: {
      MPI_Win handle = win->handle;
      eh->win_fn(&handle, &code, function);
      return code;
    }
    default: errhan::abort_job(code, function);
  }
}

namespace rma {

void apply_hints(Win& win, int info_handle) {
  const Info* info = info_get(info_handle);
  if (info == nullptr) return;
  if (auto v = info->find("no_locks")) win.hints.no_locks = info_bool(*v);
  if (auto v = info->find("same_size")) win.hints.same_size = info_bool(*v);
  if (auto v = info->find("same_disp_unit")) win.hints.same_disp_unit = info_bool(*v);
  if (auto v = info->find("alloc_shared_noncontig"))
    win.hints.alloc_shared_noncontig = info_bool(*v);
  if (auto v = info->find("accumulate_ordering")) win.hints.accumulate_ordering = *v;
  if (auto v = info->find("accumulate_ops")) win.hints.accumulate_ops = *v;
}

}  // namespace rma
}  // namespace stmpi::mpi

namespace stmpi::impl {

using mpi::Errhandler;
using mpi::Keyval;
using mpi::errhan::make_error;

int win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                          MPI_Errhandler* errhandler) {
  if (win_errhandler_fn == nullptr) return make_error(MPI_ERR_ARG, "win_errhandler_fn is NULL");
  auto* eh = new Errhandler;
  eh->kind = Errhandler::Kind::kUserWin;
  eh->win_fn = win_errhandler_fn;
  eh->handle = mpi::errhandler_table().add(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}

int win_set_errhandler(mpi::Win& win, MPI_Errhandler errhandler) {
  Errhandler* eh = mpi::errhandler_get(errhandler);
  if (eh == nullptr || eh->kind == Errhandler::Kind::kUserComm ||
      eh->kind == Errhandler::Kind::kUserFile)
    return make_error(MPI_ERR_ARG, "errhandler=0x%x is not a window error handler",
                      static_cast<unsigned>(errhandler));
  mpi::errhandler_retain(eh);
  if (win.errhandler != nullptr) mpi::errhandler_release(win.errhandler);
  win.errhandler = eh;
  return MPI_SUCCESS;
}

int win_get_errhandler(mpi::Win& win, MPI_Errhandler* errhandler) {
  mpi::errhandler_retain(win.errhandler);
  *errhandler = win.errhandler->handle;
  return MPI_SUCCESS;
}

int win_call_errhandler(mpi::Win& win, int errorcode) {
  (void)mpi::win_raise(&win, errorcode, "MPI_Win_call_errhandler");
  return MPI_SUCCESS;
}

int win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                      MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                      void* extra_state) {
  Keyval* keyval = mpi::keyval_create(Keyval::Kind::kWin);
  keyval->win_copy_fn = win_copy_attr_fn;
  keyval->win_delete_fn = win_delete_attr_fn;
  keyval->extra_state = extra_state;
  *win_keyval = keyval->handle;
  return MPI_SUCCESS;
}

int win_free_keyval(int* win_keyval) {
  return mpi::keyval_free(win_keyval, Keyval::Kind::kWin, "MPI_Win_free_keyval");
}

int win_set_attr(mpi::Win& win, int win_keyval, void* attribute_val) {
  return mpi::win_set_attr_as(win, win_keyval, attribute_val, mpi::AttrType::kPointer,
                              "MPI_Win_set_attr");
}

int win_get_attr(mpi::Win& win, int win_keyval, void* attribute_val, int* flag) {
  return mpi::win_get_attr_as(win, win_keyval, attribute_val, flag, mpi::AttrType::kPointer,
                              "MPI_Win_get_attr");
}

int win_delete_attr(mpi::Win& win, int win_keyval) {
  return win.attributes.remove(win.handle, win_keyval, "MPI_Win_delete_attr");
}

int win_set_name(mpi::Win& win, const char* win_name) {
  const std::size_t n = std::strlen(win_name);
  if (n >= MPI_MAX_OBJECT_NAME)
    return make_error(MPI_ERR_ARG, "win_name has %zu characters (MPI_MAX_OBJECT_NAME is %d)", n,
                      MPI_MAX_OBJECT_NAME);
  win.name = win_name;
  return MPI_SUCCESS;
}

int win_get_name(mpi::Win& win, char* win_name, int* resultlen) {
  std::memcpy(win_name, win.name.c_str(), win.name.size() + 1);
  *resultlen = static_cast<int>(win.name.size());
  return MPI_SUCCESS;
}

int win_get_group(mpi::Win& win, MPI_Group* group) {
  mpi::group_retain(win.comm->group);
  *group = win.comm->group->handle;
  return MPI_SUCCESS;
}

int win_set_info(mpi::Win& win, MPI_Info info) {
  if (info != MPI_INFO_NULL && mpi::info_get(info) == nullptr)
    return make_error(MPI_ERR_INFO, "info=0x%x is not a valid info object",
                      static_cast<unsigned>(info));
  mpi::rma::apply_hints(win, info);
  return MPI_SUCCESS;
}

int win_get_info(mpi::Win& win, MPI_Info* info_used) {
  mpi::Info* info = mpi::info_create();
  const mpi::WinHints& hints = win.hints;
  info->set("no_locks", hints.no_locks ? "true" : "false");
  info->set("accumulate_ordering", hints.accumulate_ordering);
  info->set("accumulate_ops", hints.accumulate_ops);
  info->set("same_size", hints.same_size ? "true" : "false");
  info->set("same_disp_unit", hints.same_disp_unit ? "true" : "false");
  if (win.flavor == MPI_WIN_FLAVOR_SHARED)
    info->set("alloc_shared_noncontig", hints.alloc_shared_noncontig ? "true" : "false");
  *info_used = info->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
