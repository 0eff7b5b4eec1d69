#!/bin/bash
# Builds examples/multigrid with STMPI's mpicc and with Debian's MPICH (mpicc.mpich) and runs
# it at several rank counts and box sizes: STMPI with every variant its build has, interleaved
# inside one job (plain MPI with the kernels on a host stream and a synchronize around each, the
# same on the CPU thread, stream-enqueued point-to-point, persistent stream operations,
# stream-triggered RMA per call and as persistent epochs), MPICH with the plain MPI variant on
# the CPU thread (the only one it can build). Prints, per layout and box
# size, each variant's time per cycle (one F-cycle and the V-cycles), its communication phases
# (boundary exchanges and the gather/scatter to rank 0), the gain over STMPI's `mpi` variant,
# and the time per level. Every run verifies its solution
# against the serial solve; a failed or unverified run is listed at the end.
# A cell is the median over --repeats jobs (the implementations' order alternates) of the
# job's own median over --reps solves, each the slowest rank's.
#
# Usage: test/bench/multigrid_run.sh [options]
#   --inst DIR          STMPI installation with bin/mpicc and bin/mpiexec (default <source>/_inst)
#   --impls LIST        subset of stmpi,mpich (default: those installed)
#   --ranks LIST        rank counts on one node (default 2,4,8; none: only the --nodes runs)
#   --log2-box LIST     box edges 2^K on the finest level (default 4,5; the paper used 4 to 7)
#   --reps N            timed solves per variant and job (default 5)
#   --vcycles N         V-cycles after the F-cycle (default 1)
#   --repeats N         jobs per configuration (default 3)
#   --nodes             also across 2 network namespaces (maint/netns.sh; root only)
#   --node-ranks LIST   rank counts across the 2 namespaces, half on each (default 2,4,8)
#   --workdir DIR       binaries and raw outputs (default: new under ${TMPDIR:-/tmp})
# Environment: STMPI_BENCH_TIMEOUT (seconds per job, default 300).
# Exit status: 0 when every run succeeded and verified.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
inst=$srcdir/_inst
impls=""
ranks=2,4,8
sizes=4,5
reps=5
vcycles=1
repeats=3
nodes=0
node_ranks=2,4,8
workdir=""
orig_args="$*"
# shellcheck source=test/bench/bench_lib.sh disable=SC2034  # net_hosts, net_launcher, net_subnet are its inputs
source "$here/bench_lib.sh" # net_launch
while [[ $# -gt 0 ]]; do
  case "$1" in
    --inst) inst=$(cd "${2:?}" && pwd) || exit 2; shift ;;
    --impls) impls=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --log2-box) sizes=${2:?}; shift ;;
    --reps) reps=${2:?}; shift ;;
    --vcycles) vcycles=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --nodes) nodes=1 ;;
    --node-ranks) node_ranks=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "multigrid_run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
