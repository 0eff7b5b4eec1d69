#!/bin/bash
# Binary compatibility with MPICH: a program compiled and linked by Debian's
# MPICH compiler wrapper (mpicc.mpich, against libmpich.so.12) runs under our
# mpiexec with libmpich.so.12 resolved to our library, whose soname is libmpich.so.12
# too (libmpi.so.12 is an alias).
n=${1:-2}
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}"
MPICC=${MPICH_CC:-mpicc.mpich}
if ! command -v "$MPICC" > /dev/null 2>&1; then
  echo "SKIP: $MPICC is not installed"
  exit 0
fi
ourlib="$STMPI_BUILDDIR/.libs/libmpi.so.12"
if [ ! -e "$ourlib" ]; then
  echo "FAIL: $ourlib does not exist"
  exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if ! "$MPICC" -O1 -o "$work/abi_prog" "$STMPI_SRCDIR/test/mpi/abi/abi_prog.c"; then
  echo "FAIL: $MPICC could not build abi_prog.c"
  exit 1
fi
# The program must need libmpich.so.12 (otherwise the check proves nothing).
if ! readelf -d "$work/abi_prog" | grep -q 'NEEDED.*libmpich\.so\.12'; then
  fail "abi_prog does not link libmpich.so.12: $(readelf -d "$work/abi_prog" | grep NEEDED | tr '\n' ' ')"
fi
# Our library carries MPICH's soname, so a program linked against it (-lmpich, as
# our wrappers link, or the alias -lmpi) needs libmpich.so.12 exactly as abi_prog does.
soname=$(readelf -d "$ourlib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
echo "our soname: $soname"
[ "$soname" = libmpich.so.12 ] || fail "our library's soname is '$soname', not libmpich.so.12"
for lib in mpich mpi; do
  if ${STMPI_TEST_CC:-gcc} -O1 -I"$STMPI_SRCDIR/include" -o "$work/own_$lib" \
    "$STMPI_SRCDIR/test/mpi/abi/abi_prog.c" -L"$STMPI_BUILDDIR/.libs" -l$lib; then
    needed=$(readelf -d "$work/own_$lib" | sed -n 's/.*NEEDED.*\[\(libmpi[a-z]*\.so[.0-9]*\)\].*/\1/p')
    echo "linked with -l$lib: NEEDED $needed"
    [ "$needed" = libmpich.so.12 ] || fail "a program linked with -l$lib needs '$needed', not libmpich.so.12"
  else
    fail "abi_prog.c does not build against our library with -l$lib"
  fi
done

mkdir "$work/lib"
ln -s "$(cd "$(dirname "$ourlib")" && pwd)/libmpi.so.12" "$work/lib/libmpich.so.12"
export LD_LIBRARY_PATH="$work/lib:$STMPI_BUILDDIR/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ldd: libmpich.so.12 resolves into our symlink directory
resolved=$(ldd "$work/abi_prog" | awk '$1 == "libmpich.so.12" { print $3 }')
echo "ldd: libmpich.so.12 => $resolved"
if [ "$resolved" != "$work/lib/libmpich.so.12" ]; then
  fail "libmpich.so.12 resolves to '$resolved', not to our library"
fi
real_resolved=$(readlink -f "$resolved" 2>/dev/null)
real_ours=$(readlink -f "$ourlib")
[ "$real_resolved" = "$real_ours" ] || fail "libmpich.so.12 is $real_resolved, expected $real_ours"

# run under our mpiexec; LD_DEBUG=libs on the ranks shows which file was loaded
timeout 60 "$STMPI_MPIEXEC" -n "$n" env LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld" "$work/abi_prog" \
  > "$work/out" 2> "$work/err" < /dev/null
rc=$?
cat "$work/out"
cat "$work/err" | head -50
[ "$rc" -eq 0 ] || fail "mpiexec exited with status $rc"
grep -q "No Errors" "$work/out" || fail "the program did not print No Errors"
grep -q "STMPI" "$work/out" || fail "MPI_Get_library_version does not name STMPI: $(grep library: "$work/out")"
nld=$(ls "$work"/ld.* 2> /dev/null | wc -l)
[ "$nld" -eq "$n" ] || fail "expected $n LD_DEBUG logs, found $nld"
for f in "$work"/ld.*; do
  [ -e "$f" ] || continue
  if ! grep -q "calling init: $work/lib/libmpich.so.12" "$f"; then
    fail "$(basename "$f"): libmpich.so.12 was not loaded from $work/lib: $(grep 'libmpich' "$f" | head -3)"
  fi
  if grep -q "calling init: .*/x86_64-linux-gnu/libmpich" "$f"; then
    fail "$(basename "$f"): the system MPICH library was loaded"
  fi
done
if [ "$fails" -eq 0 ]; then
  echo "No Errors"
  exit 0
fi
echo "Found $fails errors"
exit 1
