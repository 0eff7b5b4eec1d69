#!/bin/bash
# Stream-triggered RMA on host streams against ordinary PSCW, same program,
# same run: ST/PSCW and persistent ST/PSCW for the user-written neighbour
# exchange (st_exchange.c: 2000 steps enqueued, one synchronize; persist: the
# step recorded once, one start per step) and for Faces (faces.c -v
# rma,st,pst: rma is PSCW, pst the persistent epoch) at 2, 4 and 8 ranks,
# quiet and with background load (busy processes), without and with overlap
# (a compute kernel on a second host stream, or computation on the CPU
# thread, per step). Where Debian's MPICH is installed (mpicc.mpich,
# mpiexec.mpich), st_exchange built with it runs its PSCW step right after
# STMPI's (no host streams there: not with kernel overlap).
#
# Each cell is a median: st_exchange alternates ST and PSCW every repeat
# and reports medians over its repeats; Faces is run --rounds times with the
# order of rma and st swapped every round, and a cell is the median over
# the rounds of each variant's median. The load average is printed with
# every configuration.
#
# Usage: test/bench/st_run.sh [options]
#   --quick             1 round, 3 repeats, 500 exchange steps, faces -q
#   --np LIST           ranks (default "2 4 8")
#   --load LIST         background busy processes (default "0 2"; 0 = quiet)
#   --overlap LIST      none, kernel, cpu (default "none kernel cpu")
#   --compute-us US     overlap work per step (default 20)
#   --sizes LIST        Faces bytes per face (default 8,512,4K,64K)
#   --steps N           exchange steps (default 2000)
#   --repeats N         exchange repeats (default 5)
#   --rounds N          Faces rounds (default 2)
#   --faces-args "A"    more arguments for faces (default "-r 3")
#   --skip-faces, --skip-exchange
#   --prefix DIR        installed STMPI (default <source>/_inst)
#   --workdir DIR       binaries and raw output (default a new /tmp dir)
# Environment: STMPI_BENCH_TIMEOUT (seconds per run, default 300), STMPI_*
# variables are passed on (e.g. STMPI_STREAM_CALLER_RUNS=no to compare).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix="$srcdir/_inst"
nps="2 4 8"
loads="0 2"
overlaps="none kernel cpu"
compute_us=20
sizes="8,512,4K,64K"
steps=2000
repeats=5
rounds=2
faces_q=""
faces_args="-r 3"
skip_faces=0
skip_exchange=0
workdir=""

usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "st_run.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) rounds=1; repeats=3; steps=500; faces_q="-q" ;;
    --np) nps=${2:?}; shift ;;
    --load) loads=${2:?}; shift ;;
    --overlap) overlaps=${2:?}; shift ;;
    --compute-us) compute_us=${2:?}; shift ;;
    --sizes) sizes=${2:?}; shift ;;
    --steps) steps=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --rounds) rounds=${2:?}; shift ;;
    --faces-args) faces_args=${2?}; shift ;;
    --skip-faces) skip_faces=1 ;;
    --skip-exchange) skip_exchange=1 ;;
    --prefix) prefix=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ -x "$prefix/bin/mpicc" && -x "$prefix/bin/mpiexec" ]] || die "no mpicc/mpiexec in $prefix/bin"
[[ -n "$workdir" ]] || workdir=$(mktemp -d "${TMPDIR:-/tmp}/st_run.XXXXXX")
mkdir -p "$workdir" || die "cannot create $workdir"
limit=${STMPI_BENCH_TIMEOUT:-300}

"$prefix/bin/mpicc" -O2 "$here/st_exchange.c" -o "$workdir/st_exchange" || die "build of st_exchange failed"
"$prefix/bin/mpicc" -O2 -I"$srcdir/test/mpi/util" "$here/faces.c" "$here/faces_gpu.c" -o "$workdir/faces" -lm -ldl ||
  die "build of faces failed"
mpich_exchange=""
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null &&
    mpicc.mpich -O2 "$here/st_exchange.c" -o "$workdir/st_exchange.mpich" 2>/dev/null; then
  mpich_exchange="$workdir/st_exchange.mpich"
fi

busy_pids=()
start_load() {
  local i
  for ((i = 0; i < $1; i++)); do
    (exec sh -c 'while :; do :; done') &
    busy_pids+=($!)
  done
}
stop_load() {
  local pid
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  busy_pids=()
}
trap 'stop_load' EXIT
trap 'stop_load; exit 130' INT TERM

load_avg() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

failed=0
overlap_flag() { # faces flags for an overlap mode
  case "$1" in kernel) echo "-K $compute_us" ;; cpu) echo "-C $compute_us" ;; *) echo "" ;; esac
}

