// One keyed attribute table for every object kind that caches attributes
// (MPI 4.1 section 7.7): communicators, datatypes and windows each hold an
// AttributeTable<Kind>, and the set/get/delete, copy-on-dup and
// delete-on-free rules live here once. The kinds differ only in their
// callbacks and names (attr_table.cc).
#pragma once

#include <list>

namespace stmpi::mpi {

struct Keyval;
// The object kinds (defined in attr_table.cc).
struct CommAttrs;
struct TypeAttrs;
struct WinAttrs;

// How an attribute value was given (MPI 4.1 section 19.3.7), with the values
// MPICH's Fortran library passes to the MPII_*_attr hooks: a C pointer, a
// Fortran INTEGER(KIND=MPI_ADDRESS_KIND), or a Fortran INTEGER. The two
// integer kinds store the value itself; C sees them through a pointer to the
// stored value, Fortran sees a C pointer as an address-sized integer.
enum class AttrType : int { kPointer = 0, kAint = 1, kInt = 3 };
inline bool attr_is_integer(AttrType type) { return (static_cast<int>(type) & 1) != 0; }

// One cached attribute; the attribute holds a reference on its keyval.
struct Attribute {
  Keyval* keyval = nullptr;
  void* value = nullptr;
  AttrType type = AttrType::kPointer;
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
  [[nodiscard]] int set(int object, int keyval, void* value, AttrType type, const char* function);
  // MPI_*_get_attr for a user keyval, read as `as`: from C (kPointer) an
  // integer attribute reads as a pointer to its stored value; from Fortran
  // every attribute reads as the address-sized integer it holds (written to
  // *static_cast<intptr_t*>(value); the caller takes the low INTEGER).
  [[nodiscard]] int get(int keyval, void* value, int* flag, AttrType as,
                        const char* function) const;
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
  std::list<Attribute>::iterator find(const Keyval* keyval);
  std::list<Attribute>::const_iterator find(const Keyval* keyval) const;
  int call_delete(int object, const Attribute& attribute) const;

  // A list, so that the address of a stored integer value that a C caller
  // reads stays valid while other attributes come and go.
  std::list<Attribute> items_;
};

}  // namespace stmpi::mpi
