#!/bin/bash
# `use mpi` and `use mpi_f08` give explicit interfaces: a call with a wrong argument count or a
# wrong argument type does not compile; the same calls written correctly do. A compiler that
# accepted the wrong calls would let the errors through to run time.
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}"
if [ -z "${STMPI_TEST_FC:-}" ] || [ ! -e "$STMPI_BUILDDIR/.libs/libmpichfort.so" ]; then
  echo "FAIL: this build has no Fortran compiler or no libmpichfort"
  exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-fintf.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
# compile NAME MODULE DECLARATIONS CALL: writes and compiles a small program (no link)
compile() {
  cat > "$work/$1.f90" <<PROG
program $1
  use $2
  implicit none
  $3
  $4
end program $1
PROG
  # shellcheck disable=SC2086
  (cd "$work" && $STMPI_TEST_FC $STMPI_TEST_FFLAGS -c "$1.f90" -o "$1.o") > "$work/$1.log" 2>&1
}
expect() {  # expect ok|error NAME MODULE DECLS CALL
  local want=$1; shift
  if compile "$@"; then got=ok; else got=error; fi
  if [ "$got" = "$want" ]; then
    echo "ok: $1 ($2): $want"
  else
    echo "FAIL: $1 ($2): expected $want, got $got: $4"
    sed 's/^/    /' "$work/$1.log" | head -6
    fails=$((fails + 1))
  fi
}
expect ok good_mpi mpi "integer :: r, ierr" "call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)"
expect error count_mpi mpi "integer :: r" "call MPI_Comm_rank(MPI_COMM_WORLD, r)"
expect error type_mpi mpi "real :: r; integer :: ierr" "call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)"
expect ok buf_mpi mpi "real :: x(3); double precision :: y; integer :: ierr" \
  "call MPI_Bcast(x, 3, MPI_REAL, 0, MPI_COMM_WORLD, ierr); call MPI_Bcast(y, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)"
expect error bufcount_mpi mpi "real :: x(3); integer :: ierr" "call MPI_Bcast(x, 3, MPI_REAL, 0, ierr)"
expect ok good_f08 mpi_f08 "integer :: r" "call MPI_Comm_rank(MPI_COMM_WORLD, r)"
expect error handle_f08 mpi_f08 "integer :: r" "call MPI_Comm_rank(0, r)"
expect error type_f08 mpi_f08 "real :: r" "call MPI_Comm_rank(MPI_COMM_WORLD, r)"
expect ok status_f08 mpi_f08 "type(MPI_Status) :: s; integer :: x" \
  "call MPI_Recv(x, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, s); print *, s%MPI_SOURCE, s%MPI_TAG, s%MPI_ERROR"
expect error dtype_f08 mpi_f08 "integer :: x" "call MPI_Send(x, 1, 7, 0, 0, MPI_COMM_WORLD)"
[ $fails -eq 0 ] && { echo "No Errors"; exit 0; }
echo "Found $fails errors"
exit 1
