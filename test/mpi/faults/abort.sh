#!/bin/bash
# Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the other ranks block in
# MPI_Recv: mpiexec ends quickly with status 7 and nothing of the job remains.
n=${1:-4}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault abort "$n" 10
if [ "$RC" -eq 7 ]; then pass "abort: exit status 7"; else fail "abort: exit status $RC, expected 7"; fi
check_quick abort 5000
grep -q "rank 1: failing with abort" "$OUT" || fail "abort: rank 1's output before the abort was lost"
check_went_on abort
check_no_leftovers abort
finish
