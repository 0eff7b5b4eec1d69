// stmpi::binding::fortran: what the f77 glue (gen/glue_*.cc, special.cc)
// shares. An f77 entry point takes every argument by reference, INTEGER
// handles equal to the C handles (MPI_Fint is int), hidden CHARACTER lengths
// as trailing size_t arguments, and the sentinels (MPI_BOTTOM,
// MPI_STATUS_IGNORE ...) as the addresses of COMMON block members, which the
// helpers below turn into the C sentinels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <mpi.h>

#include "binding/fortran/gen/sentinels.h"
#include "binding/routine.h"

// libmpichfort is built with -fvisibility=hidden, like libmpich.
#define STMPI_F77_API __attribute__((visibility("default")))

// The other link names of an entry point defined as pmpi_<lower>_: MPICH's
// manglings (lower case with one, two or no underscore, upper case), the
// mpi_ forms weak so that a profiling library can replace them.
#define STMPI_F77_ALIAS(target, id, name) \
  extern "C" STMPI_F77_API decltype(target) id __asm__(name) __attribute__((alias(#target)));
#define STMPI_F77_WEAK(target, id, name) \
  extern "C" STMPI_F77_API decltype(target) id __asm__(name) __attribute__((weak, alias(#target)));
#define STMPI_F77_NAMES(target, lower, upper)             \
  STMPI_F77_ALIAS(target, target##a1, "pmpi_" lower "__") \
  STMPI_F77_ALIAS(target, target##a2, "pmpi_" lower)      \
  STMPI_F77_ALIAS(target, target##a3, "PMPI_" upper)      \
  STMPI_F77_WEAK(target, target##a4, "mpi_" lower "_")    \
  STMPI_F77_WEAK(target, target##a5, "mpi_" lower "__")   \
  STMPI_F77_WEAK(target, target##a6, "mpi_" lower)        \
  STMPI_F77_WEAK(target, target##a7, "MPI_" upper)

// The variables of MPICH's module mpi_f08_link_constants (defined in
// special.cc under gfortran's names for them): a program built with MPICH's
// `use mpi_f08` passes their addresses as MPI_UNWEIGHTED,
// MPI_WEIGHTS_EMPTY, MPI_ERRCODES_IGNORE, MPI_ARGV_NULL and MPI_ARGVS_NULL.
extern "C" {
extern MPI_Fint stmpi_f08_link_unweighted[1] __asm__("__mpi_f08_link_constants_MOD_mpi_unweighted");
extern MPI_Fint stmpi_f08_link_weights_empty[1] __asm__(
    "__mpi_f08_link_constants_MOD_mpi_weights_empty");
extern MPI_Fint stmpi_f08_link_errcodes_ignore[1] __asm__(
    "__mpi_f08_link_constants_MOD_mpi_errcodes_ignore");
extern char stmpi_f08_link_argv_null[1] __asm__("__mpi_f08_link_constants_MOD_mpi_argv_null");
extern char stmpi_f08_link_argvs_null[1] __asm__("__mpi_f08_link_constants_MOD_mpi_argvs_null");
}

namespace stmpi::binding::fortran {

// Every entry point names its Fortran routine for the errors it raises.
using binding::FortranRoutine;

// A choice buffer: MPI_BOTTOM and MPI_IN_PLACE by address.
inline void* buffer(const void* p) {
  if (p == &mpipriv1_.bottom) return MPI_BOTTOM;
  if (p == &mpipriv1_.in_place) return MPI_IN_PLACE;
  return const_cast<void*>(p);
}

inline MPI_Status* status(const MPI_Fint* s) {
  if (s == mpipriv1_.status_ignore) return MPI_STATUS_IGNORE;
  return reinterpret_cast<MPI_Status*>(const_cast<MPI_Fint*>(s));
}

inline MPI_Status* statuses(const MPI_Fint* s) {
  if (s == mpipriv2_.statuses_ignore) return MPI_STATUSES_IGNORE;
  return reinterpret_cast<MPI_Status*>(const_cast<MPI_Fint*>(s));
}

inline int* errcodes(MPI_Fint* e) {
  if (e == mpipriv2_.errcodes_ignore || e == stmpi_f08_link_errcodes_ignore)
    return MPI_ERRCODES_IGNORE;
  return e;
}

inline int* weights(const MPI_Fint* w) {
  if (w == &mpifcmb5_.unweighted || w == stmpi_f08_link_unweighted) return MPI_UNWEIGHTED;
  if (w == &mpifcmb9_.weights_empty || w == stmpi_f08_link_weights_empty) return MPI_WEIGHTS_EMPTY;
  return const_cast<MPI_Fint*>(w);
}

inline bool is_argv_null(const char* p) {
  return p == mpiprivc_.argv_null || p == stmpi_f08_link_argv_null;
}
inline bool is_argvs_null(const char* p) {
  return p == mpiprivc_.argvs_null || p == stmpi_f08_link_argvs_null;
}

// An input CHARACTER*(len): leading and trailing blanks removed.
std::string from_fortran(const char* s, size_t len);

// Copies a C string into a CHARACTER*(len), blank-padded (cut at len).
void to_fortran(const char* c, char* f, size_t len);

// An output CHARACTER*(len): the C function writes into data(), which has
// room for len characters, `extra` more and the NUL; finish() copies back.
class OutString {
 public:
  OutString(char* f, size_t len, size_t extra) : f_(f), len_(len), buf_(len + extra + 1, '\0') {}
  char* data() { return buf_.data(); }
  void finish() { to_fortran(buf_.data(), f_, len_); }

 private:
  char* f_;
  size_t len_;
  std::vector<char> buf_;
};

// The largest string a C function of the MPI API writes
// (MPI_MAX_LIBRARY_VERSION_STRING): an output string gets this much room
// beyond its Fortran length, so a short Fortran variable is cut, never
// overrun.
inline constexpr size_t kStringSlack = MPI_MAX_LIBRARY_VERSION_STRING;

// A callback of one language's type as another's (the proxies call it with
// the conventions it was written for).
template <typename To, typename From>
To* function_cast(From* f) {
  return reinterpret_cast<To*>(reinterpret_cast<void (*)()>(f));
}

// A LOGICAL from C (gfortran: .TRUE. is 1, .FALSE. is 0) and to C.
inline MPI_Fint to_logical(int c) { return c ? 1 : 0; }
inline int from_logical(MPI_Fint f) { return f != 0; }

}  // namespace stmpi::binding::fortran
