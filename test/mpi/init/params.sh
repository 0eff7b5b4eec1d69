#!/bin/bash
# Runtime parameters out of range, off their step, outside their choices or
# malformed stop MPI_Init with a message that names the variable, the value
# and the allowed values; nothing wraps
# (STMPI_SHM_CELLS=4294967298 is not 2 cells). A value in range still runs.
n=${1:-2}
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-params.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat > "$work/hello.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 3;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("initialized\n");
    MPI_Finalize();
    return 0;
}
PROG
# shellcheck disable=SC2086
$STMPI_TEST_CC $STMPI_TEST_CFLAGS "$work/hello.c" -o "$work/hello" $STMPI_TEST_LIBS || exit 1
fails=0
# expect_refused VAR VALUE TEXT: MPI_Init fails, stderr names VAR=VALUE and TEXT.
expect_refused() {
  local var=$1 value=$2 text=$3 rc
  env "$var=$value" timeout 30 "$STMPI_MPIEXEC" -n "$n" "$work/hello" >"$work/out" 2>"$work/err"
  rc=$?
  if [[ $rc -eq 0 || $rc -eq 124 ]] || grep -q initialized "$work/out"; then
    echo "FAIL: $var=$value: exit $rc, the job ran"; fails=$((fails + 1)); return
  fi
  if ! grep -qF -- "$var=$value" "$work/err" || ! grep -qF -- "$text" "$work/err"; then
    echo "FAIL: $var=$value: stderr lacks '$var=$value' or '$text':"; sed 's/^/  | /' "$work/err"
    fails=$((fails + 1)); return
  fi
  echo "ok: $var=$value refused: $(grep -m1 -F -- "$var=$value" "$work/err")"
}
expect_refused STMPI_SHM_CELLS 4294967298 "2..1024"
expect_refused STMPI_SHM_CELLS -1 "2..1024"
expect_refused STMPI_SHM_CELLS 2048 "2..1024"
expect_refused STMPI_SHM_CELL_SIZE 64G "256..1M"
expect_refused STMPI_SHM_CELL_SIZE 128 "256..1M"
expect_refused STMPI_SHM_CELL_SIZE 17179869184G "not valid"
expect_refused STMPI_SHM_CELL_SIZE 99999999999999999999 "not valid"
expect_refused STMPI_SHM_CELL_SIZE 16Q "not valid"
expect_refused STMPI_PROGRESS_POLLS_BEFORE_YIELD 99999999999 "0..2147483647"
expect_refused STMPI_PROGRESS_POLLS_BEFORE_YIELD -5 "0..2147483647"
expect_refused STMPI_RMA_ATTACH_SLOTS 0 "1..1048576"
expect_refused STMPI_SHM_SINGLE_COPY maybe "not valid"
# Steps and choices of the tables: a power of two, a multiple of 64, one of
# the listed words (the allowed values are named).
expect_refused STMPI_SHM_CELLS 48 "a power of two"
expect_refused STMPI_SHM_CELL_SIZE 1000 "a multiple of 64"
expect_refused STMPI_COLL_ALLREDUCE_ALGORITHM bogus "auto, recursive_doubling, rabenseifner"
expect_refused STMPI_STREAM_BACKEND opencl "auto, host, hip or cuda"
expect_refused STMPI_NETMOD bogus "auto, ofi, ucx or none"
env STMPI_SHM_CELLS=64 STMPI_SHM_CELL_SIZE=32K timeout 60 "$STMPI_MPIEXEC" -n "$n" "$work/hello" \
    >"$work/out" 2>"$work/err"
if [[ $? -eq 0 ]] && grep -q initialized "$work/out"; then echo "ok: values in range run"
else echo "FAIL: STMPI_SHM_CELLS=64 STMPI_SHM_CELL_SIZE=32K did not run"; cat "$work/err"
  fails=$((fails + 1)); fi
if [[ $fails -eq 0 ]]; then echo "No Errors"; exit 0; fi
echo "Found $fails errors"; exit 1
