#!/bin/bash
# Small blocking operations under background CPU load, STMPI against MPICH in
# the same run: 8-byte ping-pong (pingpong.c, 2 ranks), small broadcasts
# (bcast.c) and, on request, 8-byte allreduce (allreduce.c) with 0, 2, 4 and 8
# busy background processes on the machine.
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
# said little; --trials brings that method back. Ratios are X / MPICH
# (lower is better; the goal is at most 1.5 at every load).
#
# Usage: test/bench/load_run.sh [--loads "0 2 4 8"] [--repeats N] [--ranks N]
#                               [--seconds S] [--trials] [--builddir DIR] [--workdir DIR]
#                               [--busy-session same|other] [--benches "pingpong bcast"]
#                               [--impls "stmpi stmpi_none stmpi_y1000 mpich"]
#                               [--baseline-mpiexec PATH]
#   --ranks N    ranks of the broadcast and the allreduce (default 2; ping-pong always uses 2)
#   --seconds S  wall time of each measurement (default 2)
#   --trials     median of 5 trials of ~10 ms instead of the mean over --seconds
#   --busy-session  where the busy loops run: "same" (default) starts them from this script
#                the way a shell's `cmd &` does, in the session (scheduler autogroup) of the
#                shell that runs the script, where mpiexec is started too; "other" starts
#                each with setsid(1), a session of its own, as load from other users' shells
#   --benches    any of pingpong, bcast (1 B and 4 KiB), allreduce (8 B)
#   --impls      which runs: stmpi (default launch), stmpi_nice0 (-session-nice 0: the job's
#                scheduling group weighs as one), stmpi_none (-bind-to none), stmpi_y1000
#                (the older wait policy), base (the STMPI programs under the mpiexec given by
#                --baseline-mpiexec, e.g. an older build's), mpich (Hydra)
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
busy_session=same
benches="pingpong bcast"
impls_list="stmpi stmpi_none stmpi_y1000 mpich"
baseline=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --loads) loads=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --seconds) seconds=${2:?}; shift ;;
    --trials) timing=(-t 5 -m 10) ;;
    --builddir) builddir=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --busy-session) busy_session=${2:?}; shift ;;
    --benches) benches=${2:?}; shift ;;
    --impls) impls_list=${2:?}; shift ;;
    --baseline-mpiexec) baseline=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "load_run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
case $busy_session in same|other) ;; *) echo "load_run.sh: --busy-session wants same or other" >&2; exit 2 ;; esac
for b in $benches; do
  case $b in pingpong|bcast|allreduce) ;; *) echo "load_run.sh: unknown benchmark '$b'" >&2; exit 2 ;; esac
done
read -r -a impls <<< "$impls_list"
for impl in "${impls[@]}"; do
  case $impl in
    stmpi|stmpi_nice0|stmpi_none|stmpi_y1000|mpich) ;;
    base) [[ -x $baseline ]] || { echo "load_run.sh: 'base' needs --baseline-mpiexec PATH" >&2; exit 2; } ;;
    *) echo "load_run.sh: unknown implementation '$impl'" >&2; exit 2 ;;
  esac
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
cp -L "$builddir/.libs/libmpi.so.12" "$workdir/lib/" && cp "$builddir/mpiexec" "$workdir/" &&
  { [[ -z $baseline ]] || cp "$baseline" "$workdir/mpiexec_base"; } ||
  { echo "load_run.sh: no STMPI build in $builddir" >&2; exit 2; }
# Programs linked against it carry NEEDED libmpich.so.12 (its soname): without
# this link the loader would find Debian's MPICH under that name instead.
ln -sf libmpi.so.12 "$workdir/lib/libmpich.so.12"
for b in $benches; do
  ${CC:-gcc} -O2 -I"$srcdir/include" "$here/$b.c" -o "$workdir/${b}_stmpi" \
    -L"$workdir/lib" -Wl,-rpath,"$workdir/lib" -Wl,--disable-new-dtags -l:libmpi.so.12 -lm || exit 2
  mpicc.mpich -O2 "$here/$b.c" -o "$workdir/${b}_mpich" -lm || exit 2
  # Never measure one library under two names: the STMPI binary must load the copy.
  resolved=$(ldd "$workdir/${b}_stmpi" | awk '$1 == "libmpich.so.12" {print $3}')
  if [[ $resolved != "$workdir/lib/libmpich.so.12" ]]; then
    echo "load_run.sh: ${b}_stmpi loads '$resolved', not the STMPI copy in $workdir/lib" >&2
    exit 2
  fi
