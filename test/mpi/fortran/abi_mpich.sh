#!/bin/bash
# MPICH's Fortran ABI in both directions: Fortran programs of this chapter compiled and linked
# by Debian's MPICH wrapper (mpifort.mpich, NEEDED libmpichfort.so.12 and libmpich.so.12) run
# under our mpiexec with libmpich.so.12 resolved to our library, (1) with our
# libmpichfort.so.12 and (2) with MPICH's own libmpichfort.so.12 on top of our libmpich (which
# then needs the MPII_ hooks MPICH's Fortran glue calls). Argument 2: "mpi" (mpif.h and
# `use mpi` programs) or "f08" (`use mpi_f08` programs).
n=${1:-2}
kind=${2:-mpi}
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}" "${STMPI_MPIEXEC:?}"
MPIFORT=${MPICH_FC_WRAPPER:-mpifort.mpich}
MPICC=${MPICH_CC_WRAPPER:-mpicc.mpich}
if ! command -v "$MPIFORT" > /dev/null 2>&1; then
  echo "FAIL: $MPIFORT is not installed (Debian's mpich package provides it)"
  exit 1
fi
here=$STMPI_SRCDIR/test/mpi/fortran
case $kind in
  mpi) progs="pt2pt_f77.f coll_mpif.f90 coll_mpi.f90 attr_mpi.f90 greq_mpi.f90 errors_mpi.f90 strings_mpi.f90 userop_mpi.f90 bottom_mpif.f90" ;;
  f08) progs="coll_f08.f90 greq_f08.f90 userop_f08.f90 bottom_f08.f90 topo_f08.f90 spawn_f08.f90" ;;
  *) echo "FAIL: unknown kind $kind"; exit 1 ;;
esac
ourlib=$STMPI_BUILDDIR/.libs/libmpich.so.12
ourfort=$STMPI_BUILDDIR/.libs/libmpichfort.so.12
mpichfort=$($MPIFORT -show | tr ' ' '\n' | sed -n 's/^-L//p' | while read -r d; do
  [ -e "$d/libmpichfort.so.12" ] && echo "$d/libmpichfort.so.12"; done | head -1)
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-fabi.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ -e "$ourlib" ] || fail "$ourlib does not exist"
[ -e "$ourfort" ] || fail "$ourfort does not exist (our Fortran library was not built)"
[ -n "$mpichfort" ] || fail "MPICH's libmpichfort.so.12 was not found next to $MPIFORT's -L folders"

built=()
for p in $progs; do
  exe=$work/${p%.*}
  helper=()
  c=$here/${p%.*}_c.c
  if [ -f "$c" ]; then
    "$MPICC" -O1 -c "$c" -o "$exe.c.o" || { fail "$MPICC could not compile $(basename "$c")"; continue; }
    helper=("$exe.c.o")
  fi
  if ! (cd "$work" && "$MPIFORT" -O1 -w "$here/$p" "${helper[@]}" -o "$exe") > "$exe.build" 2>&1; then
    fail "$MPIFORT could not build $p: $(tail -3 "$exe.build")"
    continue
  fi
  if ! readelf -d "$exe" | grep -q 'NEEDED.*libmpichfort\.so\.12'; then
    fail "$p does not need libmpichfort.so.12: $(readelf -d "$exe" | grep NEEDED | tr '\n' ' ')"
  fi
  built+=("$exe")
done

for side in ours mpich; do
  lib=$work/lib-$side
  mkdir -p "$lib"
  ln -sf "$(readlink -f "$ourlib")" "$lib/libmpich.so.12"
  if [ $side = ours ]; then fortlib=$ourfort; else fortlib=$mpichfort; fi
  [ -e "$fortlib" ] || continue
  ln -sf "$(readlink -f "$fortlib")" "$lib/libmpichfort.so.12"
  for exe in "${built[@]}"; do
    name=$(basename "$exe")
    resolved=$(LD_LIBRARY_PATH=$lib ldd "$exe" | awk '$1 == "libmpich.so.12" || $1 == "libmpichfort.so.12" { print $3 }' |
      xargs -r -n1 readlink -f | tr '\n' ' ')
    case "$resolved" in
      *"$(readlink -f "$ourlib")"*"$(readlink -f "$fortlib")"*|*"$(readlink -f "$fortlib")"*"$(readlink -f "$ourlib")"*) ;;
      *) fail "$name ($side libmpichfort): resolves to $resolved" ;;
    esac
    out=$work/$name.$side.out
    rc=0
    LD_LIBRARY_PATH=$lib timeout 60 "$STMPI_MPIEXEC" -n "$n" "$exe" < /dev/null > "$out" 2>&1 || rc=$?
    if [ $rc -eq 0 ] && grep -q "No Errors" "$out"; then
      echo "ok: $name with $side libmpichfort.so.12 on our libmpich.so.12"
    else
      fail "$name with $side libmpichfort.so.12 on our libmpich.so.12: exit $rc"
      tail -8 "$out" | sed 's/^/    /'
    fi
  done
done
if [ "$fails" -eq 0 ]; then
  echo "No Errors"
  exit 0
fi
echo "Found $fails errors"
exit 1
