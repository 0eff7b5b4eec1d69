#!/bin/bash
# Data sieving against one call per piece (test/bench/io_sieve.c) on this machine's file
# system, STMPI and Debian's MPICH (ROMIO) in the same run, one binary built with mpicc.mpich
# for both (STMPI through LD_LIBRARY_PATH, as any MPICH-built program runs on it).
#
# usage: test/bench/io_sieve.sh [--builddir DIR] [--ranks N] [--dir DIR] [-- io_sieve args]
#   --builddir  STMPI build tree (default: build)   --ranks  processes (default 1)
#   --dir       where the files go (default $TMPDIR or /tmp)
# Prints io_sieve's lines prefixed by the library ("stmpi iosieve ...", "mpich iosieve ..."),
# the load average before and after, and the file system type.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
builddir="$here/../../build"
np=1
dir=${TMPDIR:-/tmp}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --builddir) builddir=${2:?}; shift ;;
    --ranks) np=${2:?}; shift ;;
    --dir) dir=${2:?}; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "io_sieve.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
builddir=$(cd "$builddir" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-io-sieve.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib"
cp -L "$builddir/.libs/libmpich.so.12" "$work/lib/" || exit 2
mpicc.mpich -O2 -o "$work/io_sieve" "$here/io_sieve.c" || exit 2
echo "# io_sieve: $(date -u '+%F %T') UTC, $(nproc) CPUs, files in $dir ($(df -T "$dir" | awk 'NR == 2 {print $2}')), $np rank(s)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# args: $*"
for impl in stmpi mpich; do
  case "$impl" in
    stmpi) LD_LIBRARY_PATH="$work/lib" timeout 900 "$builddir/mpiexec" -n "$np" \
             "$work/io_sieve" -f "$dir/stmpi-io-sieve.$$" "$@" ;;
    mpich) timeout 900 mpiexec.mpich -n "$np" "$work/io_sieve" -f "$dir/stmpi-io-sieve.$$" "$@" ;;
  esac | sed "s/^/$impl /"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
