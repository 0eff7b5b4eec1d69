#!/bin/bash
# Sets up (packages, build) and runs every test: unit tests, MPI programs
# under mpiexec, launcher checks, ABI checks. Ends with "N passed, N failed".
set -u
passed=0
failed=0
# count_summary LOG NAME: adds the numbers of LOG's last "NAME: N passed, M failed"
# line to the totals (and leaves them in step_passed, step_failed); fails, adding
# nothing, when LOG or the line is missing (the run did not finish).
count_summary() {
  local line
  [ -f "$1" ] || return 1
  line=$(grep -E "^$2: " "$1" | tail -1)
  [ -n "$line" ] || return 1
  step_passed=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/')
  step_failed=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  passed=$((passed + step_passed)); failed=$((failed + step_failed))
}
# count_target TARGET: `make -s TARGET` counted as one test; its output goes to
# TARGET.out, whose tail is shown when it fails (a missing target fails too).
count_target() {
  if make -s "$1" >"$1.out" 2>&1; then
    passed=$((passed + 1)); echo "PASS: $1"
  else
    failed=$((failed + 1)); echo "FAIL: $1"; tail -20 "$1.out"
  fi
}
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
timeout -k 10 3000 make -s check >check.out 2>&1
status=$?
cat check.out | grep -E '^(PASS|FAIL|XFAIL|ERROR|SKIP)' || true
for f in test/unit/*.log test/mpi/run_tests.sh.log test/mpi/multinode/run.sh.log; do
  # Each failure with the tail of its log (the runners indent it with "    | ").
  [ -f "$f" ] && grep -E -A26 '^(FAIL|\[  FAILED)' "$f" | grep -E '^(FAIL|\[  FAILED|    \| )' | head -120
done
# Count: GoogleTest cases from the unit logs, MPI programs from the runner.
for log in test/unit/*_test.log; do
  [ -f "$log" ] || continue
  p=$(grep -c '^\[       OK \]' "$log")
  f=$(grep -c '^\[  FAILED  \] [A-Za-z]' "$log")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
done
# MPI programs on one node, then across nodes (and the suite with STMPI_DEVICE_NOLOCAL=yes).
for pair in "test/mpi/run_tests.sh.log:mpi tests" "test/mpi/multinode/run.sh.log:multinode tests"; do
  count_summary "${pair%%:*}" "${pair#*:}" || failed=$((failed + 1))
done
# The generated bindings must match what the generator makes from the spec.
count_target check-bindings
# The benchmarks (not built by make check) must still compile against the tree.
count_target check-bench-build
# The docs against the code: the generated parameter page, the names and paths
# they mention, and their examples compiled and run.
count_target check-docs
# Formatting and a -Wall -Wextra -Werror pass with g++ and clang++ over the sources.
count_target lint
# The sanitizer build (ASan + UBSan) runs a subset of the MPI tests, within CI's time budget.
# STMPI_SAN_FILTER picks them (a run_tests.sh filter); STMPI_SAN=no skips this part.
if [ "${STMPI_SAN:-yes}" != no ]; then
  san_filter=${STMPI_SAN_FILTER:-'^(pt2pt/(types|sendmodes|nonblocking|persistent|sendrecv|probe|mprobe|truncate|errors|datatypes|largecount)|coll/(barrier|bcast|reduce|allreduce|gather|allgather|collerr)|comm/(commdup|commsplit|group)|rma/(fence_putget|lock_passive|accumulate_ops|pscw|shared|dynamic|rma_errors)|stream/(hoststream_mpi|mpis_channel)|st/st_iterations|init/initquery)$'}
  if (mkdir -p "$top/build-san" && cd "$top/build-san" &&
      { [ -f Makefile ] || ../configure --enable-sanitizers --disable-fortran --without-cuda --without-hip -q; } &&
      make -j"$(nproc)" -s >make.out 2>&1); then
    (cd "$top/build-san" && STMPI_TEST_FILTER="$san_filter" STMPI_TEST_TIMEOUT=180 BUILDDIR=$PWD SRCDIR=$top \
      STMPI_TEST_SANITIZE="$(sed -n 's/^STMPI_SANITIZE_FLAGS = //p' Makefile)" \
      ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      timeout -k 10 900 bash ../test/mpi/run_tests.sh >run_tests_san.log 2>&1)
    grep -E '^FAIL' "$top/build-san/run_tests_san.log" | sed 's/^/sanitizers: /'
    if count_summary "$top/build-san/run_tests_san.log" "mpi tests"; then
      echo "sanitizers: $step_passed passed, $step_failed failed"
    else
      echo "sanitizers: the MPI tests did not finish"; failed=$((failed + 1))
    fi
  else
    echo "sanitizers: the build failed"; tail -20 "$top/build-san/make.out"; failed=$((failed + 1))
  fi
fi
# mpi4py's own test suite, built against the installed library, on 1, 2 and 3 ranks
# (test/clients/mpi4py.sh; each rank count counts as one test). STMPI_MPI4PY=no skips it.
if [ "${STMPI_MPI4PY:-yes}" != no ]; then
  # Backstop 22 minutes (build and three runs; each run has its own limit): CI's hour holds.
  timeout -k 10 1320 bash "$top/test/clients/mpi4py.sh" >mpi4py.out 2>&1
  grep -E '^mpi4py' mpi4py.out
  count_summary mpi4py.out "mpi4py tests" ||
    { echo "mpi4py: the suite did not finish"; tail -20 mpi4py.out; failed=$((failed + 1)); }
fi
if [ $status -ne 0 ] && [ $failed -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
