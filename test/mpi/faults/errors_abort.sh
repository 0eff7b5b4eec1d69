#!/bin/bash
# Rank 1 sets MPI_ERRORS_ABORT on MPI_COMM_WORLD and calls MPI_Send with
# dest=99: the job ends non-zero, stderr names "dest=99", nothing remains.
n=${1:-3}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault errors_abort "$n" 10
if [ "$RC" -ne 0 ]; then pass "errors_abort: exit status $RC"; else fail "errors_abort: exit status 0"; fi
check_quick errors_abort 5000
if grep -q "dest=99" "$ERR"; then pass "errors_abort: stderr names dest=99"
else fail "errors_abort: stderr does not contain dest=99"; fi
check_went_on errors_abort
check_no_leftovers errors_abort
finish
