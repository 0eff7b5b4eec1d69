#!/bin/bash
# Rank 1 dies of SIGSEGV while the other ranks block in MPI_Recv: mpiexec
# ends quickly with a non-zero status, names the signal, and nothing of the job remains.
n=${1:-4}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
run_fault segv "$n" 10
if [ "$RC" -ne 0 ]; then pass "segv: exit status $RC"; else fail "segv: exit status 0"; fi
# The rank dies by the signal, which mpiexec names; no crash handler of a library the network
# module loads (libinfinipath's "terminated with signal ... Backtrace") runs first.
if grep -q "killed by signal 11 (Segmentation fault)" "$ERR" && ! grep -q "terminated with signal" "$ERR"; then
  pass "segv: mpiexec names SIGSEGV, no library crash handler ran"
else fail "segv: stderr: $(head -c 600 "$ERR")"; fi
check_quick segv 5000
check_went_on segv
check_no_leftovers segv
finish
