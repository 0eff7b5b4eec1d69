// Choice buffers of the mpi_f08 module: a Fortran array descriptor
// (CFI_cdesc_t, TYPE(*), DIMENSION(..)) turned into the (address, count,
// datatype) of a C call. A non-contiguous section is described by a derived
// datatype built from the descriptor's strides, never copied, where the
// buffer's own count and datatype describe it; a blocking call whose buffer
// shares its count with another goes through a contiguous temporary; a
// nonblocking one of those fails with MPI_ERR_BUFFER (src/binding/f08/README.md).
#pragma once

#include <ISO_Fortran_binding.h>

#include <initializer_list>
#include <vector>

#include "mpi.h"

namespace stmpi::binding::f08 {

enum class Mode {
  kAddress,     // the first element's address, whatever the layout
  kContiguous,  // a non-contiguous section is an error
  kCopy,        // a non-contiguous section goes through a contiguous temporary
};
enum class Dir { kIn, kOut, kInout };

class Choice {
 public:
  // The buffer's own count and datatype describe it: a section is retyped;
  // with a datatype that has gaps, a blocking call (may_copy) goes through a
  // contiguous temporary instead, a nonblocking one fails with MPI_ERR_TYPE.
  Choice(CFI_cdesc_t* desc, MPI_Count count, MPI_Datatype datatype, Dir dir, bool may_copy);
  Choice(CFI_cdesc_t* desc, Mode mode, Dir dir);
  ~Choice();
  Choice(const Choice&) = delete;
  Choice& operator=(const Choice&) = delete;

  void* ptr() const { return ptr_; }
  template <class T>
  T count(T c) const {
    return retyped_ ? T(1) : c;
  }
  MPI_Datatype type(MPI_Datatype t) const { return retyped_ ? type_ : t; }
  int error() const { return error_; }
  // After the C call: copies a temporary back into the section.
  void finish(int rc);

 private:
  void retype(MPI_Count count, MPI_Datatype datatype, bool may_copy);
  void copy_in();

  CFI_cdesc_t* desc_;
  void* ptr_ = nullptr;
  bool retyped_ = false;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  std::vector<char> temp_;
  Dir dir_ = Dir::kIn;
  int error_ = MPI_SUCCESS;
};

int first_error(std::initializer_list<const Choice*> buffers);

// MPI_STATUS_IGNORE of the Fortran modules (the MPIPRIV1 common block) to C's.
MPI_Status* status_in(MPI_Status* status);
inline const MPI_Status* status_in(const MPI_Status* status) {
  return status_in(const_cast<MPI_Status*>(status));
}

// Raises an error of the glue itself through the right error handler.
class Raise {
 public:
  static Raise comm(MPI_Comm c) { return Raise(0, c); }
  static Raise win(MPI_Win w) { return Raise(1, w); }
  static Raise file(MPI_Fint f) { return Raise(2, f); }
  static Raise none() { return Raise(0, MPI_COMM_SELF); }
  int fail(int err) const;

 private:
  Raise(int what, int handle) : what_(what), handle_(handle) {}
  int what_;
  int handle_;
};

}  // namespace stmpi::binding::f08
