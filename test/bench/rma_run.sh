#!/bin/bash
# Builds the one-sided benchmarks of test/bench (rma_lat, rma_lock,
# rma_overlap) against STMPI and, when installed, Debian's MPICH
# (mpicc.mpich / mpiexec.hydra) and Open MPI (mpicc.openmpi /
# mpiexec.openmpi), runs them with each implementation's own launcher and
# prints one table per metric with the ratios. Same conventions as run.sh:
# every run has a time limit, the implementations' runs are interleaved (the
# order rotates every repeat) and the whole set is repeated; a table cell is
# the median over the repeats of the value a run reports (itself a median
# over trials).
#
# Usage: test/bench/rma_run.sh [options]
#   --quick               fewer and shorter trials (passes -q), 3 repeats
#   --repeats N           repeats of the whole set (default 5, --quick 3)
#   --builddir DIR        STMPI build tree (default: <source>/build or an
#                         in-tree build, whichever library is newer); DIR/
#                         .libs/libmpi.so.12 and DIR/mpiexec are copied first
#   --impls LIST          subset of stmpi,mpich,openmpi (default: all found)
#   --base-builddir DIR   also run a previous STMPI build tree (column STMPI-base,
#                         with its ratio to STMPI), e.g. a worktree of the last commit
#   --bench LIST          subset of rma_lat,rma_lock,rma_overlap (default: all)
#   --lock-ranks LIST     rank counts for rma_lock (default 2,4,8)
#   --bind core|none      process binding for runs that fit the CPUs (default
#                         core); runs with more ranks than CPUs are never bound
#   --lat-args "A"        extra arguments for rma_lat (see rma_lat.c)
#   --lock-args "A"       extra arguments for rma_lock
#   --overlap-args "A"    extra arguments for rma_overlap
#   --wait-idle PCT       before each run, wait (at most 300 s) until the CPUs
#                         were at least PCT % idle over 2 s
#   --hosts H1,H2         run across 2 nodes (see test/bench/net_run.sh, which sets
#   --launcher-exec PATH  these): ranks split over H1 and H2 (first half on H1),
#   --subnet CIDR         started by mpiexec.hydra (STMPI, MPICH) or mpirun (Open
#                         MPI, TCP on CIDR) through the ssh stand-in PATH, unbound
#   --workdir DIR         where binaries and raw outputs go (default: a new
#                         directory under ${TMPDIR:-/tmp}); it is kept
#   -h, --help
# Environment: CC (compiler for STMPI, default gcc), STMPI_BENCH_TIMEOUT
#   (seconds per run, default 600; 300 with --quick).
# Exit status: 0 when every run succeeded, 1 when some run failed (listed at
# the end), 2 for usage or build errors.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=""
base_builddir=""
quick=0
repeats=""
impls_wanted="stmpi,mpich,openmpi"
benches="rma_lat,rma_lock,rma_overlap"
lock_ranks="2,4,8"
bind=core
lat_args=""
lock_args=""
overlap_args=""
workdir=""
wait_idle=""
orig_args="$*"

source "$here/bench_lib.sh"  # idle_percent, wait_for_idle, net_launch, copy_stmpi_build

usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "rma_run.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --repeats) repeats=${2:?}; shift ;;
    --builddir) builddir=${2:?}; shift ;;
    --base-builddir) base_builddir=${2:?}; shift ;;
    --impls) impls_wanted=${2:?}; shift ;;
    --bench) benches=${2:?}; shift ;;
    --lock-ranks) lock_ranks=${2:?}; shift ;;
    --bind) bind=${2:?}; shift ;;
    --lat-args) lat_args=${2?}; shift ;;
    --lock-args) lock_args=${2?}; shift ;;
    --overlap-args) overlap_args=${2?}; shift ;;
    --wait-idle) wait_idle=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --hosts|--launcher-exec|--subnet) net_option "$1" "${2:?}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ "$bind" == core || "$bind" == none ]] || die "--bind wants core or none"
