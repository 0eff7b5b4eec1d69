// Keyvals and the keyed attribute table shared by communicators, datatypes
// and windows (MPI 4.1 section 7.7). The three object kinds differ only in
// which callbacks of a keyval they call and how messages name them.
#include "mpi/comm/attr_table.h"

#include <algorithm>
#include <cstdint>

#include <mpi.h>

#include "mpi/comm/keyval.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/errhan/user_errors.h"

namespace stmpi::mpi {

struct CommAttrs {
  static constexpr Keyval::Kind kKind = Keyval::Kind::kComm;
  static auto* copy_fn(const Keyval& k) { return k.comm_copy_fn; }
  static auto* delete_fn(const Keyval& k) { return k.comm_delete_fn; }
};

struct TypeAttrs {
  static constexpr Keyval::Kind kKind = Keyval::Kind::kType;
  static auto* copy_fn(const Keyval& k) { return k.type_copy_fn; }
  static auto* delete_fn(const Keyval& k) { return k.type_delete_fn; }
};

struct WinAttrs {
  static constexpr Keyval::Kind kKind = Keyval::Kind::kWin;
  static auto* copy_fn(const Keyval& k) { return k.win_copy_fn; }
  static auto* delete_fn(const Keyval& k) { return k.win_delete_fn; }
};

namespace {

HandleTable<Keyval, ObjectKind::kKeyval> g_keyvals;

const char* kind_name(Keyval::Kind kind) {
  switch (kind) {
    case Keyval::Kind::kComm: return "communicator";
    case Keyval::Kind::kType: return "datatype";
    case Keyval::Kind::kWin: return "window";
  }
  return "?";
}

const char* kind_plural(Keyval::Kind kind) {
  switch (kind) {
    case Keyval::Kind::kComm: return "communicators";
    case Keyval::Kind::kType: return "datatypes";
    case Keyval::Kind::kWin: return "windows";
  }
  return "?";
}

// The predefined (read-only) attribute keys of each kind, under their C
// numbers and their Fortran numbers (the C number plus one, as MPICH's
// mpif.h has them).
bool predefined_keyval(int keyval, Keyval::Kind kind) {
  if ((keyval & 1) == 0) keyval -= 1;
  switch (kind) {
    case Keyval::Kind::kComm:
      return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
             keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE ||
             keyval == MPI_LASTUSEDCODE || keyval == MPI_APPNUM;
    case Keyval::Kind::kWin:
      return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
             keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
    case Keyval::Kind::kType: return false;
  }
  return false;
}

// A callback's error code as ours: its class if it is an MPI error code or
// class, else MPI_ERR_OTHER.
int callback_error(int err, const char* which, const Keyval& keyval) {
  const int error_class = known_code(err) ? errhan::error_class_of(err) : MPI_SUCCESS;
  return errhan::make_error(error_class == MPI_SUCCESS ? MPI_ERR_OTHER : error_class,
                            "the %s callback of %s keyval 0x%x returned %d", which,
                            kind_name(keyval.kind), keyval.handle, err);
}

}  // namespace

// ---- keyvals ----

HandleTable<Keyval, ObjectKind::kKeyval>& keyval_table() { return g_keyvals; }

Keyval* keyval_get(int handle, Keyval::Kind kind) {
  Keyval* keyval = g_keyvals.get(handle);
  if (keyval == nullptr || keyval->freed_by_user || keyval->kind != kind) return nullptr;
  return keyval;
}

Keyval* keyval_in_use(int handle, Keyval::Kind kind) {
  Keyval* keyval = g_keyvals.get(handle);
  if (keyval == nullptr || keyval->kind != kind) return nullptr;
  return keyval;
}

int keyval_error(int handle, Keyval::Kind kind, const char* function) {
  if (handle == MPI_KEYVAL_INVALID)
    return errhan::make_error(MPI_ERR_KEYVAL, "%s: keyval is MPI_KEYVAL_INVALID", function);
  if (predefined_keyval(handle, kind))
    return errhan::make_error(MPI_ERR_KEYVAL,
                              "%s: keyval 0x%x is a predefined %s attribute and read-only",
                              function, handle, kind_name(kind));
  const Keyval* other = g_keyvals.get(handle);
  if (other != nullptr && other->kind != kind)
    return errhan::make_error(MPI_ERR_KEYVAL, "%s: keyval 0x%x was made for %s, not for %s",
                              function, handle, kind_plural(other->kind), kind_plural(kind));
  if (other != nullptr)
    return errhan::make_error(MPI_ERR_KEYVAL,
                              "%s: keyval 0x%x was freed (its remaining attributes can still be "
                              "read and deleted, but no new value set)",
                              function, handle);
  return errhan::make_error(MPI_ERR_KEYVAL,
                            "%s: keyval 0x%x is not a valid %s keyval (freed or never created)",
                            function, handle, kind_name(kind));
}

int keyval_free(int* handle, Keyval::Kind kind, const char* function) {
  Keyval* keyval = keyval_in_use(*handle, kind);
  if (keyval == nullptr) return keyval_error(*handle, kind, function);
  if (!keyval->freed_by_user) {
    keyval->freed_by_user = true;
    keyval_release(keyval);
  }
  *handle = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

Keyval* keyval_create(Keyval::Kind kind) {
  auto* keyval = new Keyval;
  keyval->kind = kind;
  keyval->handle = g_keyvals.add(keyval);
  return keyval;
}

void keyval_retain(Keyval* keyval) { keyval->refs.fetch_add(1, std::memory_order_relaxed); }

void keyval_release(Keyval* keyval) {
  if (keyval->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    g_keyvals.remove(keyval->handle);
    delete keyval;
  }
}

// ---- the attribute table ----

namespace {

// The C callbacks receive an integer attribute (set from Fortran) as a
// pointer to its value.
template <class Kind>
int call_delete_fn(const Keyval& keyval, int object, const Attribute& attribute) {
  auto* fn = Kind::delete_fn(keyval);
  if (fn == nullptr) return MPI_SUCCESS;
  const int type = static_cast<int>(attribute.type);
  if (keyval.delete_proxy != nullptr)
    return keyval.delete_proxy(reinterpret_cast<MPI_Comm_delete_attr_function*>(fn), object,
                               keyval.handle, type, attribute.value, keyval.extra_state);
  void* value = attribute.value;
  void* arg = attr_is_integer(attribute.type) ? static_cast<void*>(&value) : value;
  return fn(object, keyval.handle, arg, keyval.extra_state);
}

template <class Kind>
int call_copy_fn(const Keyval& keyval, int object, const Attribute& attribute, void** copy,
                 int* flag) {
  auto* fn = Kind::copy_fn(keyval);
  const int type = static_cast<int>(attribute.type);
  if (keyval.copy_proxy != nullptr)
    return keyval.copy_proxy(reinterpret_cast<MPI_Comm_copy_attr_function*>(fn), object,
                             keyval.handle, keyval.extra_state, type, attribute.value, copy, flag);
  void* value = attribute.value;
  void* arg = attr_is_integer(attribute.type) ? static_cast<void*>(&value) : value;
  return fn(object, keyval.handle, keyval.extra_state, arg, copy, flag);
}

}  // namespace

template <class Kind>
std::list<Attribute>::iterator AttributeTable<Kind>::find(const Keyval* keyval) {
  return std::find_if(items_.begin(), items_.end(),
                      [keyval](const Attribute& a) { return a.keyval == keyval; });
}

template <class Kind>
std::list<Attribute>::const_iterator AttributeTable<Kind>::find(const Keyval* keyval) const {
  return std::find_if(items_.begin(), items_.end(),
                      [keyval](const Attribute& a) { return a.keyval == keyval; });
}

template <class Kind>
int AttributeTable<Kind>::call_delete(int object, const Attribute& attribute) const {
  const Keyval* keyval = attribute.keyval;
  const int err = call_delete_fn<Kind>(*keyval, object, attribute);
  return err == MPI_SUCCESS ? err : callback_error(err, "delete", *keyval);
}

template <class Kind>
int AttributeTable<Kind>::set(int object, int handle, void* value, AttrType type,
                              const char* function) {
  Keyval* keyval = keyval_get(handle, Kind::kKind);
  if (keyval == nullptr) return keyval_error(handle, Kind::kKind, function);
  if (auto it = find(keyval); it != items_.end()) {
    if (int err = call_delete(object, *it); err != MPI_SUCCESS) return err;
    // The callback may have changed the table.
    if (it = find(keyval); it != items_.end()) {
      it->value = value;
      it->type = type;
      return MPI_SUCCESS;
    }
  }
  keyval_retain(keyval);
  items_.push_back(Attribute{keyval, value, type});
  return MPI_SUCCESS;
}

template <class Kind>
int AttributeTable<Kind>::get(int handle, void* value, int* flag, AttrType as,
                              const char* function) const {
  const Keyval* keyval = keyval_in_use(handle, Kind::kKind);
  if (keyval == nullptr) return keyval_error(handle, Kind::kKind, function);
  auto it = find(keyval);
  *flag = it != items_.end();
  if (!*flag) return MPI_SUCCESS;
  if (as != AttrType::kPointer)
    *static_cast<intptr_t*>(value) = reinterpret_cast<intptr_t>(it->value);
  else if (attr_is_integer(it->type)) *static_cast<void**>(value) = const_cast<void**>(&it->value);
  else *static_cast<void**>(value) = it->value;
  return MPI_SUCCESS;
}

template <class Kind>
int AttributeTable<Kind>::remove(int object, int handle, const char* function) {
  Keyval* keyval = keyval_in_use(handle, Kind::kKind);
  if (keyval == nullptr) return keyval_error(handle, Kind::kKind, function);
  auto it = find(keyval);
  if (it == items_.end()) return MPI_SUCCESS;
  if (int err = call_delete(object, *it); err != MPI_SUCCESS) return err;
  // The callback may have changed the table.
  if (it = find(keyval); it == items_.end()) return MPI_SUCCESS;
  items_.erase(it);
  keyval_release(keyval);
  return MPI_SUCCESS;
}

template <class Kind>
int AttributeTable<Kind>::copy_to(int object, AttributeTable& to) const {
  for (const Attribute& attribute : items_) {
    Keyval* keyval = attribute.keyval;
    if (Kind::copy_fn(*keyval) == nullptr) continue;
    void* copy = nullptr;
    int flag = 0;
    const int err = call_copy_fn<Kind>(*keyval, object, attribute, &copy, &flag);
    if (err != MPI_SUCCESS) return callback_error(err, "copy", *keyval);
    if (flag == 0) continue;
    keyval_retain(keyval);
    to.items_.push_back(Attribute{keyval, copy, attribute.type});
  }
  return MPI_SUCCESS;
}

template <class Kind>
int AttributeTable<Kind>::delete_all(int object) {
  while (!items_.empty()) {
    const Attribute attribute = items_.back();
    if (int err = call_delete(object, attribute); err != MPI_SUCCESS) return err;
    // The callback may have changed the table.
    if (auto it = find(attribute.keyval); it != items_.end()) {
      items_.erase(it);
      keyval_release(attribute.keyval);
    }
  }
  return MPI_SUCCESS;
}

template <class Kind>
void AttributeTable<Kind>::release_all() {
  for (const Attribute& attribute : items_) keyval_release(attribute.keyval);
  items_.clear();
}

template class AttributeTable<CommAttrs>;
template class AttributeTable<TypeAttrs>;
template class AttributeTable<WinAttrs>;

}  // namespace stmpi::mpi
