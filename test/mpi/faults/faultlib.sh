# Shared by the scripts in test/mpi/faults (sourced, not run on its own).
# build_faulty builds faulty.c; run_fault MODE NPROCS LIMIT runs it under mpiexec in the
# background (start_fault + wait_fault) and sets RC (exit status of mpiexec), ELAPSED_MS
# (wall time), OUT and ERR (files), PROG (the program's unique name) and KVS (the job's
# shm name prefix). MPIEXEC_ARGS (an array) adds mpiexec options.
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
  $STMPI_TEST_CC $STMPI_TEST_CFLAGS "$STMPI_SRCDIR/test/mpi/faults/faulty.c" -o "$PROG" $STMPI_TEST_LIBS ||
    { echo "FAIL: cannot compile faulty.c"; exit 1; }
}

MPIEXEC_ARGS=()
MPIEXEC_WRAP=()  # a command that runs mpiexec (e.g. env --default-signal=INT)

# start_fault MODE NPROCS: starts the job in the background; MPIEXEC_PID, KVS, OUT, ERR.
start_fault() {
  local mode=$1 n=$2
  OUT="$WORK/$mode.out"
  ERR="$WORK/$mode.err"
  START_NS=$(date +%s%N)
  "${MPIEXEC_WRAP[@]}" "$STMPI_MPIEXEC" "${MPIEXEC_ARGS[@]}" -n "$n" "$PROG" "$mode" < /dev/null > "$OUT" 2> "$ERR" &
  MPIEXEC_PID=$!
  KVS="stmpi-kvs_${MPIEXEC_PID}_0-"
}

# wait_fault MODE LIMIT: waits at most LIMIT seconds for mpiexec to end; RC, ELAPSED_MS.
wait_fault() {
  local mode=$1 limit=$2 waited=0
  while kill -0 "$MPIEXEC_PID" 2>/dev/null && [ "$waited" -lt $((limit * 10)) ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$MPIEXEC_PID" 2>/dev/null; then
    fail "$mode: mpiexec still running after ${limit}s"
    kill -KILL "$MPIEXEC_PID" 2>/dev/null
  fi
  wait "$MPIEXEC_PID"
  RC=$?
  ELAPSED_MS=$((($(date +%s%N) - START_NS) / 1000000))
  echo "--- $mode: mpiexec exit $RC after ${ELAPSED_MS} ms; stdout:"
  head -c 4000 "$OUT"
  echo "--- stderr:"
  head -c 4000 "$ERR"
  echo "---"
}

# run_fault MODE NPROCS LIMIT
run_fault() {
  start_fault "$1" "$2"
  wait_fault "$1" "$3"
}

# wait_ranks N: waits (at most 10 s) until N rank processes of this job run.
wait_ranks() {
  local i
  for i in $(seq 1 100); do
    [ "$(pgrep -f "^$PROG" | wc -l)" -ge "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

# check_rc MODE WANT
check_rc() {
  if [ "$RC" -eq "$2" ]; then pass "$1: exit status $2"; else fail "$1: exit status $RC, expected $2"; fi
}

# check_err MODE EGREP: mpiexec's stderr has a line that matches.
check_err() {
  if grep -qE "$2" "$ERR"; then pass "$1: stderr matches '$2'"
  else fail "$1: stderr does not match '$2'"; fi
}

# check_went_on MODE: no waiting rank got past its wait.
check_went_on() {
  if grep -q "MPI_Recv returned\|still running\|lock of a dead rank" "$ERR"; then
    fail "$1: a rank went on running"
  fi
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