exchange_rows=()
faces_rows=()
for load in $loads; do
  start_load "$load"
  for np in $nps; do
    for ov in $overlaps; do
      if [[ $skip_exchange == 0 ]]; then
        la=$(load_avg)
        out="$workdir/exchange.np$np.load$load.$ov.txt"
        if timeout "$limit" "$prefix/bin/mpiexec" -n "$np" "$workdir/st_exchange" -n "$steps" \
            -r "$repeats" -O "$ov" -c "$compute_us" >"$out" 2>&1; then
          read -r _ _ _ _ st pscw ratio mratio < <(grep '^exchange ' "$out")
          read -r _ _ _ _ pst _ pratio _ < <(grep '^persist ' "$out")
          read -r _ _ _ q th ca inl ho wk < <(grep '^ststream ' "$out")
          mpich="-"
          if [[ -n "$mpich_exchange" && "$ov" != kernel ]] &&
              timeout "$limit" mpiexec.mpich -n "$np" "$mpich_exchange" -n "$steps" -r "$repeats" \
                -O "$ov" -c "$compute_us" >"$out.mpich" 2>&1; then
            read -r _ _ _ _ mpich < <(grep '^pscwonly ' "$out.mpich")
          fi
          exchange_rows+=("$(printf '%3s %5s %7s %9s %9s %9s %7s %7s %7s | %9s | %5s %5s %5s %5s %6s %6s | %s' \
            "$np" "$load" "$ov" "$st" "${pst:--}" "$pscw" "$ratio" "$mratio" "${pratio:--}" "$mpich" \
            "$q" "$th" "$ca" "$inl" "$ho" "$wk" "$la")")
        else
          failed=1
          exchange_rows+=("$(printf '%3s %5s %7s FAILED (see %s)' "$np" "$load" "$ov" "$out")")
        fi
        printf '%s\n' "${exchange_rows[-1]}"
      fi
      if [[ $skip_faces == 0 ]]; then
        la=$(load_avg)
        for ((round = 0; round < rounds; round++)); do
          order="rma,st,pst"
          ((round % 2)) && order="pst,st,rma"
          out="$workdir/faces.np$np.load$load.$ov.r$round.txt"
          # shellcheck disable=SC2046
          timeout "$limit" "$prefix/bin/mpiexec" -n "$np" "$workdir/faces" -v "$order" -s "$sizes" \
            $faces_q $faces_args $(overlap_flag "$ov") >"$out" 2>&1 || { failed=1; echo "faces FAILED: $out"; }
        done
        IFS=, read -r -a size_list <<<"$sizes"
        for s in "${size_list[@]}"; do
          bytes=$(awk -v s="$s" 'BEGIN { n = s + 0; if (s ~ /[Kk]$/) n *= 1024; if (s ~ /[Mm]$/) n *= 1048576; print n }')
          rma=$(cat "$workdir"/faces.np$np.load$load.$ov.r*.txt 2>/dev/null |
                awk -v b="$bytes" '$1 == "faces" && $2 == "rma" && $3 == b { print $4 }' | median)
          st=$(cat "$workdir"/faces.np$np.load$load.$ov.r*.txt 2>/dev/null |
               awk -v b="$bytes" '$1 == "faces" && $2 == "st" && $3 == b { print $4 }' | median)
          ratio=$(awk -v a="$st" -v b="$rma" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }')
          pst=$(cat "$workdir"/faces.np$np.load$load.$ov.r*.txt 2>/dev/null |
                awk -v b="$bytes" '$1 == "faces" && $2 == "pst" && $3 == b { print $4 }' | median)
          pratio=$(awk -v a="$pst" -v b="$rma" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }')
          faces_rows+=("$(printf '%3s %5s %7s %7s %9s %9s %9s %7s %7s | %s' "$np" "$load" "$ov" "$bytes" "$st" "$pst" "$rma" "$ratio" "$pratio" "$la")")
          printf '%s\n' "${faces_rows[-1]}"
        done
      fi
    done
  done
  stop_load
done

echo
echo "== st_exchange: ring neighbour exchange, $steps steps, 8-byte puts; us per step (slowest rank, median of $repeats) =="
echo "   (load = busy processes added; overlap work $compute_us us per step; stream counts per step at rank 0:"
echo "    queued, run by the stream thread, by the synchronizing thread, inline at enqueue, hand-offs, wake-ups)"
echo "   (persist: the step as a persistent epoch; mpich: Debian's MPICH's PSCW step, same program, run next)"
printf '%3s %5s %7s %9s %9s %9s %7s %7s %7s | %9s | %5s %5s %5s %5s %6s %6s | %s\n' np load overlap st persist pscw \
  st/pscw med_r pst/pscw mpich queued thread caller inline handoff wakeup loadavg
for row in "${exchange_rows[@]+"${exchange_rows[@]}"}"; do echo "$row"; done
echo
echo "== Faces (faces.c -v rma,st,pst; rma = PSCW): us per step (slowest rank, median of $rounds rounds) =="
printf '%3s %5s %7s %7s %9s %9s %9s %7s %7s | %s\n' np load overlap face_B st pst pscw st/pscw pst/pscw loadavg
for row in "${faces_rows[@]+"${faces_rows[@]}"}"; do echo "$row"; done
echo
echo "raw output: $workdir"
exit $failed
