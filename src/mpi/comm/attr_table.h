// One keyed attribute table for every object kind that caches attributes
// (MPI 4.1 section 7.7): communicators, datatypes and windows each hold an
// AttributeTable<Kind>, and the set/get/delete, copy-on-dup and
// delete-on-free rules live here once. The kinds differ only in their
// callbacks and names (attr_table.cc).
#pragma once

#include <vector>

namespace stmpi::mpi {

struct Keyval;
// The object kinds (defined in attr_table.cc).
struct CommAttrs;
struct TypeAttrs;
struct WinAttrs;

// One cached attribute; the attribute holds a reference on its keyval.
struct Attribute {
  Keyval* keyval = nullptr;
  void* value = nullptr;
};

// The attributes cached on one object, in the order they were first set.
// `object` is the object's handle, passed to the callbacks; `function` names
// the MPI call in error messages.
//
// A keyval freed by the user stays usable for reading and deleting
// attributes until its last attribute is gone (then its handle is invalid);
// setting a new value with it is MPI_ERR_KEYVAL. Callbacks run with the
// keyval held, and may change the table (even free their own keyval).
template <class Kind>
class AttributeTable {
 public:
  // MPI_*_set_attr: replaces an existing value (after its delete callback).
  [[nodiscard]] int set(int object, int keyval, void* value, const char* function);
  // MPI_*_get_attr for a user keyval: *static_cast<void**>(value) and *flag.
  [[nodiscard]] int get(int keyval, void* value, int* flag, const char* function) const;
  // MPI_*_delete_attr: runs the delete callback, then drops the attribute
  // (it stays when the callback fails).
  [[nodiscard]] int remove(int object, int keyval, const char* function);
  // Runs the copy callbacks (MPI_*_dup) and caches on `to` the copies the
  // callbacks ask for. Returns the first callback error.
  [[nodiscard]] int copy_to(int object, AttributeTable& to) const;
  // Runs the delete callbacks of all attributes, newest first, and drops
  // them. Stops at (and returns) the first callback error.
  [[nodiscard]] int delete_all(int object);
  // Drops the attributes without callbacks (the object is being destroyed).
  void release_all();
  bool empty() const { return items_.empty(); }

 private:
  std::vector<Attribute>::iterator find(const Keyval* keyval);
  std::vector<Attribute>::const_iterator find(const Keyval* keyval) const;
  int call_delete(int object, const Attribute& attribute) const;

  std::vector<Attribute> items_;
};

}  // namespace stmpi::mpi
