#!/bin/bash
# Small blocking operations under background CPU load, STMPI against MPICH in
# the same run: 8-byte ping-pong (pingpong.c, 2 ranks) and small broadcasts
# (bcast.c) with 0, 2, 4 and 8 busy background processes on the machine.
# Both implementations run as users run them: no binding options, each with
# its own launcher's defaults; STMPI also with -bind-to none, and with the
# wait policy it had before (STMPI_PROGRESS_POLLS_BEFORE_YIELD=1000: yield
# every 1000 polls) for comparison.
#
# For each load the busy processes are started, then the runs are
# interleaved (the order rotates every repeat) and repeated; a cell is the
# median over the repeats of each run's mean time per operation over
# --seconds of wall time (the benchmarks' -T mode): what a program's loop
# sees. Under CPU contention the older per-trial medians are bimodal for
# every implementation (a short trial either fits into a stretch where both
# ranks hold a CPU or it does not), so a median of 5 trials of 5 iterations
# said little; --trials brings that method back. Ratios are STMPI / MPICH
# (lower is better; the goal is at most 1.5 at every load).
#
# Usage: test/bench/load_run.sh [--loads "0 2 4 8"] [--repeats N] [--ranks N]
#                               [--seconds S] [--trials] [--builddir DIR] [--workdir DIR]
#   --ranks N    ranks of the broadcast (default 2; ping-pong always uses 2)
#   --seconds S  wall time of each measurement (default 2)
#   --trials     median of 5 trials of ~10 ms instead of the mean over --seconds
# Environment: CC (default gcc), STMPI_BENCH_TIMEOUT (seconds per run, 120).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir="$srcdir/build"
loads="0 2 4 8"
repeats=3
ranks=2
seconds=2
timing=()
workdir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --loads) loads=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --seconds) seconds=${2:?}; shift ;;
    --trials) timing=(-t 5 -m 10) ;;
    --builddir) builddir=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "load_run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
command -v mpicc.mpich > /dev/null && command -v mpiexec.hydra > /dev/null ||
  { echo "load_run.sh: needs MPICH (mpicc.mpich, mpiexec.hydra)" >&2; exit 2; }
builddir=$(cd "$builddir" && pwd)
workdir=${workdir:-$(mktemp -d "${TMPDIR:-/tmp}/stmpi-load.XXXXXX")}
mkdir -p "$workdir"
timeout_s=${STMPI_BENCH_TIMEOUT:-120}
[[ ${#timing[@]} -eq 0 ]] && timing=(-T "$seconds")
busy=()
stop_busy() {
  local pid
  for pid in "${busy[@]}"; do kill "$pid" 2> /dev/null; done
  for pid in "${busy[@]}"; do wait "$pid" 2> /dev/null; done
  busy=()
}
trap stop_busy EXIT
trap 'exit 130' INT TERM

# A private copy of the library, so that a rebuild during the run cannot mix two.
mkdir -p "$workdir/lib"
cp -L "$builddir/.libs/libmpi.so.12" "$workdir/lib/" && cp "$builddir/mpiexec" "$workdir/" ||
  { echo "load_run.sh: no STMPI build in $builddir" >&2; exit 2; }
for b in pingpong bcast; do
  ${CC:-gcc} -O2 -I"$srcdir/include" "$here/$b.c" -o "$workdir/${b}_stmpi" \
    -L"$workdir/lib" -Wl,-rpath,"$workdir/lib" -l:libmpi.so.12 -lm || exit 2
  mpicc.mpich -O2 "$here/$b.c" -o "$workdir/${b}_mpich" -lm || exit 2
done

# run IMPL BENCH: prints the benchmark's result lines (empty on failure).
run() {
  local impl=$1 bench=$2 n=2 args=("${timing[@]}" -s 8)
  [[ $bench == bcast ]] && { n=$ranks; args=("${timing[@]}" -s 1,4K); }
  case $impl in
    stmpi) timeout -k 5 "$timeout_s" "$workdir/mpiexec" -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    stmpi_none) timeout -k 5 "$timeout_s" "$workdir/mpiexec" -bind-to none -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    stmpi_y1000) timeout -k 5 "$timeout_s" "$workdir/mpiexec" -env STMPI_PROGRESS_POLLS_BEFORE_YIELD 1000 -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    mpich) timeout -k 5 "$timeout_s" mpiexec.hydra -n $n "$workdir/${bench}_mpich" "${args[@]}" ;;
  esac 2> /dev/null | grep -E '^(lat|bcast) '
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

impls=(stmpi stmpi_none stmpi_y1000 mpich)
echo "# load_run: $(nproc) CPUs; uptime before: $(uptime)"
printf "%-5s %-12s %9s %9s %9s %9s %8s %8s %8s\n" load metric stmpi_us none_us y1000_us mpich_us st/mpich none/mp y1000/mp
for load in $loads; do
  # busy loops that end with this script, even when it is killed mid-run
  for ((i = 0; i < load; i++)); do (while kill -0 $$ 2> /dev/null; do :; done) & busy+=($!); done
  raw="$workdir/load$load.txt"
  : > "$raw"
  for ((r = 0; r < repeats; r++)); do
    for ((k = 0; k < ${#impls[@]}; k++)); do
      impl=${impls[$(((k + r) % ${#impls[@]}))]}
      run "$impl" pingpong | awk -v i="$impl" '{print i, "pingpong_8B", $3}' >> "$raw"
      run "$impl" bcast | awk -v i="$impl" '{print i, "bcast_" $2 "B", $3}' >> "$raw"
    done
  done
  echo "# load $load: uptime $(uptime | sed 's/.*load average/load average/')"
  stop_busy
  for metric in pingpong_8B bcast_1B bcast_4096B; do
    s=$(awk -v m=$metric '$1 == "stmpi" && $2 == m {print $3}' "$raw" | median)
    sn=$(awk -v m=$metric '$1 == "stmpi_none" && $2 == m {print $3}' "$raw" | median)
    sy=$(awk -v m=$metric '$1 == "stmpi_y1000" && $2 == m {print $3}' "$raw" | median)
    m=$(awk -v m=$metric '$1 == "mpich" && $2 == m {print $3}' "$raw" | median)
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b}'; }
    printf "%-5s %-12s %9s %9s %9s %9s %8s %8s %8s\n" "$load" "$metric" "$s" "$sn" "$sy" "$m" \
      "$(ratio "$s" "$m")" "$(ratio "$sn" "$m")" "$(ratio "$sy" "$m")"
  done
done
echo "# raw results in $workdir"
