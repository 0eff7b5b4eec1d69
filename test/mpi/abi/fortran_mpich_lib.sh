#!/bin/bash
# MPICH's own Fortran library on top of ours: a Fortran program built by Debian's mpifort.mpich
# (mpif.h) runs with MPICH's libmpichfort.so.12 and our libmpich.so.12, which must provide the
# internal entry points that library calls (MPII_*_attr, MPII_Keyval_set_proxy,
# MPII_Grequest_set_lang_f77, MPICH's MPIX_ calls). LD_LIBRARY_PATH holds only a directory with
# our libmpich.so.12, so libmpichfort.so.12 comes from the system's MPICH. The program
# (fortran_mpich_prog.f90) checks attributes with Fortran callbacks, MPI-1 attributes, the
# predefined attributes and a generalized request with Fortran callbacks.
n=${1:-2}
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}"
FC=${MPICH_FC:-mpifort.mpich}
if ! command -v "$FC" > /dev/null 2>&1; then
  echo "SKIP: $FC is not installed"
  exit 0
fi
ourlib="$STMPI_BUILDDIR/.libs/libmpi.so.12"
[ -e "$ourlib" ] || { echo "FAIL: $ourlib does not exist"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-fabi.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# MPICH's Fortran library must need only symbols our library defines (the libc and gfortran
# ones aside).
mpichfort=$(ldconfig -p | awk '/libmpichfort\.so\.12 .*x86-64/ { print $NF; exit }')
[ -n "$mpichfort" ] || { echo "SKIP: MPICH's libmpichfort.so.12 is not installed"; exit 0; }
nm -D --defined-only "$ourlib" | awk '{ print $3 }' | sed 's/@.*//' | sort -u > "$work/ours"
nm -D -u "$mpichfort" | awk '{ print $2 }' | sed 's/@.*//' | grep -E '^P?MPI[IRX]?_' |
  sort -u > "$work/needed"
missing=$(comm -23 "$work/needed" "$work/ours" | tr '\n' ' ')
[ -z "$missing" ] || fail "$mpichfort needs symbols our library lacks: $missing"

if ! (cd "$work" && "$FC" -O1 -o prog "$STMPI_SRCDIR/test/mpi/abi/fortran_mpich_prog.f90" \
  > build.log 2>&1); then
  cat "$work/build.log"
  echo "FAIL: $FC could not build fortran_mpich_prog.f90"
  exit 1
fi
readelf -d "$work/prog" | grep -q 'NEEDED.*libmpichfort\.so\.12' ||
  fail "the program does not link libmpichfort.so.12"

mkdir "$work/lib"
ln -s "$(cd "$(dirname "$ourlib")" && pwd)/libmpi.so.12" "$work/lib/libmpich.so.12"
export LD_LIBRARY_PATH="$work/lib"
echo "ldd: $(ldd "$work/prog" | grep -E 'libmpich(fort)?\.so' | awk '{ print $1 " => " $3 }' | tr '\n' ' ')"
timeout 60 "$STMPI_MPIEXEC" -n "$n" env LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld" "$work/prog" \
  > "$work/out" 2> "$work/err" < /dev/null
rc=$?
cat "$work/out"
head -50 "$work/err"
[ "$rc" -eq 0 ] || fail "mpiexec exited with status $rc"
grep -q "No Errors" "$work/out" || fail "the program did not print No Errors"
grep -q "STMPI" "$work/out" || fail "MPI_Get_library_version does not name STMPI"
nld=$(ls "$work"/ld.* 2> /dev/null | wc -l)
[ "$nld" -eq "$n" ] || fail "expected $n LD_DEBUG logs, found $nld"
for f in "$work"/ld.*; do
  [ -e "$f" ] || continue
  grep -q "calling init: $work/lib/libmpich.so.12" "$f" ||
    fail "$(basename "$f"): libmpich.so.12 was not loaded from $work/lib"
  loaded=$(sed -n 's/.*calling init: \(.*libmpichfort\.so\.12\)$/\1/p' "$f" | head -1)
  [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$mpichfort")" ] ||
    fail "$(basename "$f"): the Fortran library loaded was '$loaded', not MPICH's $mpichfort"
done
[ "$fails" -eq 0 ] && echo "PASS: MPICH's Fortran library runs on ours ($n ranks)"
[ "$fails" -eq 0 ]
