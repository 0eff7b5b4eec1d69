#!/bin/bash
# File-system faults (faults.c) on $1 ranks: mounts a 1 MiB tmpfs (the full file system) and a
# read-only tmpfs holding one file in a fresh folder, runs faults.c there and unmounts them on
# exit. Needs root to mount; when mounting is not permitted the test FAILS with the reason (it
# does not skip).
set -u
np=${1:-2}
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}" "${STMPI_TEST_CC:?}"
out=$STMPI_BUILDDIR/test/mpi/out
mkdir -p "$out"
exe=$out/io_faults
if [[ ! -x "$exe" || "$STMPI_SRCDIR/test/mpi/io/faults.c" -nt "$exe" ||
  "$STMPI_BUILDDIR/.libs/libmpi.so" -nt "$exe" ]]; then
  # shellcheck disable=SC2086
  $STMPI_TEST_CC $STMPI_TEST_CFLAGS "$STMPI_SRCDIR/test/mpi/io/faults.c" -o "$exe" \
    $STMPI_TEST_LIBS || { echo "FAIL: faults.c did not compile"; exit 1; }
fi
top=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-io-faults.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
cleanup() {
  mountpoint -q "$top/full" && umount "$top/full"
  mountpoint -q "$top/ro" && umount "$top/ro"
  rmdir "$top/full" "$top/ro" "$top" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$top/full" "$top/ro"
# mode=1777: the ranks drop their effective uid for the read-only file check.
if ! why=$(mount -t tmpfs -o size=1m,mode=1777 stmpi-io-full "$top/full" 2>&1); then
  echo "FAIL: cannot mount a tmpfs (uid $(id -u)): $why"
  exit 1
fi
if ! why=$(mount -t tmpfs -o size=64k,mode=0755 stmpi-io-ro "$top/ro" 2>&1) ||
  ! printf 'read-only mount\n' >"$top/ro/ro-file" ||
  ! why=$(mount -o remount,ro "$top/ro" 2>&1); then
  echo "FAIL: cannot make a read-only tmpfs: $why"
  exit 1
fi
log=$out/io_faults.$np.run.log
STMPI_IO_TESTDIR=$top/full STMPI_IO_RODIR=$top/ro timeout -k 5 120 "$STMPI_MPIEXEC" -n "$np" "$exe" \
  </dev/null >"$log" 2>&1
status=$?
cat "$log"
[[ $status -ne 0 ]] || grep -q "No Errors" "$log" || { echo "FAIL: no 'No Errors' line"; status=98; }
left=$(ls -A "$top/full")
[[ -z "$left" ]] || { echo "FAIL: files left on the tmpfs: $left"; status=1; }
exit $status
