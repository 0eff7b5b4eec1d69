#!/bin/bash
# Under MPI_ERRORS_ARE_FATAL an erroneous call from Fortran ends the job with a message that
# names the Fortran routine ("MPI_SEND", not the C function MPI_Send the glue calls) and the
# error class's text; under MPI_ERRORS_RETURN the class is the one C returns (MPI_ERR_COMM).
# Cases: an invalid rank and an invalid communicator through `use mpi` (the f77 entry
# points), an invalid communicator through `use mpi_f08` (the choice-buffer glue), and an
# invalid C call from a C reduction operation inside MPI_ALLREDUCE (named MPI_Comm_rank).
n=${1:-2}
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}" "${STMPI_TEST_CC:?}"
if [ -z "${STMPI_TEST_FC:-}" ] || [ ! -e "$STMPI_BUILDDIR/.libs/libmpichfort.so" ]; then
  echo "FAIL: this build has no Fortran compiler or no libmpichfort"
  exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-ffatal.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
# shellcheck disable=SC2086  # the flag lists are word lists
if ! (cd "$work" && $STMPI_TEST_CC $STMPI_TEST_CFLAGS -c "$STMPI_SRCDIR/test/mpi/fortran/errfatal_prog_c.c" \
    -o helper.o); then
  echo "FAIL: errfatal_prog_c.c did not compile"
  exit 1
fi
for prog in errfatal_prog errfatal_f08prog; do
  helper=()
  [ $prog = errfatal_prog ] && helper=("$work/helper.o")
  # shellcheck disable=SC2086  # the flag lists are word lists
  if ! (cd "$work" && $STMPI_TEST_FC $STMPI_TEST_FFLAGS "$STMPI_SRCDIR/test/mpi/fortran/$prog.f90" \
      "${helper[@]}" -o "$prog" $STMPI_TEST_FLIBS); then
    echo "FAIL: $prog.f90 did not compile"
    exit 1
  fi
done
# run CASE PROGRAM ARG NAME OTHER WHAT: the job must fail (not hang, not return) with a message
# "in NAME" (not "in OTHER") that says WHAT.
run() {
  local case=$1 prog=$2 arg=$3 name=$4 other=$5 what=$6 rc=0
  timeout 60 "$STMPI_MPIEXEC" -n "$n" "$work/$prog" "$arg" < /dev/null > "$work/out.$case" 2>&1 || rc=$?
  echo "--- $case (exit status $rc)"
  cat "$work/out.$case"
  if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
    echo "FAIL: $case: exit status $rc (expected a failed job, not a success or a hang)"
    fails=1
  fi
  grep -q 'still running after a fatal error' "$work/out.$case" && { echo "FAIL: $case: the call returned"; fails=1; }
  grep -q "in $name:" "$work/out.$case" || { echo "FAIL: $case: the message does not name $name"; fails=1; }
  grep -q "in $other:" "$work/out.$case" && { echo "FAIL: $case: the message names $other"; fails=1; }
  grep -qi "$what" "$work/out.$case" || { echo "FAIL: $case: the message does not say: $what"; fails=1; }
}
run rank errfatal_prog rank MPI_SEND MPI_Send 'rank'
run comm errfatal_prog comm MPI_SEND MPI_Send 'communicator'
grep -q 'errors-return: class MPI_ERR_COMM' "$work/out.comm" || { echo "FAIL: comm: MPI_ERRORS_RETURN did not give MPI_ERR_COMM"; fails=1; }
run f08 errfatal_f08prog f08 MPI_SEND MPI_Send 'communicator'
# A C call from a C callback inside a Fortran call keeps its C name.
run nested errfatal_prog nested MPI_Comm_rank MPI_ALLREDUCE 'communicator'
[ $fails -eq 0 ] && { echo "No Errors"; exit 0; }
exit 1
