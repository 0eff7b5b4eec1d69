#!/bin/bash
# MPICH's enqueue API on host streams against MPI_Isend/MPI_Irecv/MPI_Waitall, same program,
# same run (test/bench/stream_p2p.c), at several rank counts on one node; Debian's MPICH
# (mpicc.mpich, mpiexec.mpich), where installed, runs the MPI_Isend/Irecv exchange right after.
#
# Usage: test/bench/stream_p2p_run.sh [--prefix DIR] [--np "2 4 8"] [--bytes "8 4096"]
#                                      [--steps N] [--repeats N]
#   --prefix DIR   installed STMPI (default <source>/_inst)
# Output: one stream_p2p line per run (see stream_p2p.c), prefixed with the MPI.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix="$here/../../_inst" nps="2 4 8" sizes="8 4096" steps=2000 repeats=5
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --bytes) sizes=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    *) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$prefix/bin/mpicc" -O2 "$here/stream_p2p.c" -o "$work/stmpi" || exit 2
peer=""
if command -v mpicc.mpich > /dev/null && command -v mpiexec.mpich > /dev/null; then
  mpicc.mpich -O2 "$here/stream_p2p.c" -o "$work/mpich" && peer=1
fi
echo "# $(date -u '+%F %T') UTC, load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
for np in $nps; do
  for b in $sizes; do
    printf 'stmpi '; timeout 300 "$prefix/bin/mpiexec" -n "$np" "$work/stmpi" -n "$steps" -r "$repeats" -b "$b"
    [ -n "$peer" ] && { printf 'mpich '; timeout 300 mpiexec.mpich -n "$np" "$work/mpich" -n "$steps" -r "$repeats" -b "$b"; }
  done
done
