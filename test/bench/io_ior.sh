#!/bin/bash
# MPI-IO bandwidth of STMPI against Debian's MPICH (ROMIO) with IOR on the same file system,
# one node: one IOR binary, built with mpicc.mpich, run on MPICH's library under
# mpiexec.mpich and on a copy of STMPI's library (LD_LIBRARY_PATH; the script checks that it
# is loaded) under our mpiexec, the two interleaved with the order rotating every repeat.
# Cells: contiguous collective and independent, and strided collective through file views
# (--mpiio.useFileView --mpiio.useStridedDatatype), each with 64 KiB and 4 MiB transfers,
# write and read. A cell is the median over the repeats of IOR's mean bandwidth over its
# iterations; the ratio STMPI/MPICH is in the same run (> 1: STMPI faster). Then
# io_overlap (nonblocking write overlapped with a computation of equal length, without MPI
# calls and with MPI_Test calls) on both. With --nodes the same runs go across 2 network
# namespaces (maint/netns.sh; root only), half the ranks on each, both libraries under
# mpiexec.hydra (STMPI's network module: $STMPI_NETMOD, default auto), files in a directory
# both namespaces share.
#
# Usage: test/bench/io_ior.sh [options]
#   --builddir DIR     STMPI build tree (default <source>/build): DIR/.libs/libmpich.so.12 and
#                      DIR/mpiexec are copied first
#   --ior-source DIR   an IOR tree or git repository (default: clone https://github.com/hpc/ior)
#   --ranks N          ranks (default 4)
#   --block SIZE       bytes per rank per file (IOR -b total over segments; default 64m)
#   --repeats N        repeats of the whole set (default 3)
#   --iters N          IOR iterations per run (-i, default 3)
#   --dir DIR          where the files go (default ${TMPDIR:-/tmp})
#   --hints K=V,...    MPI-IO hints for both (IOR_HINT__MPI__K=V)
#   --workdir DIR      binaries and raw outputs (default: a new directory); kept
#   --nodes            across 2 network namespaces instead of one node
#   --cells REGEX      only the cells whose name (e.g. contig-ind-4m) matches (and no io_overlap)
#   --quick            1 repeat, 1 iteration, 16m blocks
#   -h, --help
# Environment: STMPI_BENCH_TIMEOUT (seconds per run, default 300).
# Exit status: 0 when every run succeeded, 1 when one failed (listed at the end), 2 for
# usage or build errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir="$srcdir/build"
ior_source=""
np=4
block=64m
repeats=3
iters=3
dir=${TMPDIR:-/tmp}
hints=""
workdir=""
nodes=0
only=""
orig_args="$*"
usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "io_ior.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --builddir) builddir=${2:?}; shift ;;
    --ior-source) ior_source=${2:?}; shift ;;
    --ranks) np=${2:?}; shift ;;
    --block) block=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --iters) iters=${2:?}; shift ;;
    --dir) dir=${2:?}; shift ;;
    --hints) hints=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --nodes) nodes=1 ;;
    --cells) only=${2:?}; shift ;;
    --quick) repeats=1; iters=1; block=16m ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
run_timeout=${STMPI_BENCH_TIMEOUT:-300}
if ! command -v mpicc.mpich >/dev/null || ! command -v mpiexec.mpich >/dev/null; then
  die "Debian's MPICH (mpicc.mpich, mpiexec.mpich) is not installed"
fi
builddir=$(cd "$builddir" 2>/dev/null && pwd) || die "no build directory $builddir"
[[ -e "$builddir/.libs/libmpich.so.12" && -x "$builddir/mpiexec" ]] ||
  die "$builddir has no .libs/libmpich.so.12 or mpiexec (build STMPI first)"
