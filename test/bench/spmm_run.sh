#!/bin/bash
# Builds examples/spmm with STMPI's mpicc, Debian's MPICH (mpicc.mpich) and Open MPI
# (mpicc.openmpi), runs every variant (summa, async, steal, accum) with each
# implementation's own launcher and prints, per rank count, matrix and width of B:
#   - each variant's time per multiply and its ratio to SUMMA (SUMMA / variant: above 1 the
#     variant is faster), and steal against async (async / steal);
#   - per variant, each implementation's time against STMPI's (peer / STMPI: above 1 STMPI
#     is faster).
# A cell is the median over --repeats interleaved runs (the implementations' order rotates
# every repeat) of the program's best-of---reps time. Every run has a time limit; a failed
# or unverified run is listed at the end.
#
# Usage: test/bench/spmm_run.sh [options]
#   --inst DIR          STMPI installation with bin/mpicc and bin/mpiexec (default <source>/_inst)
#   --impls LIST        subset of stmpi,mpich,openmpi (default: those installed)
#   --ranks LIST        rank counts on one node (default 4,8; none: only the --nodes runs)
#   --matrices LIST     of rmat, rmat-imb (R-MAT with --imbalance 4), uniform, banded
#                       (default all four)
#   --widths LIST       columns of B (default 8,64)
#   --scale S           2^S rows (default 12)
#   --reps N            multiplies per run, the best counts (default 5)
#   --repeats N         interleaved repeats of the whole set (default 3)
#   --window KIND       allocate or create (default create: Debian's MPICH 4.0.2 returns data
#                       from the wrong place for MPI_Rget on MPI_Win_allocate windows)
#   --nodes             also 2 network namespaces x 2 ranks (maint/netns.sh; root only),
#                       launched by mpiexec.hydra (STMPI, MPICH) or mpirun (Open MPI)
#   --workdir DIR       binaries and raw outputs (default: new under ${TMPDIR:-/tmp})
# Environment: STMPI_BENCH_TIMEOUT (seconds per run, default 120).
# Exit status: 0 when every run succeeded and verified.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
inst=$srcdir/_inst
impls=""
ranks=4,8
matrices=rmat,rmat-imb,uniform,banded
widths=8,64
scale=12
reps=5
repeats=3
window=create
nodes=0
workdir=""
orig_args="$*"
# shellcheck source=test/bench/bench_lib.sh disable=SC2034  # net_hosts, net_launcher, net_subnet are its inputs
source "$here/bench_lib.sh" # net_launch
while [[ $# -gt 0 ]]; do
  case "$1" in
    --inst) inst=${2:?}; shift ;;
    --impls) impls=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --matrices) matrices=${2:?}; shift ;;
    --widths) widths=${2:?}; shift ;;
    --scale) scale=${2:?}; shift ;;
    --reps) reps=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --window) window=${2:?}; shift ;;
    --nodes) nodes=1 ;;
    --workdir) workdir=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "spmm_run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
