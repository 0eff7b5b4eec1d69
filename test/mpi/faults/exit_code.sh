#!/bin/bash
# Rank 1 exits with status 3 after MPI_Init while the others block in MPI_Recv:
# mpiexec names it, ends quickly with status 3, and nothing of the job remains.
n=${1:-4}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault exit3 "$n" 10
check_rc exit3 3
check_err exit3 "^mpiexec: rank 1 \(pid [0-9]+\) exited with code 3; killing $((n - 1)) other ranks$"
check_quick exit3 5000
check_went_on exit3
check_no_leftovers exit3
finish
