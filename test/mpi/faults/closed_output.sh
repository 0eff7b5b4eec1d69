#!/bin/bash
# When mpiexec's stdout or stderr is closed (mpiexec -n 2 yes | head -1), the job
# is stopped promptly, as mpiexec.hydra does, instead of running on at full CPU.
n=${1:-2}
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
cp "$(command -v yes)" "${PROG}_yes"   # a name of its own, for pgrep

# closed_run NAME LIMIT COMMAND...: runs the pipeline COMMAND | head -1, sets RC (mpiexec's).
closed_run() {
  local name=$1 limit=$2 start
  shift 2
  start=$(date +%s%N)
  timeout -k 2 "$limit" sh -c 'echo $$ > "$0"; exec "$@"' "$WORK/$name.pid" "$@" \
    2> "$WORK/$name.err" < /dev/null | head -1 > "$WORK/$name.out"
  RC=${PIPESTATUS[0]}
  KVS="stmpi-kvs_$(cat "$WORK/$name.pid")_0-"
  ELAPSED_MS=$((($(date +%s%N) - start) / 1000000))
  echo "--- $name: mpiexec exit $RC after $ELAPSED_MS ms: $(cat "$WORK/$name.out") $(head -c 300 "$WORK/$name.err")"
  if [ "$RC" -eq 141 ] && [ "$ELAPSED_MS" -lt 5000 ] && [ -s "$WORK/$name.out" ]; then
    pass "$name: stopped after $ELAPSED_MS ms with status 141"
  else
    fail "$name: status $RC after $ELAPSED_MS ms (want 141 within 5 s)"
  fi
}

closed_run yes 20 "$STMPI_MPIEXEC" -n "$n" "${PROG}_yes"
closed_run chatty 20 "$STMPI_MPIEXEC" -n "$n" "$PROG" chatty
check_no_leftovers chatty
if pgrep -f "^${PROG}_yes" > /dev/null; then fail "yes: processes left over"; fi

# stderr closed, stdout still open
start=$(date +%s%N)
timeout -k 2 20 "$STMPI_MPIEXEC" -n "$n" sh -c "exec ${PROG}_yes >&2" 2>&1 > /dev/null < /dev/null | head -1 > /dev/null
RC=${PIPESTATUS[0]}
ELAPSED_MS=$((($(date +%s%N) - start) / 1000000))
if [ "$RC" -eq 141 ] && [ "$ELAPSED_MS" -lt 5000 ]; then pass "closed stderr: stopped after $ELAPSED_MS ms"
else fail "closed stderr: status $RC after $ELAPSED_MS ms"; fi
sleep 0.5
if pgrep -f "^${PROG}_yes" > /dev/null; then fail "closed stderr: processes left over"; fi
finish
