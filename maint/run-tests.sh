#!/bin/bash
# Sets up (packages, build) and runs every test: unit tests, MPI programs
# under mpiexec, launcher checks, ABI checks. Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh maint/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
if ! sh maint/build.sh; then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi
cd build
# Each automake test program has its own time limit inside; this one is the backstop.
timeout -k 10 2400 make -s check >check.out 2>&1
status=$?
cat check.out | grep -E '^(PASS|FAIL|XFAIL|ERROR|SKIP)' || true
for f in test/unit/*.log test/mpi/run_tests.sh.log test/mpi/multinode/run.sh.log; do
  [ -f "$f" ] && grep -E '^(FAIL|\[  FAILED)' "$f" | head -20
done
# Count: GoogleTest cases from the unit logs, MPI programs from the runner.
passed=0
failed=0
for log in test/unit/*_test.log; do
  [ -f "$log" ] || continue
  p=$(grep -c '^\[       OK \]' "$log")
  f=$(grep -c '^\[  FAILED  \] [A-Za-z]' "$log")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
done
# MPI programs on one node, then across nodes (and the suite with STMPI_DEVICE_NOLOCAL=yes).
for pair in "test/mpi/run_tests.sh.log:mpi tests" "test/mpi/multinode/run.sh.log:multinode tests"; do
  log=${pair%%:*}
  if [ -f "$log" ]; then
    line=$(grep -E "^${pair#*:}: " "$log" | tail -1)
    p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    [ -n "$line" ] || { p=0; f=1; }
    passed=$((passed + p)); failed=$((failed + f))
  else
    failed=$((failed + 1))
  fi
done
# The generated bindings must match what the generator makes from the spec.
if make -s check-bindings >check-bindings.out 2>&1; then
  passed=$((passed + 1)); echo "PASS: check-bindings"
else
  failed=$((failed + 1)); echo "FAIL: check-bindings"; tail -20 check-bindings.out
fi
if [ $status -ne 0 ] && [ $failed -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
