#!/bin/bash
# examples/multigrid at 1 .. N ranks (default 4): every variant must print "verified" (its
# finest solution equal to the serial solve's in every cell); plain MPI with kernels on a host
# stream and on the CPU and stream-triggered RMA must be among them, and a variant whose API
# the build lacks must say why. Then boxes of 2 x 2 x 1 per rank on 3 ranks, and a solve of
# one F-cycle and 3 V-cycles whose residual must fall below 1e-4 of the right-hand side.
max=${1:-4}
src=$STMPI_SRCDIR/examples/multigrid
out=${STMPI_TEST_OUTDIR:-$STMPI_BUILDDIR/test/mpi/out}/apps_multigrid.d
mkdir -p "$out"
exe=$out/multigrid
failed=0
# shellcheck disable=SC2086 # the flag variables hold several words
if ! $STMPI_TEST_CC $STMPI_TEST_CFLAGS -I"$src" "$src"/mg.c "$src"/level.c "$src"/kernels.c \
  "$src"/cycle.c "$src"/comm_mpi.c "$src"/comm_strma.c "$src"/comm_enqueue.c \
  "$src"/comm_persistent.c -o "$exe" $STMPI_TEST_LIBS; then
  echo "FAIL: multigrid did not compile"
  exit 1
fi

# run NAME NPROCS VARIANTS ARGS...: exit 0 and every "mg:" line verified; each variant of the
# comma-separated VARIANTS verified, or (enqueue, persistent, stepoch: APIs a build may lack)
# said not built.
run() {
  local name=$1 n=$2 variants=$3 log
  shift 3
  log=$out/$name.$n.log
  timeout -k 5 120 "$STMPI_MPIEXEC" -n "$n" -timeout 110 "$exe" --variant "$variants" "$@" >"$log" 2>&1
  local rc=$? lines verified v why=""
  lines=$(grep -c '^mg: ' "$log")
  verified=$(grep -c '^mg: .* verified$' "$log")
  [[ $rc -ne 0 || $lines -eq 0 || $lines -ne $verified ]] && why="exit $rc, $verified of $lines variants verified"
  [[ $variants == all ]] && variants=mpi,cpu,enqueue,persistent,strma,stepoch
  for v in ${variants//,/ }; do
    [[ -n "$why" ]] || grep -q "^mg: $v .* verified$" "$log" && continue
    if [[ $v =~ ^(enqueue|persistent|stepoch)$ ]] && grep -q "^# multigrid: variant $v not built: " "$log"; then
      continue
    fi
    why="no verified $v variant"
  done
  if [[ -n "$why" ]]; then
    echo "FAIL: $name ($n ranks): $why; log: $log"
    tail -n 5 "$log"
    failed=$((failed + 1))
    return 1
  fi
  grep -E '^mg: |not built' "$log"
  echo "PASS: $name ($n ranks)"
}

for n in $(seq 1 "$max"); do
  run small "$n" all --log2-box 3 --reps 1 --warmup 0
done
n3=$((max < 3 ? max : 3))
run flat "$n3" all --log2-box 3 --boxes 4 --reps 2 --warmup 0
if run converge 2 cpu,strma --log2-box 4 --reps 1 --warmup 0 --vcycles 3; then
  relres=$(sed -n 's/^mg: strma .* relres=\([0-9.e+-]*\) verified$/\1/p' "$out/converge.2.log")
  if awk -v r="$relres" 'BEGIN { exit !(r != "" && r + 0 < 1e-4) }'; then
    echo "PASS: converge (2 ranks): residual / right-hand side $relres"
  else
    echo "FAIL: converge (2 ranks): residual / right-hand side '${relres:-none}', not below 1e-4"
    failed=$((failed + 1))
  fi
fi
[[ $failed -eq 0 ]]