done

# run IMPL BENCH: prints the benchmark's result lines (empty on failure).
run() {
  local impl=$1 bench=$2 n=2 args=("${timing[@]}" -s 8)
  [[ $bench == bcast ]] && { n=$ranks; args=("${timing[@]}" -s 1,4K); }
  [[ $bench == allreduce ]] && n=$ranks
  case $impl in
    stmpi) timeout -k 5 "$timeout_s" "$workdir/mpiexec" -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    stmpi_nice0) timeout -k 5 "$timeout_s" "$workdir/mpiexec" -session-nice 0 -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    stmpi_none) timeout -k 5 "$timeout_s" "$workdir/mpiexec" -bind-to none -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    stmpi_y1000) timeout -k 5 "$timeout_s" "$workdir/mpiexec" -env STMPI_PROGRESS_POLLS_BEFORE_YIELD 1000 -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    base) timeout -k 5 "$timeout_s" "$workdir/mpiexec_base" -n $n "$workdir/${bench}_stmpi" "${args[@]}" ;;
    mpich) timeout -k 5 "$timeout_s" mpiexec.hydra -n $n "$workdir/${bench}_mpich" "${args[@]}" ;;
  esac 2> /dev/null | grep -E '^(lat|bcast|allreduce) '
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

metrics=()
for b in $benches; do
  case $b in
    pingpong) metrics+=(pingpong_8B) ;;
    bcast) metrics+=(bcast_1B bcast_4096B) ;;
    allreduce) metrics+=(allreduce_8B) ;;
  esac
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b}'; }
echo "# load_run: $(nproc) CPUs; busy loops in the $busy_session session; ranks $ranks (ping-pong 2)"
echo "# uptime before: $(uptime)"
header=$(printf "%-5s %-13s" load metric)
for impl in "${impls[@]}"; do header+=$(printf " %11s" "${impl}_us"); done
for impl in "${impls[@]}"; do [[ $impl != mpich ]] && header+=$(printf " %11s" "${impl}/mp"); done
echo "$header"
for load in $loads; do
  # busy loops that end with this script, even when it is killed mid-run
  for ((i = 0; i < load; i++)); do
    if [[ $busy_session == other ]]; then
      setsid sh -c 'while kill -0 "$0" 2> /dev/null; do :; done' $$ & busy+=($!)
    else
      (while kill -0 $$ 2> /dev/null; do :; done) & busy+=($!)
    fi
  done
  raw="$workdir/load$load.txt"
  : > "$raw"
  for ((r = 0; r < repeats; r++)); do
    for ((k = 0; k < ${#impls[@]}; k++)); do
      impl=${impls[$(((k + r) % ${#impls[@]}))]}
      for b in $benches; do
        case $b in
          pingpong) run "$impl" pingpong | awk -v i="$impl" '{print i, "pingpong_8B", $3}' >> "$raw" ;;
          *) run "$impl" "$b" | awk -v i="$impl" '{print i, $1 "_" $2 "B", $3}' >> "$raw" ;;
        esac
      done
    done
  done
  echo "# load $load: uptime $(uptime | sed 's/.*load average/load average/')"
  stop_busy
  for metric in "${metrics[@]}"; do
    declare -A cell=()
    line=$(printf "%-5s %-13s" "$load" "$metric")
    for impl in "${impls[@]}"; do
      cell[$impl]=$(awk -v i="$impl" -v m="$metric" '$1 == i && $2 == m {print $3}' "$raw" | median)
      line+=$(printf " %11s" "${cell[$impl]}")
    done
    for impl in "${impls[@]}"; do
      [[ $impl != mpich ]] && line+=$(printf " %11s" "$(ratio "${cell[$impl]}" "${cell[mpich]:--}")")
    done
    echo "$line"
    unset cell
  done
done
echo "# raw results in $workdir"
