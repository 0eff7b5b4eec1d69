# Shared by abort.sh, segv.sh, fatal.sh and errors_abort.sh (sourced, not run on its own).
# run_fault MODE NPROCS: builds faulty.c, runs it under mpiexec in the background
# and sets RC (exit status of mpiexec), ELAPSED_MS (wall time), OUT and ERR (files),
# PROG (the program's unique name) and KVS (the job's shm name prefix).
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-fault.XXXXXX")
# a unique program name so that pgrep finds only this job's ranks
PROG="$WORK/faulty_$$_$RANDOM"
FAILS=0
cleanup() {
  pkill -KILL -f "^$PROG" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }

build_faulty() {
  # shellcheck disable=SC2086
  $STMPI_TEST_CC $STMPI_TEST_CFLAGS "$STMPI_SRCDIR/test/mpi/init/faulty.c" -o "$PROG" $STMPI_TEST_LIBS ||
    { echo "FAIL: cannot compile faulty.c"; exit 1; }
}

# run_fault MODE NPROCS LIMIT
run_fault() {
  local mode=$1 n=$2 limit=$3
  OUT="$WORK/$mode.out"
  ERR="$WORK/$mode.err"
  local start
  start=$(date +%s%N)
  "$STMPI_MPIEXEC" -n "$n" "$PROG" "$mode" < /dev/null > "$OUT" 2> "$ERR" &
  local pid=$!
  KVS="stmpi-kvs_${pid}_0-"
  # wait at most LIMIT seconds for mpiexec to end
  local waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $((limit * 10)) ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$mode: mpiexec still running after ${limit}s"
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid"
  RC=$?
  ELAPSED_MS=$((($(date +%s%N) - start) / 1000000))
  echo "--- $mode: mpiexec exit $RC after ${ELAPSED_MS} ms; stdout:"
  cat "$OUT"
  echo "--- stderr:"
  cat "$ERR"
  echo "---"
}

# no rank process of this job survives (give the launcher a moment to reap)
check_no_leftovers() {
  local mode=$1 i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    pgrep -f "^$PROG" > /dev/null || break
    sleep 0.2
  done
  if pgrep -f "^$PROG" > /dev/null; then
    fail "$mode: rank processes left over: $(pgrep -a -f "^$PROG" | tr '\n' ';')"
  else
    pass "$mode: no rank process left"
  fi
  local left
  left=$(ls /dev/shm 2>/dev/null | grep "^$KVS")
  if [ -n "$left" ]; then
    fail "$mode: shared memory left in /dev/shm: $left"
  else
    pass "$mode: no /dev/shm/$KVS* file left"
  fi
}

# check_quick MODE MS: the job ended within MS milliseconds
check_quick() {
  if [ "$ELAPSED_MS" -lt "$2" ]; then pass "$1: ended in $ELAPSED_MS ms"
  else fail "$1: took $ELAPSED_MS ms (limit $2 ms)"; fi
}

finish() {
  if [ "$FAILS" -eq 0 ]; then
    echo "No Errors"
    exit 0
  fi
  echo "Found $FAILS errors"
  exit 1
}