limit=${STMPI_BENCH_TIMEOUT:-120}
[[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-spmm-bench.XXXXXX")
mkdir -p "$workdir/out" && workdir=$(cd "$workdir" && pwd)
if [[ -z "$impls" ]]; then
  impls=stmpi
  command -v mpicc.mpich >/dev/null && impls+=,mpich
  command -v mpicc.openmpi >/dev/null && impls+=,openmpi
fi
IFS=, read -r -a impl_list <<<"$impls"

# ---- builds -----------------------------------------------------------------------------
for impl in "${impl_list[@]}"; do
  case $impl in
    stmpi) cc=$inst/bin/mpicc ;;
    mpich) cc=mpicc.mpich ;;
    openmpi) cc=mpicc.openmpi ;;
    *) echo "spmm_run.sh: unknown implementation $impl" >&2; exit 2 ;;
  esac
  mkdir -p "$workdir/$impl"
  cp "$srcdir"/examples/spmm/*.[ch] "$srcdir"/examples/spmm/Makefile "$workdir/$impl/"
  make -s -C "$workdir/$impl" MPICC="$cc" spmm >"$workdir/$impl/build.log" 2>&1 ||
    { echo "spmm_run.sh: $impl build failed: $(head -3 "$workdir/$impl/build.log")" >&2; exit 2; }
done

# launch IMPL NPROCS LOG ARGS...: one node, or the 2 namespaces with $on_nodes set. STMPI's
# runs load $inst/lib first (mpicc's run path may name where the copy came from).
on_nodes=0
launch() {
  local impl=$1 n=$2 log=$3 exe=$workdir/$1/spmm
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
    openmpi) timeout -k 5 "$limit" mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$n" "$exe" "$@" ;;
  esac >"$log" 2>&1 </dev/null
}

failures=()
# run_set LABEL RANKS: every configuration, --repeats times, implementations interleaved.
run_set() {
  local label=$1 n r i m w impl log args
  for ((r = 0; r < repeats; r++)); do
    for m in ${matrices//,/ }; do
      for w in ${widths//,/ }; do
        args=(--variant all --scale "$scale" --width "$w" --reps "$reps" --window "$window")
        case $m in
          rmat-imb) args+=(--matrix rmat --imbalance 4) ;;
          *) args+=(--matrix "$m") ;;
        esac
        for ((i = 0; i < ${#impl_list[@]}; i++)); do
          impl=${impl_list[$(((i + r) % ${#impl_list[@]}))]}
          for n in ${2//,/ }; do
            log=$workdir/out/$label.$impl.$n.$m.$w.$r.log
            launch "$impl" "$n" "$log" "${args[@]}"
            local rc=$?
            if [[ $rc -ne 0 || $(grep -c '^spmm: .* verified$' "$log") -ne 4 ]]; then
              failures+=("$label $impl n=$n $m w=$w (exit $rc): $log")
            fi
          done
        done
      done
    done
  done
}

# time_of LABEL IMPL N M W VARIANT: median over the repeats, in ms ("-" when none).
time_of() {
  cat "$workdir/out/$1.$2.$3.$4.$5".*.log 2>/dev/null |
    sed -n "s/^spmm: $6 .* time=\([0-9.e+-]*\) s .* verified$/\1/p" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else printf "%.3f\n", 1000 * (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f\n", a / b }'; }

report() { # KEY TITLE RANKS
  local label=$1 title=$2 n m w impl v t base
  for n in ${3//,/ }; do
    echo
    echo "### $title, $n ranks: time per multiply (ms) and SUMMA / variant; steal vs async = async / steal"
    echo "| impl | matrix | width | summa ms | async ms | steal ms | accum ms | async x | steal x | accum x | steal vs async |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for impl in "${impl_list[@]}"; do
      for m in ${matrices//,/ }; do
        for w in ${widths//,/ }; do
          local ts=() line="| $impl | $m | $w |"
          for v in summa async steal accum; do
            t=$(time_of "$label" "$impl" "$n" "$m" "$w" $v)
            ts+=("$t")
            line+=" $t |"
          done
          line+=" $(ratio "${ts[0]}" "${ts[1]}") | $(ratio "${ts[0]}" "${ts[2]}") | $(ratio "${ts[0]}" "${ts[3]}") |"
          line+=" $(ratio "${ts[1]}" "${ts[2]}") |"
          echo "$line"
        done
      done
    done
    [[ ${#impl_list[@]} -gt 1 ]] || continue
    echo
    echo "### $title, $n ranks: peer time / STMPI time per variant (above 1: STMPI faster)"
    local header="| matrix | width | variant |" rule="| --- | --- | --- |"
    for impl in "${impl_list[@]:1}"; do header+=" $impl / stmpi |"; rule+=" --- |"; done
    echo "$header"
    echo "$rule"
    for m in ${matrices//,/ }; do
      for w in ${widths//,/ }; do
        for v in summa async steal accum; do
          base=$(time_of "$label" stmpi "$n" "$m" "$w" $v)
          local line="| $m | $w | $v |"
          for impl in "${impl_list[@]:1}"; do
            line+=" $(ratio "$(time_of "$label" "$impl" "$n" "$m" "$w" $v)" "$base") |"
          done
          echo "$line"
        done
      done
    done
  done
}

echo "# spmm: $(date -u '+%F %T UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: test/bench/spmm_run.sh $orig_args" | sed 's/ *$//'
echo "# commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null); scale $scale, reps $reps, repeats $repeats, window $window"
if [[ $ranks != none ]]; then
  run_set node "$ranks"
  report node "one node" "$ranks"
fi
if [[ $nodes -eq 1 ]]; then
  export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-s$$}
  if up=$("$srcdir/maint/netns.sh" up 2 2>&1); then
    trap '"$srcdir/maint/netns.sh" down >/dev/null 2>&1' EXIT
    net_hosts=$("$srcdir/maint/netns.sh" hosts)
    net_launcher=$srcdir/maint/netns-launch
    net_subnet=$(cat "/run/stmpi-netns/$STMPI_NETNS_PREFIX/subnet").0/24
    on_nodes=1
    echo "# $up"
    run_set nodes 4
    report nodes "2 nodes x 2 ranks" 4
  else
    echo "# 2 nodes not run: $up"
    failures+=("2 nodes: $up")
  fi
fi
stopped=$(grep -l 'did not exit within' "$workdir"/out/*.log 2>/dev/null | xargs -r -n1 basename | paste -sd' ')
echo
[[ -n "$stopped" ]] && echo "# stopped after printing their results (hung in MPI_Finalize; the results count): $stopped"
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ ${#failures[@]} -gt 0 ]]; then
  echo "# failed or unverified runs:"
  printf '#   %s\n' "${failures[@]}"
  exit 1
fi
