#!/bin/bash
# MPICH's enqueue API and persistent MPIS_ requests on host streams against
# MPI_Isend/MPI_Irecv/MPI_Waitall, same program, same run (test/bench/stream_p2p.c), at several
# rank counts on one node and, with --nodes, across 2 network namespaces; Debian's MPICH
# (mpicc.mpich, mpiexec.mpich), where installed, runs the MPI_Isend/Irecv exchange right after.
#
# Usage: test/bench/stream_p2p_run.sh [--prefix DIR] [--np "2 4 8"] [--bytes "8 4096"]
#                                      [--steps N] [--repeats N] [--nodes [--node-np "2 4"]]
#   --prefix DIR   installed STMPI (default <source>/_inst)
#   --nodes        also across 2 network namespaces (maint/netns.sh; root only), first half of
#                  the ranks on one; --node-np the rank counts there (default "2 4")
# Output: one stream_p2p line per run (see stream_p2p.c), prefixed with the MPI.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix="$here/../../_inst" nps="2 4 8" sizes="8 4096" steps=2000 repeats=5 nodes=0 node_nps="2 4"
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --bytes) sizes=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --nodes) nodes=1; shift ;;
    --node-np) node_nps=$2; shift 2 ;;
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
[ "$nodes" -eq 1 ] || exit 0
srcdir=$(cd "$here/../.." && pwd)
# shellcheck source=test/bench/bench_lib.sh
. "$here/bench_lib.sh"
export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-p$$}
if ! up=$("$srcdir/maint/netns.sh" up 2 2>&1); then
  echo "# 2 nodes not run: $up"
  exit 1
fi
trap '"$srcdir/maint/netns.sh" down >/dev/null 2>&1; rm -rf "$work"' EXIT
net_hosts=$("$srcdir/maint/netns.sh" hosts)
net_launcher=$srcdir/maint/netns-launch
net_subnet=$(cat "/run/stmpi-netns/$STMPI_NETNS_PREFIX/subnet").0/24
echo "# $up; network module: ${STMPI_NETMOD:-auto}"
for np in $node_nps; do
  for b in $sizes; do
    printf 'stmpi nodes '
    LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
      net_launch stmpi "$np" 300 "$work/stmpi" -n "$steps" -r "$repeats" -b "$b" 2>&1 | grep -v '^#'
    [ -n "$peer" ] && { printf 'mpich nodes '; net_launch mpich "$np" 300 "$work/mpich" -n "$steps" -r "$repeats" -b "$b" 2>&1 | grep -v '^#'; }
  done
done
