#!/bin/bash
# Exported symbols against MPICH's library and the MPI 4.1 function list.
# Every function and data object that libmpich.so.12 exports under an MPI_ or
# PMPI_ name must be exported by ours (an MPICH-built program, mpi4py among
# them, fails at load time on an undefined symbol), and every MPI 4.1 C
# function must be declared by our mpi.h and defined. What is still missing
# is listed in symbols_missing.txt; the list must stay exact: a symbol that
# is missing but not listed fails, and so does one that is listed but exists
# (STMPI_SYMBOLS_UPDATE=yes rewrites the list).
set -u
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}"
here="$STMPI_SRCDIR/test/mpi/abi"
mpich_lib=${STMPI_MPICH_LIB:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
ourlib="$STMPI_BUILDDIR/.libs/libmpi.so.12"
[ -e "$ourlib" ] || { echo "FAIL: $ourlib does not exist"; exit 1; }
[ -e "$mpich_lib" ] || { echo "FAIL: $mpich_lib does not exist (install libmpich-dev)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-sym.XXXXXX")
trap 'rm -rf "$work"' EXIT
exported() { nm -D --defined-only "$1" | awk '{print $3}' | grep -E '^P?MPI_' | sort -u; }
exported "$mpich_lib" > "$work/mpich"
exported "$ourlib" > "$work/ours"
# MPI 4.1's C functions, from the binding spec's source list when the API
# data is at hand, else from the checked-in list of the standard's names.
python3 - "$STMPI_SRCDIR/../shared/mpi-standard/apis.json" "$here/mpi41_functions.txt" > "$work/std" <<'PY'
import json, os, sys
api, fallback = sys.argv[1], sys.argv[2]
if os.path.exists(api):
    data = json.load(open(api))
    names = sorted(v['name'] for v in data.values()
                   if v['attributes'].get('c_expressible') and not v['attributes'].get('callback')
                   and not v['attributes'].get('predefined_function') and v['name'].startswith('MPI_'))
else:
    names = [l.strip() for l in open(fallback) if l.strip() and not l.startswith('#')]
print('\n'.join(names))
PY
declared=$(cat "$STMPI_SRCDIR/include/mpi_proto.h" "$STMPI_SRCDIR/include/mpi.h" |
  grep -oE '\bMPI_[A-Za-z0-9_]+\(' | tr -d '(' | sort -u)
{
  comm -23 "$work/mpich" "$work/ours"
  # A standard function must be declared and (as MPI_ and PMPI_) exported,
  # unless mpi.h defines it as a macro (the handle conversions, as MPICH does).
  while read -r f; do
    grep -qE "^#define $f\(" "$STMPI_SRCDIR/include/mpi.h" && continue
    grep -qx "$f" <<<"$declared" || echo "$f (not declared)"
    grep -qx "$f" "$work/ours" || echo "$f"
    grep -qx "P$f" "$work/ours" || echo "P$f"
  done < "$work/std"
} | sort -u > "$work/missing"
if [ "${STMPI_SYMBOLS_UPDATE:-no}" = yes ]; then
  { echo "# Symbols still missing (see symbols.sh); regenerate with"
    echo "# STMPI_SYMBOLS_UPDATE=yes STMPI_SRCDIR=... STMPI_BUILDDIR=... test/mpi/abi/symbols.sh"
    cat "$work/missing"; } > "$here/symbols_missing.txt"
fi
grep -vE '^(#|$)' "$here/symbols_missing.txt" | sort -u > "$work/listed"
fails=0
unlisted=$(comm -23 "$work/missing" "$work/listed")
stale=$(comm -13 "$work/missing" "$work/listed")
if [ -n "$unlisted" ]; then
  echo "FAIL: missing and not in symbols_missing.txt ($(wc -l <<<"$unlisted")):"
  sed 's/^/  /' <<<"$unlisted" | head -50
  fails=1
fi
if [ -n "$stale" ]; then
  echo "FAIL: listed in symbols_missing.txt but present now; remove them ($(wc -l <<<"$stale")):"
  sed 's/^/  /' <<<"$stale" | head -50
  fails=1
fi
echo "symbols: MPICH exports $(wc -l < "$work/mpich"), we export $(wc -l < "$work/ours"); \
MPI 4.1 functions $(wc -l < "$work/std"); still missing $(wc -l < "$work/missing")"
[ $fails -eq 0 ] && echo "No Errors"
exit $fails