[[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-io-bench.XXXXXX")
mkdir -p "$workdir/out" "$workdir/stmpi/lib" "$workdir/stmpi/bin" && workdir=$(cd "$workdir" && pwd)
rm -f "$workdir"/out/*
mkdir -p "$dir" || die "cannot use $dir"

# STMPI: a copy of the library under its soname, and of the launcher.
lib="$builddir/.libs/libmpich.so.12"
cp -L "$lib" "$workdir/stmpi/lib/libmpich.so.12" || die "cannot copy $lib"
cp -L "$builddir/mpiexec" "$workdir/stmpi/bin/mpiexec" || die "cannot copy $builddir/mpiexec"
stmpi_desc="build tree $builddir (libmpich.so.12 of $(date -r "$lib" '+%F %T'), sha1 $(sha1sum "$lib" | cut -c1-12), copied)"

# IOR, built once with MPICH's wrapper.
ior_dir="$workdir/ior"
if [[ ! -x "$ior_dir/src/ior" ]]; then
  rm -rf "$ior_dir"
  if [[ -n "$ior_source" ]] && git -C "$ior_source" rev-parse --git-dir >/dev/null 2>&1; then
    mkdir -p "$ior_dir" || die "cannot create $ior_dir"
    git -C "$ior_source" archive HEAD | tar x -C "$ior_dir" || die "cannot export $ior_source"
  elif [[ -n "$ior_source" ]]; then
    cp -a "$ior_source" "$ior_dir" || die "cannot copy $ior_source"
  else
    git clone -q https://github.com/hpc/ior.git "$ior_dir" || die "cloning IOR failed (no network? use --ior-source)"
  fi
  (cd "$ior_dir" && ./bootstrap && ./configure CC=mpicc.mpich && make -j2) >"$workdir/ior-build.log" 2>&1 ||
    { tail -20 "$workdir/ior-build.log"; die "building IOR failed (log: $workdir/ior-build.log)"; }
fi
ior="$ior_dir/src/ior"
mpicc.mpich -O2 -o "$workdir/io_overlap" "$here/io_overlap.c" || die "building io_overlap failed"
loaded=$(LD_LIBRARY_PATH="$workdir/stmpi/lib" ldd "$ior" | awk '/libmpich\.so\.12/ {print $3}')
[[ "$(readlink -f "$loaded")" == "$workdir/stmpi/lib/libmpich.so.12" ]] ||
  die "IOR loads '$loaded' under LD_LIBRARY_PATH instead of the copied STMPI library"

hint_env=()
if [[ -n "$hints" ]]; then
  IFS=, read -r -a kvs <<<"$hints"
  for kv in "${kvs[@]}"; do hint_env+=("IOR_HINT__MPI__${kv%%=*}=${kv#*=}"); done
fi
if [[ $nodes -eq 1 ]]; then
  # shellcheck source=test/bench/bench_lib.sh disable=SC2034  # net_done_re is bench_lib.sh's
  source "$here/bench_lib.sh"  # net_up, net_launch
  net_up i$$ || die "2 network namespaces: $net_up_text"
  net_done_re='^Finished |^# io_overlap: done'  # IOR's last line, io_overlap's
fi
launch() {  # impl program args...
  local impl=$1
  shift
  if [[ $nodes -eq 1 ]]; then
    (
      [[ ${#hint_env[@]} -gt 0 ]] && export "${hint_env[@]}"
      [[ $impl == stmpi ]] && export LD_LIBRARY_PATH="$workdir/stmpi/lib"
      net_launch "$impl" "$np" "$run_timeout" "$@"
    )
    return
  fi
  case "$impl" in
    stmpi) env "${hint_env[@]}" LD_LIBRARY_PATH="$workdir/stmpi/lib" timeout -k 5 "$run_timeout" \
             "$workdir/stmpi/bin/mpiexec" -n "$np" "$@" ;;
    mpich) env "${hint_env[@]}" timeout -k 5 "$run_timeout" mpiexec.mpich -n "$np" "$@" ;;
  esac
}

# Block per rank in bytes, and the cells: "name transfer extra-args".
to_bytes() { numfmt --from=iec "$(echo "$1" | tr '[:lower:]' '[:upper:]')"; }
block_b=$(to_bytes "$block") || die "bad --block $block"
cells=()
for t in 64k 4m; do
  tb=$(to_bytes "$t")
  segs=$((block_b / tb))
  [[ $segs -ge 1 ]] || die "--block $block is smaller than a $t transfer"
  # No -C for the strided cells: with --mpiio.useStridedDatatype, IOR skips the collective
  # read on a rank whose reordered offset lies past its own block while the others make it
  # (an erroneous program; across nodes it deadlocks under any MPI).
  cells+=("contig-coll $t -c -C -b $block -t $t -s 1")
  cells+=("contig-ind $t -C -b $block -t $t -s 1")
  cells+=("strided-coll $t -c --mpiio.useFileView --mpiio.useStridedDatatype -b $t -t $t -s $segs")
done

echo "# STMPI MPI-IO against MPICH with IOR: $(date '+%F %T'), $(uname -n), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: test/bench/io_ior.sh $orig_args" | sed 's/ *$//'
echo "# STMPI: $stmpi_desc"
echo "# MPICH: $(mpichversion 2>/dev/null | head -1 | sed 's/  */ /g') (mpiexec.mpich); IOR $(git -C "${ior_source:-$ior_dir}" log -1 --format=%h 2>/dev/null) built with mpicc.mpich"
where="one node"
[[ $nodes -eq 1 ]] && where="2 network namespaces ($net_up_text; STMPI's network module ${STMPI_NETMOD:-auto}), under mpiexec.hydra"
echo "# $np ranks on $where, ${block} per rank, files in $dir ($(df -T "$dir" | awk 'NR == 2 {print $2}')), $repeats repeats x $iters IOR iterations, fsync (-e), contiguous reads by the rank one node further (-C; on one node that is the writer itself)${hints:+, hints $hints}"
echo "# raw outputs: $workdir/out"
failures=()
impls=(stmpi mpich)
for ((rep = 1; rep <= repeats; rep++)); do
  for c in "${cells[@]}"; do
    read -r name t rest <<<"$c"
    [[ -n "$only" && ! "$name-$t" =~ $only ]] && continue
    read -r -a args <<<"$rest"
    for ((k = 0; k < 2; k++)); do
      impl=${impls[$(((k + rep - 1) % 2))]}
      out="$workdir/out/$name-$t.$impl.$rep"
      launch "$impl" "$ior" -a MPIIO -w -r -e -i "$iters" "${args[@]}" -o "$dir/stmpi-io-bench.$$.dat" \
        >"$out.out" 2>"$out.err" </dev/null
      rc=$?
      if [[ $rc -ne 0 ]] || ! grep -q '^Summary of all tests' "$out.out"; then
        failures+=("$impl $name $t repeat $rep: exit status $rc; see $out.out")
        echo "FAIL: $impl $name $t repeat $rep: exit status $rc" >&2
      fi
      rm -f "$dir/stmpi-io-bench.$$.dat"*
    done
  done
  for impl in "${impls[@]}"; do
    [[ -n "$only" ]] && break
    out="$workdir/out/overlap.$impl.$rep"
    launch "$impl" "$workdir/io_overlap" -b "$block_b" -i "$iters" -f "$dir/stmpi-io-overlap.$$" \
      >"$out.out" 2>"$out.err" </dev/null
    rc=$?
    if [[ $rc -ne 0 ]] || ! grep -q '^# io_overlap: done' "$out.out"; then
      failures+=("$impl io_overlap repeat $rep: exit status $rc; see $out.out")
    fi
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# IOR's summary lines: "write|read Max Min Mean ..." (MiB/s); one value per run: the mean.
for f in "$workdir"/out/*.out; do
  b=$(basename "$f" .out)
  impl=$(echo "$b" | cut -d. -f2)
  cell=$(echo "$b" | cut -d. -f1)
  if [[ $cell == overlap ]]; then
    awk -v impl="$impl" '$1 == "iooverlap" { print impl, "overlap", $2 ":" $3, $NF }' "$f"
  else
    awk -v impl="$impl" -v cell="$cell" '
      /^Summary of all tests/ { s = 1; next }
      s && ($1 == "write" || $1 == "read") { print impl, "bw", cell ":" $1, $4 }' "$f"
  fi
done >"$workdir/values.txt"
awk '
function median(list,   v, m, i, j, t) {
  m = split(list, v, " ")
  for (i = 2; i <= m; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
  if (m == 0) return ""
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
{ k = $2 SUBSEP $3; if (!(k in seen)) { seen[k] = 1; order[$2, ++n[$2]] = $3 } vals[$1, k] = vals[$1, k] " " $4 }
END {
  print ""
  print "== IOR bandwidth, MiB/s (mean over IOR iterations, median over repeats); ratio STMPI/MPICH > 1: STMPI faster =="
  printf "%-28s %10s %10s %12s\n", "cell", "STMPI", "MPICH", "STMPI/MPICH"
  for (r = 1; r <= n["bw"]; r++) {
    key = order["bw", r]; a = median(vals["stmpi", "bw" SUBSEP key]); b = median(vals["mpich", "bw" SUBSEP key])
    name = key; gsub(":", " ", name)
    printf "%-28s %10s %10s %12s\n", name, a == "" ? "-" : sprintf("%.1f", a), b == "" ? "-" : sprintf("%.1f", b),
      (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b)
  }
  print ""
  print "== io_overlap: % of a computation of equal length overlapped by a nonblocking write (quiet: no MPI calls while computing; test: MPI_Test every 100 us) =="
  printf "%-28s %10s %10s\n", "call compute", "STMPI", "MPICH"
  for (r = 1; r <= n["overlap"]; r++) {
    key = order["overlap", r]; a = median(vals["stmpi", "overlap" SUBSEP key]); b = median(vals["mpich", "overlap" SUBSEP key])
    name = key; gsub(":", " ", name)
    printf "%-28s %10s %10s\n", name, a == "" ? "-" : a, b == "" ? "-" : b
  }
}' "$workdir/values.txt"
if [[ ${#failures[@]} -gt 0 ]]; then
  echo ""
  echo "FAILED RUNS (${#failures[@]}):"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
exit 0
