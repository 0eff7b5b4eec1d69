#!/bin/bash
# examples/spmm at 1 .. N ranks (default 4): every variant on a small R-MAT
# matrix must print "verified"; the uniform, banded and Matrix Market inputs run
# on a non-square grid (3 ranks are a 1 x 3 grid); the work-stealing variant with
# a forced imbalance must report stolen tiles in its statistics; --gpu in this CPU build
# must say that it was skipped and still verify.
max=${1:-4}
src=$STMPI_SRCDIR/examples/spmm
out=${STMPI_TEST_OUTDIR:-$STMPI_BUILDDIR/test/mpi/out}/apps_spmm.d
mkdir -p "$out"
exe=$out/spmm
failed=0
# shellcheck disable=SC2086 # the flag variables hold several words
if ! $STMPI_TEST_CC $STMPI_TEST_CFLAGS -I"$src" "$src"/spmm.c "$src"/matrix.c "$src"/summa.c "$src"/async.c \
  "$src"/accum.c "$src"/gpu_none.c -o "$exe" $STMPI_TEST_LIBS; then
  echo "FAIL: spmm did not compile"
  exit 1
fi
# A 6 x 6 symmetric matrix in Matrix Market form (lower triangle given).
cat >"$out/small.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real symmetric
6 6 9
1 1 4.0
2 1 -1.0
2 2 4.0
3 3 4.0
4 2 -1.5
4 4 4.0
5 5 2.0
6 1 0.5
6 6 3.0
MTX

# run NAME NPROCS ARGS...: the run must exit 0 and every spmm: line say verified.
run() {
  local name=$1 n=$2 log
  shift 2
  log=$out/$name.$n.log
  timeout -k 5 120 "$STMPI_MPIEXEC" -n "$n" -timeout 110 "$exe" "$@" >"$log" 2>&1
  local rc=$?
  local lines verified
  lines=$(grep -c '^spmm: ' "$log")
  verified=$(grep -c '^spmm: .* verified$' "$log")
  if [[ $rc -ne 0 || $lines -eq 0 || $lines -ne $verified ]]; then
    echo "FAIL: $name ($n ranks): exit $rc, $verified of $lines runs verified; log: $log"
    tail -n 5 "$log"
    failed=$((failed + 1))
    return 1
  fi
  grep '^spmm: ' "$log"
  echo "PASS: $name ($n ranks)"
}

for n in $(seq 1 "$max"); do
  run rmat "$n" --matrix rmat --scale 9 --width 12 --reps 1 --variant all
done
n3=$((max < 3 ? max : 3))
run uniform "$n3" --matrix uniform --scale 8 --width 7 --reps 1 --variant all --tiles 1,3
run banded "$n3" --matrix banded --scale 8 --width 5 --reps 1 --variant all --window create
run mtx "$n3" --matrix "$out/small.mtx" --width 3 --reps 1 --variant all
# Without a CUDA build (or device), --gpu says so and multiplies on the CPU.
if run gpu 2 --matrix rmat --scale 8 --width 4 --reps 1 --variant async --gpu; then
  if grep -q '^# spmm: --gpu skipped: ' "$out/gpu.2.log"; then
    echo "PASS: gpu (2 ranks): $(grep -m1 '^# spmm: --gpu' "$out/gpu.2.log")"
  else
    echo "FAIL: gpu (2 ranks): no '--gpu skipped' line"
    failed=$((failed + 1))
  fi
fi
if [[ $max -ge 2 ]]; then
  # Tile row 0 costs 16 times more: its owners fall behind and the others steal.
  if run imbalanced "$max" --matrix rmat --scale 10 --width 16 --reps 2 --variant steal --imbalance 16 \
    --tiles 2,4 --stats; then
    stolen=$(sed -n 's/^spmm-stats: steal .*tiles stolen in all \([0-9]*\)$/\1/p' "$out/imbalanced.$max.log")
    if [[ -z "$stolen" || "$stolen" -eq 0 ]]; then
      echo "FAIL: imbalanced ($max ranks): no tiles stolen (statistics: '${stolen:-none}')"
      failed=$((failed + 1))
    else
      echo "PASS: imbalanced ($max ranks): $stolen tiles stolen"
    fi
  fi
fi
[[ $failed -eq 0 ]]
