#!/bin/bash
# A rank killed while it holds an exclusive RMA lock that the other ranks wait
# for: mpiexec names it, exits 137, and no rank and no window segment remains.
n=${1:-4}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault kill_lock "$n" 30
check_rc kill_lock 137
check_err kill_lock "^mpiexec: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\); killing $((n - 1)) other ranks$"
grep -q "failing with kill_lock (holding the lock)" "$OUT" || fail "kill_lock: rank 1 did not get to hold the lock"
check_went_on kill_lock
check_no_leftovers kill_lock
finish