limit=${STMPI_BENCH_TIMEOUT:-300}
[[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-multigrid-bench.XXXXXX")
mkdir -p "$workdir/out" && workdir=$(cd "$workdir" && pwd)
if [[ -z "$impls" ]]; then
  impls=stmpi
  command -v mpicc.mpich >/dev/null && impls+=,mpich
fi
IFS=, read -r -a impl_list <<<"$impls"

# ---- builds -----------------------------------------------------------------------------
for impl in "${impl_list[@]}"; do
  case $impl in
    stmpi) cc=$inst/bin/mpicc ;;
    mpich) cc=mpicc.mpich ;;
    *) echo "multigrid_run.sh: unknown implementation $impl" >&2; exit 2 ;;
  esac
  mkdir -p "$workdir/$impl"
  cp "$srcdir"/examples/multigrid/*.[ch] "$srcdir"/examples/multigrid/Makefile "$workdir/$impl/"
  make -s -C "$workdir/$impl" MPICC="$cc" multigrid >"$workdir/$impl/build.log" 2>&1 ||
    { echo "multigrid_run.sh: $impl build failed: $(head -3 "$workdir/$impl/build.log")" >&2; exit 2; }
done
variants_of() {
  [[ $1 != stmpi ]] && echo cpu && return
  echo mpi,cpu,enqueue,persistent,strma,stepoch
}

# launch IMPL NPROCS LOG ARGS...: one node, or the 2 namespaces with $on_nodes set.
on_nodes=0
launch() {
  local impl=$1 n=$2 log=$3 exe=$workdir/$1/multigrid
  shift 3
  local LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
  [[ $impl == stmpi ]] && export LD_LIBRARY_PATH=$inst/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if [[ $on_nodes -eq 1 ]]; then
    net_launch "$impl" "$n" "$limit" "$exe" "$@" >"$log" 2>&1 </dev/null
    return
  fi
  case $impl in
    stmpi) timeout -k 5 "$limit" "$inst/bin/mpiexec" -n "$n" -timeout "$limit" "$exe" "$@" ;;
    mpich) timeout -k 5 "$limit" mpiexec.mpich -n "$n" "$exe" "$@" ;;
  esac >"$log" 2>&1 </dev/null
}

failures=()
# run_set LABEL RANKS: every configuration, --repeats times, implementations alternating.
run_set() {
  local label=$1 n r i k impl log
  for ((r = 0; r < repeats; r++)); do
    for k in ${sizes//,/ }; do
      for n in ${2//,/ }; do
        for ((i = 0; i < ${#impl_list[@]}; i++)); do
          impl=${impl_list[$(((i + r) % ${#impl_list[@]}))]}
          log=$workdir/out/$label.$impl.$n.$k.$r.log
          launch "$impl" "$n" "$log" --variant "$(variants_of "$impl")" --log2-box "$k" \
            --reps "$reps" --vcycles "$vcycles"
          local rc=$? lines verified
          lines=$(grep -c '^mg: ' "$log")
          verified=$(grep -c '^mg: .* verified$' "$log")
          if [[ $rc -ne 0 || $lines -eq 0 || $lines -ne $verified ]]; then
            failures+=("$label $impl n=$n log2-box=$k (exit $rc, $verified of $lines verified): $log")
          fi
        done
      done
    done
  done
}

# value LABEL IMPL N K VARIANT FIELD [LEVEL]: median over the repeats ("-" when none).
value() {
  local pattern="^mg: $5 .* $6=\([0-9.e+-]*\) .*verified$"
  [[ $# -gt 6 ]] && pattern="^mg-level: $5 $7 .*$6=\([0-9.e+-]*\)"
  cat "$workdir/out/$1.$2.$3.$4".*.log 2>/dev/null | sed -n "s/$pattern/\1/p" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else printf "%.3f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
gain() { awk -v b="$1" -v v="$2" 'BEGIN { if (b == "-" || v == "-" || b + 0 == 0) print "-"; else printf "%+.1f%%\n", 100 * (b - v) / b }'; }

report() { # LABEL TITLE RANKS
  local label=$1 title=$2 n k impl v levels l
  for k in ${sizes//,/ }; do
    for n in ${3//,/ }; do
      levels=$(cat "$workdir/out/$label".*."$n.$k".*.log 2>/dev/null | sed -n 's/^mg: .* levels=\([0-9]*\) .*/\1/p' | sort -n | tail -1)
      levels=${levels:-0}
      echo
      echo "### $title, $n ranks, boxes of $((1 << k))^3 (8 per rank, $levels levels): ms per cycle, per level; gain over stmpi mpi"
      local header="| impl | variant | cycle ms | comm ms | gain cycle | gain comm |" rule="| --- | --- | --- | --- | --- | --- |"
      for ((l = 0; l < levels; l++)); do header+=" L$l ms |"; rule+=" --- |"; done
      echo "$header"
      echo "$rule"
      local base_c base_m
      base_c=$(value "$label" stmpi "$n" "$k" mpi cycle_ms)
      base_m=$(value "$label" stmpi "$n" "$k" mpi comm_ms)
      for impl in "${impl_list[@]}"; do
        for v in mpi cpu enqueue persistent strma stepoch; do
          [[ ,$(variants_of "$impl"), == *,$v,* ]] || continue
          local c m line
          c=$(value "$label" "$impl" "$n" "$k" $v cycle_ms)
          m=$(value "$label" "$impl" "$n" "$k" $v comm_ms)
          [[ $c == - ]] && continue
          line="| $impl | $v | $c | $m | $(gain "$base_c" "$c") | $(gain "$base_m" "$m") |"
          for ((l = 0; l < levels; l++)); do line+=" $(value "$label" "$impl" "$n" "$k" $v total_ms $l) |"; done
          echo "$line"
        done
      done
    done
  done
}

echo "# multigrid: $(date -u '+%F %T UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: test/bench/multigrid_run.sh $orig_args" | sed 's/ *$//'
echo "# commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null); log2-box $sizes, reps $reps, vcycles $vcycles, repeats $repeats"
if [[ $ranks != none ]]; then
  run_set node "$ranks"
  grep -h 'not built' "$workdir"/out/node.stmpi.*.log 2>/dev/null | sort -u
  report node "one node" "$ranks"
fi
if [[ $nodes -eq 1 ]]; then
  export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-g$$}
  if up=$("$srcdir/maint/netns.sh" up 2 2>&1); then
    trap '"$srcdir/maint/netns.sh" down >/dev/null 2>&1' EXIT
    # shellcheck disable=SC2034  # net_hosts, net_launcher, net_subnet are bench_lib.sh's inputs
    net_hosts=$("$srcdir/maint/netns.sh" hosts)
    net_launcher=$srcdir/maint/netns-launch
    net_subnet=$(cat "/run/stmpi-netns/$STMPI_NETNS_PREFIX/subnet").0/24
    on_nodes=1
    echo "# $up"
    run_set nodes "$node_ranks"
    report nodes "2 namespaces" "$node_ranks"
  else
    echo "# 2 nodes not run: $up"
    failures+=("2 nodes: $up")
  fi
fi
echo
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg); raw outputs in $workdir/out"
if [[ ${#failures[@]} -gt 0 ]]; then
  echo "# failed or unverified runs:"
  printf '#   %s\n' "${failures[@]}"
  exit 1
fi
