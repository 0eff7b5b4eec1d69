#!/bin/bash
# Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the other ranks block in
# MPI_Recv: mpiexec ends quickly with status 7 and nothing of the job remains. Then every
# rank aborts at once, and a job of one rank aborts.
n=${1:-4}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault abort "$n" 10
if [ "$RC" -eq 7 ]; then pass "abort: exit status 7"; else fail "abort: exit status $RC, expected 7"; fi
check_quick abort 5000
grep -q "rank 1: failing with abort" "$OUT" || fail "abort: rank 1's output before the abort was lost"
check_went_on abort
check_no_leftovers abort
# Every rank aborts at once, and a job of one rank aborts: the ranks are all gone before the
# requests' grace time is over, and the abort still decides the status and is reported.
run_fault abort_all "$n" 10
check_rc abort_all 5
check_err abort_all "^mpiexec: rank [0-9]+ called MPI_Abort\(errorcode=5\): "
check_no_leftovers abort_all
run_fault abort 1 10
check_rc abort_one_rank 7
check_err abort_one_rank "^mpiexec: rank 0 called MPI_Abort\(errorcode=7\): "
check_no_leftovers abort_one_rank
finish
