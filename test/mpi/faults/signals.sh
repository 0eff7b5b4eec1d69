#!/bin/bash
# SIGINT, SIGTERM and SIGHUP to mpiexec while every rank waits inside MPI: the
# ranks are stopped, mpiexec exits 128+signal and names the signal, nothing remains.
n=${1:-4}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
# A non-interactive shell starts background commands with SIGINT ignored, and
# mpiexec keeps an ignored signal ignored; env --default-signal undoes that.
if env --default-signal=INT true 2> /dev/null; then MPIEXEC_WRAP=(env --default-signal=INT); fi
for sig in INT TERM HUP; do
  start_fault wait "$n"
  wait_ranks "$n" || fail "$sig: the ranks did not start"
  sleep 1   # into MPI_Recv
  kill -$sig "$MPIEXEC_PID"
  wait_fault "wait_$sig" 10
  num=$(kill -l $sig)
  check_rc "SIG$sig" $((128 + num))
  check_err "SIG$sig" "^mpiexec: received signal $num \([A-Za-z ]+\); killing $n ranks$"
  check_went_on "SIG$sig"
  check_no_leftovers "SIG$sig"
done
finish
