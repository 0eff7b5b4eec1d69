#!/bin/bash
# A /dev/shm too small for the job (a private 4 MiB tmpfs in a mount namespace
# of its own, 16 ranks): MPI_Init fails with a message that names the segment,
# the bytes needed and what is free, never a SIGBUS later; with rings small
# enough to fit, a window that does not fit is MPI_ERR_NO_MEM on every rank
# and the job goes on. Needs root for unshare -m and mount.
n=${1:-16}
if [ -z "${STMPI_IN_NS:-}" ]; then
  if ! unshare -m true 2> /dev/null; then
    echo "SKIP: unshare -m is not permitted here (needs root)"
    echo " No Errors"
    exit 0
  fi
  exec unshare -m env STMPI_IN_NS=1 bash "$0" "$@"
fi
mount -t tmpfs -o size=4m tmpfs /dev/shm || { echo "FAIL: cannot mount a tmpfs on /dev/shm"; exit 1; }
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty

run_fault wait "$n" 120
if [ "$RC" -ne 0 ]; then pass "MPI_Init: job failed (status $RC)"; else fail "MPI_Init: job succeeded"; fi
check_err init "cannot reserve [0-9]+ bytes \([0-9.]+ MiB\) for shared-memory segment /dev/shm/stmpi-kvs_[0-9]+_0-node[0-9]+-[0-9a-f]{16}: No space left on device; /dev/shm has [0-9.]+ MiB free of 4.0 MiB"
if grep -q "signal 7\|Bus error" "$ERR"; then fail "init: a rank died of SIGBUS"; fi
check_no_leftovers init

MPIEXEC_ARGS=(-env STMPI_SHM_CELLS 2 -env STMPI_SHM_CELL_SIZE 1024)
run_fault win_nomem "$n" 240
check_rc win_nomem 0
grep -q "No Errors" "$OUT" || fail "win_nomem: no 'No Errors' from rank 0"
if grep -q "signal 7\|Bus error" "$ERR"; then fail "win_nomem: a rank died of SIGBUS"; fi
check_no_leftovers win_nomem
left=$(ls -A /dev/shm)
[ -z "$left" ] || fail "files left in the private /dev/shm: $left"
finish
