// stmpi::binding::FortranRoutine: the Fortran routine a C call serves, so that
// an error raised by that call names the routine the program called
// ("MPI_SEND", the standard's Fortran spelling) instead of the C function
// the glue calls (MPI_Send).
//
// The f77 entry points and the mpi_f08 glue (libmpichfort) build one guard
// per call, before they call the C function. The guard saves the routine the
// thread had, sets its own and restores the saved one when the call returns,
// so an MPI call from a Fortran callback (which has its own guard) and the
// code after it see the right name. Only Call's error path (call.cc) reads
// the routine, and it uses the Fortran name only for the C function the
// routine names (the Fortran name in other case, or `c` where they differ)
// or for the *_call_errhandler call the f08 glue raises its own errors with:
// a C call made from a callback during the Fortran call keeps its C name.
// The C path never touches the routine.
#pragma once

namespace stmpi::binding {

struct RoutineName {
  const char* fortran;  // "MPI_SEND"
  const char* c;        // the C function, where not `fortran` in other case
};

// Sets the thread's routine (nullptr: none); returns the one it replaces.
// Defined in libmpich (call.cc), called from libmpichfort.
__attribute__((visibility("default"))) const RoutineName* exchange_routine(
    const RoutineName* routine) noexcept;

class FortranRoutine {
 public:
  explicit FortranRoutine(const char* fortran, const char* c = nullptr)
      : name_{fortran, c}, saved_(exchange_routine(&name_)) {}
  ~FortranRoutine() { exchange_routine(saved_); }
  FortranRoutine(const FortranRoutine&) = delete;
  FortranRoutine& operator=(const FortranRoutine&) = delete;

 private:
  RoutineName name_;
  const RoutineName* saved_;
};

}  // namespace stmpi::binding
