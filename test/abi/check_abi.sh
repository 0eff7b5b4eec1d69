#!/bin/sh
# check_abi.sh [INCLUDE_DIR] - compare the compile-time ABI of STMPI's mpi.h
# with MPICH's. Builds test/abi/abi_dump.c against both headers, runs both
# and diffs the outputs. Exit 0 when identical, 1 on any difference,
# 77 (skip) when MPICH's compiler wrapper is not installed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
incdir=${1:-$here/../../include}
CC=${CC:-cc}
MPICH_CC=${MPICH_CC:-mpicc.mpich}

if ! command -v "$MPICH_CC" >/dev/null 2>&1; then
    echo "abi: $MPICH_CC not found, skipping"
    exit 77
fi
if [ ! -f "$incdir/mpi.h" ]; then
    echo "abi: no mpi.h in $incdir"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-abi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# Ours: our include dir only; make sure no other mpi.h can be picked up.
if ! $CC -std=gnu11 -I "$incdir" "$here/abi_dump.c" -o "$tmp/ours"; then
    echo "abi: failed to compile abi_dump.c against $incdir/mpi.h"
    exit 1
fi
if ! "$MPICH_CC" -std=gnu11 "$here/abi_dump.c" -o "$tmp/ref"; then
    echo "abi: failed to compile abi_dump.c against MPICH's mpi.h"
    exit 1
fi

"$tmp/ours" > "$tmp/ours.txt" || { echo "abi: running ours failed"; exit 1; }
"$tmp/ref"  > "$tmp/ref.txt"  || { echo "abi: running reference failed"; exit 1; }

n=$(wc -l < "$tmp/ref.txt" | tr -d ' ')
# MPICH's own value for MPI_INTEGER16 depends on its build: 0x4c001032 where its configure
# finds integer*16 (gfortran has it), MPI_DATATYPE_NULL where not (Debian's build). Ours is the
# former; both are MPICH's ABI.
if grep -qx 'MPI_INTEGER16 201326592' "$tmp/ref.txt" && grep -qx 'MPI_INTEGER16 1275072562' "$tmp/ours.txt"; then
    sed -i 's/^MPI_INTEGER16 1275072562$/MPI_INTEGER16 201326592/' "$tmp/ours.txt"
fi
if diff -u "$tmp/ref.txt" "$tmp/ours.txt" > "$tmp/diff.txt"; then
    echo "abi: $n constants identical"
    exit 0
fi
echo "abi: differences (--- MPICH, +++ STMPI):"
cat "$tmp/diff.txt"
exit 1
