#!/bin/bash
# A rank that exits 0 without MPI_Finalize, or before MPI_Init, while the others
# use MPI is a failure: mpiexec names the rank, stops the job at once, exits 1.
# A program that does not use MPI at all may exit 0 whenever it likes.
n=${1:-3}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault nofinalize "$n" 10
check_rc nofinalize 1
check_err nofinalize "^mpiexec: rank 1 \(pid [0-9]+\) exited with code 0 without calling MPI_Finalize; killing $((n - 1)) other ranks$"
check_quick nofinalize 5000
check_went_on nofinalize
check_no_leftovers nofinalize

run_fault preinit "$n" 10
check_rc preinit 1
check_err preinit "^mpiexec: rank 1 \(pid [0-9]+\) exited with code 0 before MPI_Init while other ranks use MPI; killing $((n - 1)) other ranks$"
check_quick preinit 5000
check_went_on preinit
check_no_leftovers preinit

# Not MPI programs: like mpiexec.hydra, mpiexec runs them to the end.
out=$("$STMPI_MPIEXEC" -n "$n" hostname 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ "$(echo "$out" | grep -cx "$(hostname)")" -eq "$n" ]; then pass "mpiexec -n $n hostname"
else fail "mpiexec -n $n hostname: rc=$rc: $out"; fi
out=$("$STMPI_MPIEXEC" -n "$n" sh -c 'sleep 0.$PMI_RANK; exit 0' 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ]; then pass "non-MPI ranks exiting 0 at different times"
else fail "non-MPI ranks exiting 0 at different times: rc=$rc: $out"; fi
finish