[[ -n "$net_hosts" ]] && bind=none  # the nodes share the CPUs: bound ranks would share a core
[[ -z "$wait_idle" || "$wait_idle" =~ ^[0-9]+$ ]] || die "--wait-idle wants a percentage"
[[ -z "$repeats" ]] && repeats=$((quick ? 3 : 5))
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
[[ "$lock_ranks" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--lock-ranks wants a list like 2,4,8"
run_timeout=${STMPI_BENCH_TIMEOUT:-$((quick ? 300 : 600))}
qflag=""
[[ $quick -eq 1 ]] && qflag="-q"
if [[ -z "$builddir" ]]; then
  # <source>/build or an in-tree build, whichever library is newer.
  builddir="$srcdir/build"
  if [[ -e "$srcdir/.libs/libmpi.so.12" && ( ! -e "$builddir/.libs/libmpi.so.12" ||
        "$srcdir/.libs/libmpi.so.12" -nt "$builddir/.libs/libmpi.so.12" ) ]]; then
    builddir="$srcdir"
  fi
fi
builddir=$(cd "$builddir" 2>/dev/null && pwd) || die "no build directory $builddir"

if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-rma-bench.XXXXXX") || die "cannot create a work directory"
fi
mkdir -p "$workdir/bin" "$workdir/out" || die "cannot use $workdir"
workdir=$(cd "$workdir" && pwd)
rm -f "$workdir"/out/*

# ---- implementations --------------------------------------------------------
impls=()
declare -A label=([stmpi]=STMPI [base]=STMPI-base [mpich]=MPICH [openmpi]=OpenMPI)
wanted() { [[ ",$impls_wanted," == *",$1,"* ]]; }

stmpi_desc=""
if wanted stmpi; then
  copy_stmpi_build stmpi "$builddir" check
  stmpi_desc=$copied_desc
  impls+=(stmpi)
fi
base_desc=""
if [[ -n "$base_builddir" ]]; then
  base_builddir=$(cd "$base_builddir" 2>/dev/null && pwd) || die "no build directory $base_builddir"
  copy_stmpi_build base "$base_builddir"
  base_desc=$copied_desc
  impls+=(base)
fi
if wanted mpich; then
  if command -v mpicc.mpich >/dev/null && command -v mpiexec.hydra >/dev/null; then impls+=(mpich)
  else echo "rma_run.sh: MPICH (mpicc.mpich, mpiexec.hydra) not installed; skipped" >&2; fi
fi
if wanted openmpi; then
  if command -v mpicc.openmpi >/dev/null && command -v mpiexec.openmpi >/dev/null; then impls+=(openmpi)
  else echo "rma_run.sh: Open MPI (mpicc.openmpi, mpiexec.openmpi) not installed; skipped" >&2; fi
fi
[[ ${#impls[@]} -gt 0 ]] || die "no implementation to run"

# ---- build ------------------------------------------------------------------
IFS=, read -r -a bench_list <<<"$benches"
for b in "${bench_list[@]}"; do
  [[ "$b" == rma_lat || "$b" == rma_lock || "$b" == rma_overlap ]] || die "unknown benchmark '$b'"
  for impl in "${impls[@]}"; do
    exe="$workdir/bin/$b.$impl" log="$workdir/bin/$b.$impl.build.log"
    case "$impl" in
      stmpi|base)
        ${CC:-gcc} -O2 -I"$srcdir/include" -o "$exe" "$here/$b.c" -L"$workdir/$impl/lib" \
          -Wl,-rpath,"$workdir/$impl/lib" -Wl,--disable-new-dtags -lmpi >"$log" 2>&1 ;;
      mpich) mpicc.mpich -O2 -o "$exe" "$here/$b.c" >"$log" 2>&1 ;;
      openmpi) mpicc.openmpi -O2 -o "$exe" "$here/$b.c" >"$log" 2>&1 ;;
    esac || { cat "$log" >&2; die "building $b for ${label[$impl]} failed"; }
  done
done
if [[ " ${impls[*]} " == *" stmpi "* ]]; then
  # programs need libmpich.so.12 (the soname), a link to the copy
  resolved=$(ldd "$workdir/bin/${bench_list[0]}.stmpi" | awk '/libmpi(ch)?\.so/ {print $3}')
  [[ -n "$resolved" && "$(readlink -f "$resolved")" == "$workdir/stmpi/lib/libmpi.so.12" ]] ||
    die "the STMPI binaries load '$resolved' instead of the copied library"
fi

# ---- run --------------------------------------------------------------------

cpus=$(nproc)
launch() {  # impl nprocs exe args...
  local impl=$1 np=$2 b=$bind; shift 2
  if [[ -n "$net_hosts" ]]; then net_launch "$impl" "$np" "$run_timeout" "$@"; return; fi
  [[ $np -gt $cpus ]] && b=none
  case "$impl" in
    stmpi|base) timeout -k 5 "$run_timeout" "$workdir/$impl/bin/mpiexec" -n "$np" -bind-to "$b" "$@" ;;
    mpich) timeout -k 5 "$run_timeout" mpiexec.hydra -n "$np" -bind-to "$b" "$@" ;;
    openmpi)
      local root=()
      [[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
      timeout -k 5 "$run_timeout" mpiexec.openmpi "${root[@]}" --oversubscribe -n "$np" --bind-to "$b" "$@" ;;
  esac
}

# The runs of one repeat: "bench nprocs".
runs=()
for b in "${bench_list[@]}"; do
  if [[ "$b" == rma_lock ]]; then
    IFS=, read -r -a nps <<<"$lock_ranks"
    for np in "${nps[@]}"; do runs+=("$b $np"); done
  else
    runs+=("$b 2")
  fi
done

echo "# STMPI one-sided benchmarks: $(date '+%F %T'), $(uname -n), $cpus CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: test/bench/rma_run.sh $orig_args" | sed 's/ *$//'
[[ " ${impls[*]} " == *" stmpi "* ]] && echo "# STMPI: $stmpi_desc"
[[ -n "$base_desc" ]] && echo "# STMPI-base: $base_desc"
echo "# implementations: ${impls[*]}; runs: ${runs[*]}; $repeats repeats; binding: $bind (none above $cpus ranks); time limit per run ${run_timeout}s"
[[ -n "$net_hosts" ]] && echo "# across nodes: hosts $net_hosts, launched through $net_launcher, unbound; a run that printed its results and hung in MPI_Finalize is stopped after ${net_exit_grace}s (note in its .err)"
echo "# raw outputs: $workdir/out"

failures=()
n=${#impls[@]}
for ((rep = 1; rep <= repeats; rep++)); do
  for r in "${runs[@]}"; do
    read -r b np <<<"$r"
    args=()
    [[ -n "$qflag" ]] && args+=("$qflag")
    case "$b" in
      rma_lat) read -r -a extra <<<"$lat_args" ;;
      rma_lock) read -r -a extra <<<"$lock_args" ;;
      rma_overlap) read -r -a extra <<<"$overlap_args" ;;
    esac
    args+=("${extra[@]}")
    for ((k = 0; k < n; k++)); do
      impl=${impls[$(((k + rep - 1) % n))]}
      out="$workdir/out/$b-$np.$impl.$rep"
      wait_for_idle
      start=$(date +%s)
      launch "$impl" "$np" "$workdir/bin/$b.$impl" "${args[@]}" >"$out.out" 2>"$out.err" </dev/null
      rc=$?
      if [[ $rc -ne 0 ]] || ! grep -q "^# $b: done" "$out.out"; then
        why="exit status $rc"
        [[ $rc -eq 124 || $rc -eq 137 ]] && why="timed out after ${run_timeout}s (status $rc)"
        [[ $rc -eq 0 ]] && why="exit status 0 but no '# $b: done' line"
        failures+=("${label[$impl]} $b on $np ranks, repeat $rep: $why; see $out.out and $out.err")
        echo "FAIL: ${label[$impl]} $b on $np ranks, repeat $rep: $why" >&2
        tail -n 5 "$out.err" | sed 's/^/    /' >&2
      fi
      echo "# repeat $rep/$repeats: $b on $np ranks, ${label[$impl]}: $(($(date +%s) - start))s (status $rc)" >&2
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- tables -----------------------------------------------------------------
# One line per value: impl kind key value.
for f in "$workdir"/out/*.out; do
  [[ -e "$f" ]] || continue
  impl=$(basename "$f" .out | cut -d. -f2)
  awk -v impl="$impl" '
    $1 == "rmalat" { print impl, "lat", $2 "_" $3 "_" $4, $5 }
    $1 == "rmabw" { print impl, "bw", $2 "_" $3 "_" $4, $5 }
    $1 == "lockget" { print impl, "lockget", $2, $4 }
    $1 == "lockc" { k = $2 "_" $3; print impl, "lockrate", k, $4; print impl, "jain", k, $5;
                    print impl, "minmax", k, $6; if ($2 == "exclusive") { print impl, "streak", k, $7; print impl, "meanstreak", k, $8 } }
    $1 == "overlap" { k = $2 "_" $3; print impl, "overlap", k, $7; print impl, "torigin", k, $5 / $4 }' "$f"
done >"$workdir/values.txt"

awk -v impls="${impls[*]}" -v labels="stmpi=STMPI base=STMPI-base mpich=MPICH openmpi=OpenMPI" '
function median(list,   v, m, i, j, t) {
  m = split(list, v, " ")
  for (i = 2; i <= m; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
  if (m == 0) return ""
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
function fmt(x) { return x == "" ? "-" : (x >= 1000 ? sprintf("%.0f", x) : (x >= 100 ? sprintf("%.1f", x) : (x >= 10 ? sprintf("%.2f", x) : sprintf("%.3f", x)))) }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
BEGIN {
  ni = split(impls, imp, " ")
  nl = split(labels, lp, " ")
  for (i = 1; i <= nl; i++) { split(lp[i], kv, "="); lab[kv[1]] = kv[2] }
}
{
  k = $2 SUBSEP $3
  if (!(k in seen)) { seen[k] = 1; order[$2, ++count[$2]] = $3 }
  vals[$1, k] = vals[$1, k] " " $4
}
function cell(impl, kind, key) { return median(vals[impl, kind SUBSEP key]) }
# higher: 1 when larger values are better (ratios other/STMPI), else STMPI/other
function table(kind, title, note, higher, with_ratio,   r, key, i, line, v, name) {
  if (!count[kind]) return
  print ""
  print "== " title " =="
  print "   " note
  line = sprintf("%-28s", "case")
  for (i = 1; i <= ni; i++) line = line sprintf("%11s", lab[imp[i]])
  if (with_ratio)
    for (i = 2; i <= ni; i++) line = line sprintf("%17s", higher ? lab[imp[i]] "/" lab[imp[1]] : lab[imp[1]] "/" lab[imp[i]])
  print line
  for (r = 1; r <= count[kind]; r++) {
    key = order[kind, r]
    name = key
    gsub("_", " ", name)
    line = sprintf("%-28s", name)
    for (i = 1; i <= ni; i++) { v[i] = cell(imp[i], kind, key); line = line sprintf("%11s", fmt(v[i])) }
    if (with_ratio)
      for (i = 2; i <= ni; i++) line = line sprintf("%17s", higher ? ratio(v[i], v[1]) : ratio(v[1], v[i]))
    print line
  }
}
END {
  first = lab[imp[1]]
  table("lat", "rma_lat: one epoch with one operation (SYNC OP BYTES), microseconds",
        "lower is better; ratio " first "/other < 1 means " first " is faster", 0, 1)
  table("bw", "rma_lat: bandwidth, 32 operations per epoch (SYNC OP BYTES), MB/s",
        "higher is better; ratio other/" first " < 1 means " first " is faster", 1, 1)
  table("lockget", "rma_lat: uncontended MPI_Win_lock + 8-byte MPI_Get + MPI_Win_unlock, microseconds",
        "lower is better; ratio " first "/other < 1 means " first " is faster", 0, 1)
  table("lockrate", "rma_lock: all ranks hammer rank 0 (MODE RANKS), lock acquisitions per second",
        "higher is better; ratio other/" first " < 1 means " first " is faster", 1, 1)
  table("jain", "rma_lock: Jain fairness index of per-rank acquisitions (1 = equal, 1/RANKS = one rank got all)",
        "higher is fairer", 1, 0)
  table("minmax", "rma_lock: fewest / most acquisitions of one rank", "higher is fairer", 1, 0)
  table("streak", "rma_lock exclusive: longest run of consecutive grants to one rank",
        "lower is fairer (FIFO with everyone queued: 1)", 0, 0)
  table("meanstreak", "rma_lock exclusive: mean run of consecutive grants to one rank",
        "lower is fairer (FIFO with everyone queued: 1)", 0, 0)
  table("overlap", "rma_overlap: % of the target computation overlapped by lock+put+unlock epochs (MODE BYTES)",
        "100 = the epochs proceed while the target computes without calling MPI; 0 = they wait for it", 1, 0)
  table("torigin", "rma_overlap: origin time with the target computing / origin time with the target in MPI",
        "1.00 = truly passive; 2.00 = the origin waited for the whole computation", 0, 0)
  print ""
  print "cells: median over repeats of each run'\''s median over trials"
}' "$workdir/values.txt"

if [[ ${#failures[@]} -gt 0 ]]; then
  echo ""
  echo "FAILED RUNS (${#failures[@]}):"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
exit 0
