#!/bin/bash
# Builds the benchmarks of test/bench against STMPI and, when installed,
# Debian's MPICH (mpicc.mpich / mpiexec.hydra) and Open MPI (mpicc.openmpi /
# mpiexec.openmpi), runs them on 2 ranks with each implementation's own
# launcher, and prints one table per metric with the ratios.
#
# Every run has a time limit. The runs of the implementations are interleaved
# (the order rotates every repeat) and the whole set is repeated, so that
# machine noise hits all of them alike; a table cell is the median over the
# repeats of the value a run reports (itself a median over trials).
#
# Usage: test/bench/run.sh [options]
#   --quick               fewer and shorter trials (passes -q), 3 repeats
#   --repeats N           repeats of the whole set (default 5, --quick 3)
#   --builddir DIR        STMPI build tree (default: <source>/build); uses
#                         DIR/.libs/libmpi.so and DIR/mpiexec, copied to the
#                         work directory first so that a rebuild during the run
#                         cannot mix two libraries
#   --stmpi-prefix DIR    use an installed STMPI: DIR/bin/mpicc, DIR/bin/mpiexec
#   --impls LIST          subset of stmpi,mpich,openmpi (default: all found)
#   --bench LIST          subset of pingpong,match_depth (default: both)
#   --bind core|none      process binding, the same for all (default core)
#   --pingpong-args "A"   extra arguments for pingpong (see pingpong.c)
#   --match-args "A"      extra arguments for match_depth (see match_depth.c)
#   --wait-idle PCT[,S]   before each run, wait (at most S seconds, default 300)
#                         until the CPUs were at least PCT % idle over 2 s
#                         (for shared machines)
#   --hosts H1,H2         run across 2 nodes (see test/bench/net_run.sh, which sets
#   --launcher-exec PATH  these): ranks split over H1 and H2 (first half on H1),
#   --subnet CIDR         started by mpiexec.hydra (STMPI, MPICH) or mpirun (Open
#                         MPI, TCP on CIDR) through the ssh stand-in PATH, unbound
#   --workdir DIR         where binaries and raw outputs go (default: a new
#                         directory under ${TMPDIR:-/tmp}); it is kept
#   -h, --help
# Environment: CC (compiler for STMPI with --builddir, default gcc),
#   STMPI_BENCH_TIMEOUT (seconds per run, default 600; 300 with --quick).
# Exit status: 0 when every run succeeded, 1 when some run failed (the
# failures are listed at the end), 2 for usage or build errors.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir="$srcdir/build"
prefix=""
quick=0
repeats=""
impls_wanted="stmpi,mpich,openmpi"
benches="pingpong,match_depth"
bind=core
pp_args=""
md_args=""
workdir=""
wait_idle=""
orig_args="$*"

source "$here/bench_lib.sh"  # idle_percent, wait_for_idle, net_launch, copy_stmpi_build

usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "run.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --repeats) repeats=${2:?}; shift ;;
    --builddir) builddir=${2:?}; shift ;;
    --stmpi-prefix) prefix=${2:?}; shift ;;
    --impls) impls_wanted=${2:?}; shift ;;
    --bench) benches=${2:?}; shift ;;
    --bind) bind=${2:?}; shift ;;
    --pingpong-args) pp_args=${2?}; shift ;;
    --match-args) md_args=${2?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --wait-idle) wait_idle=${2:?}; shift ;;
    --hosts|--launcher-exec|--subnet) net_option "$1" "${2:?}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ "$bind" == core || "$bind" == none ]] || die "--bind wants core or none"
