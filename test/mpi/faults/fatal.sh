#!/bin/bash
# Rank 1 calls MPI_Send with dest=99 under the default MPI_ERRORS_ARE_FATAL
# handler: the job ends non-zero, stderr names "dest=99", nothing remains.
n=${1:-4}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault fatal "$n" 10
if [ "$RC" -ne 0 ]; then pass "fatal: exit status $RC"; else fail "fatal: exit status 0"; fi
check_quick fatal 5000
if grep -q "dest=99" "$ERR"; then pass "fatal: stderr names dest=99"
else fail "fatal: stderr does not contain dest=99"; fi
check_went_on fatal
check_no_leftovers fatal
finish
