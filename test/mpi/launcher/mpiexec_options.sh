#!/bin/bash
# mpiexec as users type it: -wdir/-gwdir, -ppn (accepted when the job fits this node),
# multi-program launches (a : b) with MPI_APPNUM and per-program -env, -configfile,
# -print-rank-map, MPIEXEC_TIMEOUT, and the messages of the usage errors.
set -u
MPIEXEC=$STMPI_MPIEXEC
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mpiexec_options.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fails=0
check() {  # check NAME STATUS [DETAIL]
  if [ "$2" -eq 0 ]; then echo "ok: $1"; else echo "FAIL: $1 ${3:-}"; fails=$((fails + 1)); fi
}
# run NAME ARGS...: output in $WORK/NAME.out/.err, status in $RC
run() {
  name=$1; shift
  "$@" </dev/null >"$WORK/$name.out" 2>"$WORK/$name.err"
  RC=$?
}
APP=$WORK/appnum
$STMPI_TEST_CC $STMPI_TEST_CFLAGS "$STMPI_SRCDIR/test/mpi/launcher/appnum.c" -o "$APP" $STMPI_TEST_LIBS ||
  { echo "FAIL: cannot build appnum.c"; exit 1; }

# --- -wdir -------------------------------------------------------------------
mkdir -p "$WORK/sub dir"
cp "$APP" "$WORK/sub dir/prog"
real=$(cd "$WORK/sub dir" && pwd -P)
run wdir "$MPIEXEC" -n 2 -wdir "$WORK/sub dir" ./prog
[ $RC -eq 0 ] && [ "$(grep -c "cwd $real\$" "$WORK/wdir.out")" -eq 2 ]
check "-wdir: both ranks run in the directory, relative program found there" $? "rc=$RC $(cat "$WORK/wdir.out" "$WORK/wdir.err")"
run gwdir "$MPIEXEC" -gwdir "$WORK/sub dir" -n 1 "$APP" : -n 1 -wdir / "$APP"
[ $RC -eq 0 ] && grep -q "^rank 0 .*cwd $real\$" "$WORK/gwdir.out" && grep -q "^rank 1 .*cwd /\$" "$WORK/gwdir.out"
check "-gwdir for all programs, -wdir overrides it for one" $? "rc=$RC $(cat "$WORK/gwdir.out" "$WORK/gwdir.err")"
run wdir_missing "$MPIEXEC" -n 1 -wdir "$WORK/nonexistent" "$APP"
[ $RC -eq 127 ] && grep -q "wdir '$WORK/nonexistent': No such file or directory" "$WORK/wdir_missing.err"
check "-wdir of a missing directory: exit 127 and a message" $? "rc=$RC $(cat "$WORK/wdir_missing.err")"

# --- -ppn --------------------------------------------------------------------
run ppn_ok "$MPIEXEC" -ppn 4 -n 3 true
check "-ppn 4 with 3 processes fits one node" $RC "$(cat "$WORK/ppn_ok.err")"
run ppn_bad "$MPIEXEC" -ppn 2 -n 5 true
[ $RC -eq 2 ] && grep -q "5 processes at 2 per node need 3 nodes" "$WORK/ppn_bad.err" && grep -q "mpiexec.hydra" "$WORK/ppn_bad.err"
check "-ppn 2 with 5 processes: exit 2, needs 3 nodes, points to Hydra" $? "rc=$RC $(cat "$WORK/ppn_bad.err")"
run ppn_zero "$MPIEXEC" -ppn 0 -n 1 true
[ $RC -eq 2 ] && grep -q "'-ppn 0': processes per node must be a positive integer" "$WORK/ppn_zero.err"
check "-ppn 0 is refused" $? "rc=$RC $(cat "$WORK/ppn_zero.err")"

# --- several programs: ranks in order, MPI_APPNUM, one MPI_COMM_WORLD, per-program -env --
run multi "$MPIEXEC" -genv COLOR grey -n 1 -env COLOR red "$APP" first : -n 2 "$APP" second : "$APP" third
expect="rank 0 size 4 appnum 0 arg first color red sum ok
rank 1 size 4 appnum 1 arg second color grey sum ok
rank 2 size 4 appnum 1 arg second color grey sum ok
rank 3 size 4 appnum 2 arg third color grey sum ok"
got=$(sed 's/ cwd .*//' "$WORK/multi.out" | sort)
[ $RC -eq 0 ] && [ "$got" = "$expect" ]
check "-n 1 a : -n 2 b : c: 4 ranks, MPI_APPNUM 0,1,1,2, -env per program" $? "rc=$RC got: $got $(cat "$WORK/multi.err")"
run single "$MPIEXEC" -n 2 "$APP" only
[ $RC -eq 0 ] && [ "$(grep -c 'appnum 0 arg only' "$WORK/single.out")" -eq 2 ]
check "one program: MPI_APPNUM 0 everywhere" $? "rc=$RC $(cat "$WORK/single.out")"
run colon_end "$MPIEXEC" -n 1 true :
[ $RC -eq 2 ] && grep -q "no program given after ':'" "$WORK/colon_end.err"
check "a trailing ':' without a program is an error" $? "rc=$RC $(cat "$WORK/colon_end.err")"

