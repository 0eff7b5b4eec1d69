#!/bin/bash
# A rank killed (SIGKILL) in the middle of a 64 MiB transfer, as receiver and as
# sender, with single-copy pulls and with the data streamed through the rings:
# mpiexec names the rank and the signal, exits 137, and nothing remains.
n=${1:-3}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
for copy in yes no; do
  MPIEXEC_ARGS=(-env STMPI_SHM_SINGLE_COPY "$copy")
  for mode in kill_recv kill_send; do
    run_fault $mode "$n" 30
    check_rc "$mode/single_copy=$copy" 137
    # The peer of the transfer may notice first (its single-copy read fails) and end
    # with a fatal error before mpiexec reaps rank 1: then fewer ranks are left to kill.
    check_err "$mode/single_copy=$copy" "^mpiexec: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\); killing [1-9][0-9]* other ranks?$"
    check_went_on "$mode/single_copy=$copy"
    check_no_leftovers "$mode/single_copy=$copy"
  done
done
finish
