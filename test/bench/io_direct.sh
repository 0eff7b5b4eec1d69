#!/bin/bash
# Where STMPI_IO_DIRECT_MIN_BYTES should sit: interleaved collective writes (io_collwrite -c
# automatic: every rank owns every size-th block of B bytes, T/B blocks per rank, written by
# one MPI_File_write_all, then MPI_File_sync) on STMPI forced through the aggregators
# (STMPI_IO_DIRECT_MIN_BYTES=1024G), forced direct (=0: every rank writes its own blocks) and at
# the default, against Debian's MPICH (ROMIO's automatic choice), for a range of block sizes.
# One io_collwrite binary built with mpicc.mpich runs on both libraries (STMPI through
# LD_LIBRARY_PATH on a copy of the build tree's library); the four runs of a size are
# interleaved with the order rotating every repeat. A cell is the median over the repeats of
# the program's median over its iterations (microseconds, slowest rank).
#
# Usage: test/bench/io_direct.sh [options]
#   --builddir DIR   STMPI build tree (default <source>/build)
#   --ranks N        ranks (default 4)
#   --sizes LIST     block sizes in bytes (default 1024,4096,16384,65536,262144,1048576)
#   --total BYTES    bytes per rank per write, T (default 4194304; -k = T / B)
#   --repeats N      interleaved repeats (default 3)
#   --iters N        iterations per run (default 9)
#   --nodes          across 2 network namespaces (maint/netns.sh; root only), under
#                    mpiexec.hydra, half the ranks on each
#   --workdir DIR    binary and raw outputs (default: a new directory)
# Environment: STMPI_BENCH_TIMEOUT (seconds per run, default 120).
# Exit status: 0 when every run succeeded, 1 when one failed, 2 for usage or build errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir="$srcdir/build" np=4 sizes=1024,4096,16384,65536,262144,1048576 repeats=3 iters=9
nodes=0 workdir="" total=4194304
die() { echo "io_direct.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --builddir) builddir=${2:?}; shift ;;
    --ranks) np=${2:?}; shift ;;
    --sizes) sizes=${2:?}; shift ;;
    --total) total=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --iters) iters=${2:?}; shift ;;
    --nodes) nodes=1 ;;
    --workdir) workdir=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'" ;;
  esac
  shift
done
limit=${STMPI_BENCH_TIMEOUT:-120}
command -v mpicc.mpich >/dev/null || die "Debian's MPICH (mpicc.mpich) is not installed"
builddir=$(cd "$builddir" 2>/dev/null && pwd) || die "no build directory $builddir"
[[ -e "$builddir/.libs/libmpich.so.12" && -x "$builddir/mpiexec" ]] || die "build STMPI in $builddir first"
[[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-io-direct.XXXXXX")
mkdir -p "$workdir/lib" "$workdir/out" && workdir=$(cd "$workdir" && pwd)
cp -L "$builddir/.libs/libmpich.so.12" "$builddir/mpiexec" "$workdir/lib/" || die "cannot copy STMPI"
mpicc.mpich -O2 -o "$workdir/io_collwrite" "$here/io_collwrite.c" || die "building io_collwrite failed"

if [[ $nodes -eq 1 ]]; then
  # shellcheck source=test/bench/bench_lib.sh disable=SC2034  # net_done_re is bench_lib.sh's
  source "$here/bench_lib.sh"  # net_up, net_launch
  net_up d$$ || die "2 network namespaces: $net_up_text"
  net_done_re='^# io_collwrite: done'
fi
# run VARIANT SIZE: one io_collwrite run; prints its microseconds.
run() {
  local variant=$1 size=$2 impl=stmpi env=()
  case "$variant" in
    aggregate) env=(STMPI_IO_DIRECT_MIN_BYTES=1024G) ;;
    direct) env=(STMPI_IO_DIRECT_MIN_BYTES=0) ;;
    default) ;;
    mpich) impl=mpich ;;
  esac
  local args=("$workdir/io_collwrite" -b "$size" -k $((total / size)) -c automatic -i "$iters"
              -f "${TMPDIR:-/tmp}/stmpi-io-direct.$$")
  local out=$workdir/out/$variant.$size.$rep
  if [[ $nodes -eq 1 ]]; then
    (
      [[ ${#env[@]} -gt 0 ]] && export "${env[@]}"
      [[ $impl == stmpi ]] && export LD_LIBRARY_PATH=$workdir/lib
      net_launch "$impl" "$np" "$limit" "${args[@]}"
    ) >"$out" 2>&1 </dev/null
  elif [[ $impl == stmpi ]]; then
    env "${env[@]}" LD_LIBRARY_PATH="$workdir/lib" timeout -k 5 "$limit" "$workdir/lib/mpiexec" \
      -n "$np" "${args[@]}" >"$out" 2>&1 </dev/null
  else
    timeout -k 5 "$limit" mpiexec.mpich -n "$np" "${args[@]}" >"$out" 2>&1 </dev/null
  fi
  awk '$1 == "iocoll" { print $10 }' "$out"
}

where="one node"
[[ $nodes -eq 1 ]] && where="2 network namespaces ($net_up_text; network module ${STMPI_NETMOD:-auto})"
echo "# io_direct: $(date '+%F %T'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $np ranks on $where; $total bytes per rank per write; STMPI $(sha1sum "$workdir/lib/libmpich.so.12" | cut -c1-12); files in ${TMPDIR:-/tmp} ($(df -T "${TMPDIR:-/tmp}" | awk 'NR == 2 {print $2}')); $repeats repeats x $iters iterations"
variants=(aggregate direct default mpich)
failed=0
declare -A values
IFS=, read -r -a size_list <<<"$sizes"
for ((rep = 1; rep <= repeats; rep++)); do
  for size in "${size_list[@]}"; do
    for ((k = 0; k < ${#variants[@]}; k++)); do
      v=${variants[$(((k + rep - 1) % ${#variants[@]}))]}
      us=$(run "$v" "$size")
      if [[ -z "$us" ]]; then
        failed=$((failed + 1))
        echo "FAIL: $v $size repeat $rep (see $workdir/out/$v.$size.$rep)" >&2
      else
        values[$v,$size]+=" $us"
      fi
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
printf '%-10s %12s %12s %12s %12s %16s %14s\n' "block B" "aggregate us" "direct us" "default us" "MPICH us" "aggregate/direct" "MPICH/default"
for size in "${size_list[@]}"; do
  a=$(median "${values[aggregate,$size]:-}") d=$(median "${values[direct,$size]:-}")
  f=$(median "${values[default,$size]:-}") m=$(median "${values[mpich,$size]:-}")
  ratio() { [[ -n "$1" && -n "$2" ]] && awk -v x="$1" -v y="$2" 'BEGIN { printf "%.2f", x / y }' || echo -; }
  printf '%-10s %12s %12s %12s %12s %16s %14s\n' "$size" "${a:--}" "${d:--}" "${f:--}" "${m:--}" \
    "$(ratio "$a" "$d")" "$(ratio "$m" "$f")"
done
[[ $failed -eq 0 ]]
