#!/bin/sh
# Checks mpiexec and the PMI client: normal runs, faults, signals, cleanup, I/O forwarding.
# Usage: check_mpiexec.sh MPIEXEC PMI_CLIENT_SMOKE
# Prints one line per check and "N passed, N failed"; exits 0 only if every check passed.

if [ $# -ne 2 ]; then
  echo "usage: $0 MPIEXEC PMI_CLIENT_SMOKE" >&2
  exit 2
fi
MPIEXEC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SMOKE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
[ -x "$MPIEXEC" ] || { echo "not executable: $MPIEXEC" >&2; exit 2; }
[ -x "$SMOKE" ] || { echo "not executable: $SMOKE" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/check_mpiexec.XXXXXX")
# Ranks that should wait for the launcher end with $SLEEP; its unusual duration is on their
# command line before and after exec, so leftovers can be found with pgrep -f "$MARK".
MARK="sleep 30.$$"
SLEEP="exec $MARK"
RANKS="^(sh -c .*)?$MARK"  # the ranks only, not mpiexec with the same words among its arguments
PASSED=0
FAILED=0
trap 'pkill -KILL -f "$MARK" 2>/dev/null; rm -rf "$WORK"' EXIT

pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# run NAME ARGS...: runs a command with stdin from /dev/null, output in $WORK/NAME.{out,err},
# exit status in $RC, wall time in whole seconds in $ELAPSED.
run() {
  name=$1
  shift
  start=$(date +%s)
  "$@" < /dev/null > "$WORK/$name.out" 2> "$WORK/$name.err"
  RC=$?
  ELAPSED=$(($(date +%s) - start))
}

leftovers() { pgrep -f "$MARK" > /dev/null; }

# A rank body: rank $1 runs "$2", every other rank sleeps (with the marker in its command line).
rank_script() {
  echo "if [ \"\$PMI_RANK\" = $1 ]; then $2; fi; $SLEEP"
}

# --- the PMI client ----------------------------------------------------------
run singleton "$SMOKE"
if [ $RC -eq 0 ] && grep -qx "rank 0 of 1: OK" "$WORK/singleton.out"; then pass "smoke test as a singleton"
else fail "smoke test as a singleton" "rc=$RC $(cat "$WORK/singleton.err")"; fi

for n in 1 3 8; do
  run "smoke$n" "$MPIEXEC" -n $n "$SMOKE"
  ok=$(grep -c ": OK$" "$WORK/smoke$n.out")
  if [ $RC -eq 0 ] && [ "$ok" -eq $n ]; then pass "smoke test, $n ranks"
  else fail "smoke test, $n ranks" "rc=$RC, $ok OK lines: $(head -3 "$WORK/smoke$n.err")"; fi
done

if command -v mpiexec.hydra > /dev/null; then
  run hydra timeout 60 mpiexec.hydra -n 3 "$SMOKE"
  ok=$(grep -c ": OK$" "$WORK/hydra.out")
  if [ $RC -eq 0 ] && [ "$ok" -eq 3 ]; then pass "smoke test under mpiexec.hydra, 3 ranks"
  else fail "smoke test under mpiexec.hydra, 3 ranks" "rc=$RC, $ok OK lines"; fi
  run hydra_abort timeout 60 mpiexec.hydra -n 3 "$SMOKE" abort 2 9
  if [ $RC -eq 9 ] && grep -q "^rank 2 called MPI_Abort(errorcode=9): smoke test abort" "$WORK/hydra_abort.err"; then
    pass "PMI abort under mpiexec.hydra: message printed by the client, exit status 9"
  else fail "PMI abort under mpiexec.hydra: message printed by the client, exit status 9" "rc=$RC"; fi
else
  skip "smoke test under mpiexec.hydra" "mpiexec.hydra not installed"
fi

# A program built with MPICH speaks MPICH's own PMI client to our server.
if command -v mpicc.mpich > /dev/null; then
  cat > "$WORK/mpich_hello.c" << 'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  int rank, size, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d: sum %d\n", rank, size, sum);
  MPI_Finalize();
  return 0;
}
EOF
  if mpicc.mpich -o "$WORK/mpich_hello" "$WORK/mpich_hello.c" 2> "$WORK/mpich_cc.err"; then
    run mpich timeout 60 "$MPIEXEC" -n 4 "$WORK/mpich_hello"
    if [ $RC -eq 0 ] && [ "$(grep -c ": sum 6$" "$WORK/mpich.out")" -eq 4 ]; then pass "MPICH-built program, 4 ranks"
    else fail "MPICH-built program, 4 ranks" "rc=$RC $(head -3 "$WORK/mpich.err")"; fi
  else
    skip "MPICH-built program" "mpicc.mpich failed: $(head -1 "$WORK/mpich_cc.err")"
  fi
else
  skip "MPICH-built program" "mpicc.mpich not installed"
fi

run abort "$MPIEXEC" -n 3 "$SMOKE" abort 1 5
if [ $RC -eq 5 ] && grep -q "^mpiexec: rank 1 called MPI_Abort(errorcode=5): smoke test abort with spaces & 100% symbols; killing 2 other ranks$" "$WORK/abort.err" \
    && [ "$(grep -c MPI_Abort "$WORK/abort.err")" -eq 1 ]; then pass "PMI abort: one message, exit status 5"
else fail "PMI abort: one message, exit status 5" "rc=$RC $(cat "$WORK/abort.err")"; fi

# --- faults ------------------------------------------------------------------
run exit3 "$MPIEXEC" -n 4 sh -c "$(rank_script 1 'exit 3')"
if [ $RC -eq 3 ] && [ $ELAPSED -lt 10 ] && grep -q "^mpiexec: rank 1 (pid [0-9]*) exited with code 3; killing 3 other ranks$" "$WORK/exit3.err" \
    && ! leftovers; then pass "rank exits with 3: job killed, exit status 3"
else fail "rank exits with 3: job killed, exit status 3" "rc=$RC after ${ELAPSED}s: $(cat "$WORK/exit3.err")"; fi

run segv "$MPIEXEC" -n 3 sh -c "$(rank_script 2 'kill -SEGV $$')"
if [ $RC -eq 139 ] && grep -q "^mpiexec: rank 2 (pid [0-9]*) killed by signal 11 (Segmentation fault)" "$WORK/segv.err" \
    && ! leftovers; then pass "rank killed by SIGSEGV: exit status 139"
else fail "rank killed by SIGSEGV: exit status 139" "rc=$RC $(cat "$WORK/segv.err")"; fi

# A rank that ignores SIGTERM is killed after the grace period.
run stubborn "$MPIEXEC" -n 2 sh -c "trap '' TERM; $(rank_script 0 'exit 4')"
if [ $RC -eq 4 ] && [ $ELAPSED -lt 10 ] && ! leftovers; then pass "rank ignoring SIGTERM is killed with SIGKILL"
else fail "rank ignoring SIGTERM is killed with SIGKILL" "rc=$RC after ${ELAPSED}s"; fi

run timeout "$MPIEXEC" -timeout 2 -n 3 sh -c "$SLEEP"
if [ $RC -eq 124 ] && [ $ELAPSED -ge 1 ] && [ $ELAPSED -lt 10 ] && grep -q "^mpiexec: job exceeded the timeout of 2 seconds; killing 3 ranks$" "$WORK/timeout.err" \
    && ! leftovers; then pass "-timeout 2: job killed, exit status 124"
else fail "-timeout 2: job killed, exit status 124" "rc=$RC after ${ELAPSED}s: $(cat "$WORK/timeout.err")"; fi

# --- signals to mpiexec --------------------------------------------------------
# A shell without job control may start background commands with SIGINT ignored, and
# mpiexec keeps an ignored signal ignored; env --default-signal undoes that where it exists.
DEFAULT_SIGNALS=
if env --default-signal=INT true 2> /dev/null; then DEFAULT_SIGNALS="env --default-signal=INT"; fi
for sig in INT TERM; do
  $DEFAULT_SIGNALS "$MPIEXEC" -n 4 sh -c "$SLEEP" < /dev/null > "$WORK/sig$sig.out" 2> "$WORK/sig$sig.err" &
  pid=$!
  tries=0
  while [ "$(pgrep -f "$RANKS" | wc -l)" -lt 4 ] && [ $tries -lt 100 ]; do sleep 0.05; tries=$((tries + 1)); done
  kill -$sig $pid
  wait $pid
  RC=$?
  if [ $sig = INT ]; then want=130; else want=143; fi
  if [ $RC -eq $want ] && grep -q "^mpiexec: received signal" "$WORK/sig$sig.err" && ! leftovers; then
    pass "SIG$sig to mpiexec: ranks gone, exit status $want"
  else
    fail "SIG$sig to mpiexec: ranks gone, exit status $want" "rc=$RC $(cat "$WORK/sig$sig.err") leftovers: $(pgrep -f "$MARK" | tr '\n' ' ')"
  fi
done

# SIGKILL cannot be caught: the ranks must go by themselves (parent-death signal).
"$MPIEXEC" -n 3 sh -c "$SLEEP" < /dev/null > /dev/null 2>&1 &
pid=$!
tries=0
while [ "$(pgrep -f "$RANKS" | wc -l)" -lt 3 ] && [ $tries -lt 100 ]; do sleep 0.05; tries=$((tries + 1)); done
kill -KILL $pid
wait $pid 2> /dev/null
tries=0
while leftovers && [ $tries -lt 40 ]; do sleep 0.05; tries=$((tries + 1)); done
if ! leftovers; then pass "SIGKILL to mpiexec: ranks do not survive it"
else fail "SIGKILL to mpiexec: ranks do not survive it" "left: $(pgrep -f "$MARK" | tr '\n' ' ')"; fi

# --- shared-memory cleanup -------------------------------------------------------
# $PPID of a rank's shell is the launcher, whose parent is mpiexec; the kvsname is
# kvs_<mpiexec pid>_0.
other=/dev/shm/stmpi-kvs_0_0-check$$
touch "$other"
run shm "$MPIEXEC" -n 2 sh -c "m=\$(sed 's/^.*) [^ ]* //; s/ .*//' /proc/\$PPID/stat); touch /dev/shm/stmpi-kvs_\${m}_0-x; echo \$m; $(rank_script 1 'exit 1')"
mpiexec_pid=$(head -1 "$WORK/shm.out")
if [ $RC -eq 1 ] && [ -n "$mpiexec_pid" ] && [ ! -e "/dev/shm/stmpi-kvs_${mpiexec_pid}_0-x" ] && [ -e "$other" ]; then
  pass "leaked /dev/shm/stmpi-<kvsname>-* removed, other jobs' kept"
else fail "leaked /dev/shm/stmpi-<kvsname>-* removed, other jobs' kept" "rc=$RC pid=$mpiexec_pid"; fi
rm -f "$other" "/dev/shm/stmpi-kvs_${mpiexec_pid}_0-x"

# --- input and output ---------------------------------------------------------------
printf 'alpha\nbeta\n' > "$WORK/input"
"$MPIEXEC" -n 3 sh -c 'echo "$PMI_RANK: $(wc -l)"' < "$WORK/input" > "$WORK/stdin.out" 2>&1
RC=$?
if [ $RC -eq 0 ] && grep -qx "0: 2" "$WORK/stdin.out" && grep -qx "1: 0" "$WORK/stdin.out" && grep -qx "2: 0" "$WORK/stdin.out"; then
  pass "stdin goes to rank 0, the others read /dev/null"
else fail "stdin goes to rank 0, the others read /dev/null" "rc=$RC $(cat "$WORK/stdin.out")"; fi

run label "$MPIEXEC" -l -n 3 sh -c 'echo "hello from $PMI_RANK"; echo "to stderr $PMI_RANK" >&2'
ok=1
for r in 0 1 2; do
  grep -qx "\[$r\] hello from $r" "$WORK/label.out" && grep -qx "\[$r\] to stderr $r" "$WORK/label.err" || ok=0
done
if [ $RC -eq 0 ] && [ $ok -eq 1 ]; then
  pass "-l prefixes stdout and stderr lines with [rank]"
else fail "-l prefixes stdout and stderr lines with [rank]" "rc=$RC $(cat "$WORK/label.out")"; fi

# Every line is written in two pieces and the last one has no newline; lines of different
# ranks must still never mix.
run lines "$MPIEXEC" -n 4 sh -c 'i=0; while [ $i -lt 300 ]; do printf "rank%s-" "$PMI_RANK"; printf "line%s\n" $i; i=$((i + 1)); done; printf "rank%s-tail" "$PMI_RANK"'
bad=$(grep -cvE "^rank[0-3]-(line[0-9]+|tail)$" "$WORK/lines.out")
total=$(wc -l < "$WORK/lines.out")
if [ $RC -eq 0 ] && [ "$bad" -eq 0 ] && [ "$total" -eq 1204 ]; then pass "output lines of different ranks never mix"
else fail "output lines of different ranks never mix" "rc=$RC, $bad bad lines of $total"; fi

# --- options -------------------------------------------------------------------------
run env "$MPIEXEC" -n 2 -env STMPI_CHECK_A one -genv STMPI_CHECK_B=two sh -c 'echo "$STMPI_CHECK_A $STMPI_CHECK_B"'
if [ $RC -eq 0 ] && [ "$(grep -cx "one two" "$WORK/env.out")" -eq 2 ]; then pass "-env and -genv set variables in every rank"
else fail "-env and -genv set variables in every rank" "rc=$RC $(cat "$WORK/env.out")"; fi

run envnone env STMPI_CHECK_C=inherited "$MPIEXEC" -genvnone -env PATH /usr/bin:/bin -n 1 sh -c 'echo "[${STMPI_CHECK_C:-unset}]"'
if [ $RC -eq 0 ] && grep -qx "\[unset\]" "$WORK/envnone.out"; then pass "-genvnone passes no inherited variables"
else fail "-genvnone passes no inherited variables" "rc=$RC $(cat "$WORK/envnone.out" "$WORK/envnone.err")"; fi

ncpus=$(nproc)
run bind "$MPIEXEC" -l -n $((2 * ncpus)) -bind-to core sh -c 'grep Cpus_allowed_list /proc/self/status'
ok=1
r=0
while [ $r -lt "$ncpus" ]; do
  a=$(grep "^\[$r\]" "$WORK/bind.out" | awk '{print $3}')
  b=$(grep "^\[$((r + ncpus))\]" "$WORK/bind.out" | awk '{print $3}')
  [ -n "$a" ] && [ "$a" = "$b" ] || ok=0
  r=$((r + 1))
done
if [ $ncpus -gt 1 ] && [ "$(awk '{print $3}' "$WORK/bind.out" | sort -u | wc -l)" -lt 2 ]; then ok=0; fi
if [ $RC -eq 0 ] && [ $ok -eq 1 ]; then pass "-bind-to core binds rank r to core r mod cores"
else fail "-bind-to core binds rank r to core r mod cores" "rc=$RC $(tr '\n' ' ' < "$WORK/bind.out")"; fi

run unknown "$MPIEXEC" -frobnicate -n 1 true
if [ $RC -eq 2 ] && grep -q "unknown option '-frobnicate'" "$WORK/unknown.err"; then pass "unknown option is an error"
else fail "unknown option is an error" "rc=$RC $(cat "$WORK/unknown.err")"; fi

# One node only: host options are refused with a pointer to Hydra, and nothing starts.
for opt in "-hosts a,b" "-host a" "--hostfile hf" "-f hf" "-machinefile hf" "-launcher ssh"; do
  # shellcheck disable=SC2086
  run hostopt "$MPIEXEC" $opt -n 2 sh -c "echo started"
  if [ $RC -eq 2 ] && grep -q "this node only" "$WORK/hostopt.err" &&
     grep -q "mpiexec.hydra" "$WORK/hostopt.err" && ! grep -q started "$WORK/hostopt.out"; then
    pass "'mpiexec $opt' is an error naming Hydra"
  else fail "'mpiexec $opt' is an error naming Hydra" "rc=$RC $(cat "$WORK/hostopt.err")"; fi
done

run missing "$MPIEXEC" -n 2 "stmpi-no-such-program-$$"
if [ $RC -eq 127 ] && grep -q "not found" "$WORK/missing.err"; then pass "missing program: exit status 127"
else fail "missing program: exit status 127" "rc=$RC $(cat "$WORK/missing.err")"; fi

run help "$MPIEXEC" --help
run version "$MPIEXEC" --version
if grep -q "^Usage: mpiexec" "$WORK/help.out" && grep -q "^mpiexec (" "$WORK/version.out"; then pass "--help and --version"
else fail "--help and --version" "$(cat "$WORK/help.err" "$WORK/version.err")"; fi

if leftovers; then fail "no processes left behind" "$(pgrep -af "$MARK")"; else pass "no processes left behind"; fi

echo "$PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ]