# --- -configfile ---------------------------------------------------------------
cat >"$WORK/config" <<CFG
# two programs, Hydra's format: one per line
-n 1 -env COLOR red $APP first

-n 2 $APP "second"
CFG
run config "$MPIEXEC" -configfile "$WORK/config"
got=$(sed 's/ cwd .*//' "$WORK/config.out" | sort)
expect="rank 0 size 3 appnum 0 arg first color red sum ok
rank 1 size 3 appnum 1 arg second color - sum ok
rank 2 size 3 appnum 1 arg second color - sum ok"
[ $RC -eq 0 ] && [ "$got" = "$expect" ]
check "-configfile: one program per line, comments and blank lines skipped" $? "rc=$RC got: $got $(cat "$WORK/config.err")"
run config_missing "$MPIEXEC" -configfile "$WORK/none"
[ $RC -eq 2 ] && grep -q "cannot read -configfile '$WORK/none'" "$WORK/config_missing.err"
check "-configfile of a missing file: exit 2 and a message" $? "rc=$RC $(cat "$WORK/config_missing.err")"
printf '# nothing\n\n' >"$WORK/empty"
run config_empty "$MPIEXEC" -configfile "$WORK/empty"
[ $RC -eq 2 ] && grep -q "names no program" "$WORK/config_empty.err"
check "-configfile without programs is an error" $? "rc=$RC $(cat "$WORK/config_empty.err")"

echo "-configfile $WORK/self" >"$WORK/self"
run config_self "$MPIEXEC" -configfile "$WORK/self"
[ $RC -eq 2 ] && grep -q "include itself" "$WORK/config_self.err"
check "a -configfile that includes itself is an error, not a hang" $? "rc=$RC $(cat "$WORK/config_self.err")"

# --- -print-rank-map -------------------------------------------------------------
run rankmap "$MPIEXEC" -print-rank-map -n 3 true
[ $RC -eq 0 ] && [ "$(head -1 "$WORK/rankmap.out")" = "($(hostname):0,1,2)" ]
check "-print-rank-map prints (host:0,1,2)" $? "rc=$RC $(cat "$WORK/rankmap.out")"

# --- MPIEXEC_TIMEOUT ---------------------------------------------------------------
start=$(date +%s)
run timeout_env env MPIEXEC_TIMEOUT=2 "$MPIEXEC" -n 2 sleep 60
elapsed=$(($(date +%s) - start))
[ $RC -eq 124 ] && [ $elapsed -lt 30 ] && grep -q "job exceeded the timeout of 2 seconds (MPIEXEC_TIMEOUT=2); killing 2 ranks" "$WORK/timeout_env.err"
check "MPIEXEC_TIMEOUT=2 kills the job: exit 124 and a message" $? "rc=$RC elapsed=$elapsed $(cat "$WORK/timeout_env.err")"
run timeout_bad env MPIEXEC_TIMEOUT=soon "$MPIEXEC" -n 1 true
[ $RC -eq 2 ] && grep -q "MPIEXEC_TIMEOUT='soon' is not a number of seconds" "$WORK/timeout_bad.err"
check "MPIEXEC_TIMEOUT=soon is refused" $? "rc=$RC $(cat "$WORK/timeout_bad.err")"
run timeout_flag env MPIEXEC_TIMEOUT=1 "$MPIEXEC" -timeout 60 -n 1 sleep 3
check "-timeout wins over MPIEXEC_TIMEOUT" $RC "$(cat "$WORK/timeout_flag.err")"
run timeout_fine env MPIEXEC_TIMEOUT=60 "$MPIEXEC" -n 2 "$APP"
check "a job within MPIEXEC_TIMEOUT exits 0" $RC "$(cat "$WORK/timeout_fine.err")"

# --- usage errors keep their messages --------------------------------------------
run unknown "$MPIEXEC" -bogus -n 1 true
[ $RC -eq 2 ] && grep -q "unknown option '-bogus'" "$WORK/unknown.err"
check "an unknown option: exit 2, named" $? "rc=$RC $(cat "$WORK/unknown.err")"
run hosts "$MPIEXEC" -hosts a,b -n 2 true
[ $RC -eq 2 ] && grep -q "mpiexec.hydra" "$WORK/hosts.err"
check "-hosts still points to Hydra" $? "rc=$RC $(cat "$WORK/hosts.err")"
"$MPIEXEC" --help | grep -q -- "-configfile FILE" && "$MPIEXEC" --help | grep -q -- "-print-rank-map"
check "--help lists -wdir, -configfile, -print-rank-map" $?

if [ $fails -eq 0 ]; then echo "No Errors"; exit 0; fi
echo "$fails checks failed"
exit 1