[[ -n "$net_hosts" ]] && bind=none  # the nodes share the CPUs: bound ranks would share a core
wait_max=300
if [[ "$wait_idle" == *,* ]]; then wait_max=${wait_idle#*,}; wait_idle=${wait_idle%%,*}; fi
[[ -z "$wait_idle" || ( "$wait_idle" =~ ^[0-9]+$ && "$wait_max" =~ ^[0-9]+$ ) ]] ||
  die "--wait-idle wants a percentage and optionally ,seconds"
[[ -z "$repeats" ]] && repeats=$((quick ? 3 : 5))
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
run_timeout=${STMPI_BENCH_TIMEOUT:-$((quick ? 300 : 600))}
qflag=""
[[ $quick -eq 1 ]] && qflag="-q"

if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-bench.XXXXXX") || die "cannot create a work directory"
fi
mkdir -p "$workdir/bin" "$workdir/out" || die "cannot use $workdir"
workdir=$(cd "$workdir" && pwd)
rm -f "$workdir"/out/*

# ---- implementations --------------------------------------------------------
impls=()
declare -A label
label[stmpi]="STMPI"
label[mpich]="MPICH"
label[openmpi]="OpenMPI"

wanted() { [[ ",$impls_wanted," == *",$1,"* ]]; }

if wanted stmpi; then
  if [[ -n "$prefix" ]]; then
    [[ -x "$prefix/bin/mpicc" && -x "$prefix/bin/mpiexec" ]] ||
      die "--stmpi-prefix $prefix: no bin/mpicc and bin/mpiexec there"
    stmpi_mpiexec="$prefix/bin/mpiexec"
    stmpi_desc="installed STMPI in $prefix"
  else
    builddir=$(cd "$builddir" 2>/dev/null && pwd) || die "no build directory $builddir"
    copy_stmpi_build stmpi "$builddir" check
    stmpi_mpiexec="$workdir/stmpi/bin/mpiexec"
    stmpi_desc=$copied_desc
  fi
  impls+=(stmpi)
fi
if wanted mpich; then
  if command -v mpicc.mpich >/dev/null && command -v mpiexec.hydra >/dev/null; then
    impls+=(mpich)
  else
    echo "run.sh: MPICH (mpicc.mpich, mpiexec.hydra) not installed; skipped" >&2
  fi
fi
if wanted openmpi; then
  if command -v mpicc.openmpi >/dev/null && command -v mpiexec.openmpi >/dev/null; then
    impls+=(openmpi)
  else
    echo "run.sh: Open MPI (mpicc.openmpi, mpiexec.openmpi) not installed; skipped" >&2
  fi
fi
[[ ${#impls[@]} -gt 0 ]] || die "no implementation to run"

# ---- build ------------------------------------------------------------------
build() {  # impl bench
  local impl=$1 bench=$2 src="$here/$2.c" exe="$workdir/bin/$2.$1" log="$workdir/bin/$2.$1.build.log"
  case "$impl" in
    stmpi)
      if [[ -n "$prefix" ]]; then
        "$prefix/bin/mpicc" -O2 -o "$exe" "$src" >"$log" 2>&1
      else
        ${CC:-gcc} -O2 -I"$srcdir/include" -o "$exe" "$src" -L"$workdir/stmpi/lib" \
          -Wl,-rpath,"$workdir/stmpi/lib" -Wl,--disable-new-dtags -lmpi >"$log" 2>&1
      fi ;;
    mpich) mpicc.mpich -O2 -o "$exe" "$src" >"$log" 2>&1 ;;
    openmpi) mpicc.openmpi -O2 -o "$exe" "$src" >"$log" 2>&1 ;;
  esac || { cat "$log" >&2; die "building $bench for ${label[$impl]} failed"; }
}

IFS=, read -r -a bench_list <<<"$benches"
for b in "${bench_list[@]}"; do
  [[ -f "$here/$b.c" ]] || die "unknown benchmark '$b'"
  for impl in "${impls[@]}"; do build "$impl" "$b"; done
done
if [[ " ${impls[*]} " == *" stmpi "* && -z "$prefix" ]]; then
  resolved=$(ldd "$workdir/bin/${bench_list[0]}.stmpi" | awk '/libmpi(ch)?\.so/ {print $3}')
  [[ "$(readlink -f "$resolved")" == "$workdir/stmpi/lib/libmpi.so.12" ]] ||
    die "the STMPI binaries load '$resolved' instead of the copied library"
fi

# ---- run --------------------------------------------------------------------

launch() {  # impl exe args...
  local impl=$1; shift
  if [[ -n "$net_hosts" ]]; then net_launch "$impl" 2 "$run_timeout" "$@"; return; fi
  case "$impl" in
    stmpi) timeout -k 5 "$run_timeout" "$stmpi_mpiexec" -n 2 -bind-to "$bind" "$@" ;;
    mpich) timeout -k 5 "$run_timeout" mpiexec.hydra -n 2 -bind-to "$bind" "$@" ;;
    openmpi)
      local root=()
      [[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
      timeout -k 5 "$run_timeout" mpiexec.openmpi "${root[@]}" --oversubscribe -n 2 \
        --bind-to "$bind" "$@" ;;
  esac
}

echo "# STMPI benchmarks: $(date '+%F %T'), $(uname -n), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: test/bench/run.sh $orig_args" | sed 's/ *$//'
[[ " ${impls[*]} " == *" stmpi "* ]] && echo "# STMPI: $stmpi_desc"
echo "# implementations: ${impls[*]}; benchmarks: ${bench_list[*]}; $repeats repeats; binding: $bind; time limit per run ${run_timeout}s$([[ -n "$wait_idle" ]] && echo "; each run waits up to ${wait_max}s for ${wait_idle}% idle CPUs")"
[[ -n "$net_hosts" ]] && echo "# across nodes: hosts $net_hosts, launched through $net_launcher, unbound; a run that printed its results and hung in MPI_Finalize is stopped after ${net_exit_grace}s (note in its .err)"
echo "# raw outputs: $workdir/out"

failures=()
n=${#impls[@]}
for ((rep = 1; rep <= repeats; rep++)); do
  for b in "${bench_list[@]}"; do
    args=()
    [[ -n "$qflag" ]] && args+=("$qflag")
    if [[ "$b" == pingpong ]]; then read -r -a extra <<<"$pp_args"; else read -r -a extra <<<"$md_args"; fi
    args+=("${extra[@]}")
    for ((k = 0; k < n; k++)); do
      impl=${impls[$(((k + rep - 1) % n))]}
      out="$workdir/out/$b.$impl.$rep"
      wait_for_idle
      start=$(date +%s)
      launch "$impl" "$workdir/bin/$b.$impl" "${args[@]}" >"$out.out" 2>"$out.err" </dev/null
      rc=$?
      secs=$(($(date +%s) - start))
      if [[ $rc -ne 0 ]] || ! grep -q "^# $b: done" "$out.out"; then
        why="exit status $rc"
        [[ $rc -eq 124 || $rc -eq 137 ]] && why="timed out after ${run_timeout}s (status $rc)"
        [[ $rc -eq 0 ]] && why="exit status 0 but no '# $b: done' line"
        failures+=("${label[$impl]} $b repeat $rep: $why; see $out.out and $out.err")
        echo "FAIL: ${label[$impl]} $b repeat $rep: $why" >&2
        tail -n 5 "$out.err" | sed 's/^/    /' >&2
      fi
      echo "# repeat $rep/$repeats: $b ${label[$impl]} ${secs}s (status $rc)" >&2
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)$([[ -n "$wait_idle" ]] && echo "; waited ${waited_total}s in total for ${wait_idle}% idle CPUs")"

# ---- tables -----------------------------------------------------------------
# Collects "impl kind key... value" from every output, then prints per kind.
for f in "$workdir"/out/*.out; do
  [[ -e "$f" ]] || continue
  base=$(basename "$f" .out)          # bench.impl.rep
  impl=$(echo "$base" | cut -d. -f2)
  awk -v impl="$impl" '
    $1 == "lat" || $1 == "bw" { print impl, $1, $2, "-", $3 }
    $1 == "match" { print impl, "match", $2, $3, $4 }' "$f"
done >"$workdir/values.txt"

awk -v impls="${impls[*]}" -v labels="stmpi=STMPI mpich=MPICH openmpi=OpenMPI" '
function median(list,   v, m, i, j, t) {
  m = split(list, v, " ")
  for (i = 2; i <= m; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
  if (m == 0) return ""
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
function spread(list,   v, m, i, lo, hi, med) {
  m = split(list, v, " ")
  if (m < 2) return ""
  lo = hi = v[1] + 0
  for (i = 2; i <= m; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
  med = median(list)
  return med > 0 ? (hi - lo) / med * 100 : ""
}
function fmt(x) { return x == "" ? "-" : (x >= 1000 ? sprintf("%.0f", x) : (x >= 100 ? sprintf("%.1f", x) : (x >= 10 ? sprintf("%.2f", x) : sprintf("%.3f", x)))) }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
BEGIN {
  ni = split(impls, imp, " ")
  nl = split(labels, lp, " ")
  for (i = 1; i <= nl; i++) { split(lp[i], kv, "="); lab[kv[1]] = kv[2] }
}
{
  k = $2 SUBSEP $3 SUBSEP $4
  if (!(k in seen)) { seen[k] = 1; order[$2, ++count[$2]] = $3 SUBSEP $4 }
  vals[$1, k] = vals[$1, k] " " $5
}
function cell(impl, kind, key) { return median(vals[impl, kind SUBSEP key]) }
function maxspread(kind, key,   i, s, best) {
  best = ""
  for (i = 1; i <= ni; i++) { s = spread(vals[imp[i], kind SUBSEP key]); if (s != "" && (best == "" || s > best)) best = s }
  return best == "" ? "-" : (best >= 1000 ? ">999%" : sprintf("%.0f%%", best))
}
function header(first, second, what,   i, line) {
  line = sprintf("%-18s%s", first, second)
  for (i = 1; i <= ni; i++) line = line sprintf("%10s", lab[imp[i]])
  for (i = 2; i <= ni; i++) line = line sprintf("%14s", what == "bw" ? lab[imp[i]] "/" lab[imp[1]] : lab[imp[1]] "/" lab[imp[i]])
  return line
}
function table(kind, title, note,   r, key, parts, i, line, v, d1, g) {
  if (!count[kind]) return
  print ""
  print "== " title " =="
  print "   " note
  if (kind == "match") {
    line = header("variant", sprintf("%8s", "D"), kind)
    for (i = 1; i <= ni; i++) line = line sprintf("%11s", lab[imp[i]] "/D1")
    print line sprintf("%8s", "spread")
  } else print header("size", "", kind) sprintf("%8s", "spread")
  for (r = 1; r <= count[kind]; r++) {
    key = order[kind, r]
    split(key, parts, SUBSEP)
    if (kind == "match") line = sprintf("%-18s%8s", parts[1], parts[2])
    else line = sprintf("%-18s", parts[1])
    for (i = 1; i <= ni; i++) { v[i] = cell(imp[i], kind, key); line = line sprintf("%10s", fmt(v[i])) }
    for (i = 2; i <= ni; i++) line = line sprintf("%14s", kind == "bw" ? ratio(v[i], v[1]) : ratio(v[1], v[i]))
    if (kind == "match") {
      for (i = 1; i <= ni; i++) {
        d1 = cell(imp[i], kind, parts[1] SUBSEP "1")
        line = line sprintf("%11s", ratio(v[i], d1))
      }
    }
    print line sprintf("%8s", maxspread(kind, key))
  }
}
END {
  table("lat", "pingpong: one-way latency (half round trip), microseconds",
        "lower is better; ratio " lab[imp[1]] "/other: < 1 means " lab[imp[1]] " is faster")
  table("bw", "pingpong: streaming bandwidth (window of 64 MPI_Isend, then an ack), MB/s (10^6 B/s)",
        "higher is better; ratio other/" lab[imp[1]] ": < 1 means " lab[imp[1]] " is faster")
  table("match", "match_depth: 8-byte one-way latency, microseconds, with D entries queued at rank 1",
        "ratio " lab[imp[1]] "/other < 1 means " lab[imp[1]] " is faster; X/D1 = latency(D) / latency(D=1) of the same variant and implementation")
  print ""
  print "cells: median over repeats of each run'\''s median over trials; spread: largest (max-min)/median over the repeats among the implementations"
}' "$workdir/values.txt"

if [[ ${#failures[@]} -gt 0 ]]; then
  echo ""
  echo "FAILED RUNS (${#failures[@]}):"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
exit 0
