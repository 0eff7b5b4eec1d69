#!/bin/bash
# Under MPI_ERRORS_ARE_FATAL an erroneous call from Fortran ends the job with a message that
# names the routine (MPI_Send, in either case) and the error class's text (invalid rank).
n=${1:-2}
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}"
if [ -z "${STMPI_TEST_FC:-}" ] || [ ! -e "$STMPI_BUILDDIR/.libs/libmpichfort.so" ]; then
  echo "FAIL: this build has no Fortran compiler or no libmpichfort"
  exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-ffatal.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086  # the flag lists are word lists
if ! (cd "$work" && $STMPI_TEST_FC $STMPI_TEST_FFLAGS "$STMPI_SRCDIR/test/mpi/fortran/errfatal_prog.f90" \
    -o prog $STMPI_TEST_FLIBS); then
  echo "FAIL: errfatal_prog.f90 did not compile"
  exit 1
fi
rc=0
timeout 60 "$STMPI_MPIEXEC" -n "$n" "$work/prog" < /dev/null > "$work/out" 2>&1 || rc=$?
cat "$work/out"
fails=0
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "FAIL: exit status $rc (expected a failed job, not a success or a hang)"; fails=1; }
grep -q 'still running after a fatal error' "$work/out" && { echo "FAIL: the call returned"; fails=1; }
grep -qi 'mpi_send' "$work/out" || { echo "FAIL: the message does not name MPI_Send"; fails=1; }
grep -qi 'rank' "$work/out" || { echo "FAIL: the message does not say the rank was invalid"; fails=1; }
[ $fails -eq 0 ] && { echo "No Errors"; exit 0; }
exit 1
