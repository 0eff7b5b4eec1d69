#!/bin/bash
# Builds test/bench/faces.c against STMPI, runs its three variants (p2p,
# rma, st) for a sweep of face sizes on one node, one run per variant and
# size, each under a time limit, and prints the tables: time per step of
# each variant with the ratios st/rma and st/p2p, the CPU time per step by
# kind, and where the time of the st variant goes. The set of runs is
# repeated (the order of the variants rotates every repeat); a cell is the
# median over the repeats of what a run reports (itself a median over the
# program's own repeats). The st variant is built when mpi.h declares
# MPIX_MODE_STREAM; otherwise its column shows "-".
#
# Usage: test/bench/faces_run.sh [options]
#   --quick               short runs (passes -q to faces), 1 repeat
#   --repeats N           repeats of the whole set (default 3, --quick 1)
#   --np N                ranks (default 8)
#   --sizes LIST          bytes per face (default 8,64,512,4K,16K,64K)
#   --variants LIST       subset of p2p,rma,st (default all three)
#   --args "A"            more arguments for faces (e.g. "-n -i 100")
#   --bind none|core      process binding (default none; core is ignored
#                         when there are more ranks than CPUs)
#   --wait-idle PCT       before each run, wait (at most 300 s) until the CPUs
#                         were at least PCT % idle over 2 s
#   --builddir DIR        STMPI build tree (default: <source>/build or an
#                         in-tree build, whichever library is newer); its
#                         .libs/libmpi.so.12, mpiexec and the include
#                         directory are copied first
#   --workdir DIR         where the binary and raw outputs go (default: a new
#                         directory under ${TMPDIR:-/tmp}); it is kept
#   --gpu                 GPU mode: also compiles faces_kernels.cu to PTX
#                         (nvcc -ptx -arch=compute_90, nvcc from PATH or
#                         /usr/local/cuda/bin) into the work directory, runs
#                         the kernels' host check (nvcc
#                         -DFACES_KERNELS_HOST_CHECK), passes -G PTXFILE to
#                         faces and sets STMPI_STREAM_BACKEND=cuda for the
#                         runs (needs a CUDA device and a library built with
#                         the CUDA stream backend)
#   -h, --help
# Environment: CC (default gcc), NVCC (--gpu; default as above), STMPI_BENCH_TIMEOUT (seconds per run,
#   default 180; 90 with --quick), extra STMPI_* variables are passed on.
# Exit status: 0 when every run succeeded, 1 when some run failed (listed
# at the end), 2 for usage or build errors.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=""
quick=0
repeats=""
np=8
sizes="8,64,512,4K,16K,64K"
variants="p2p,rma,st"
extra_args=""
bind=none
workdir=""
wait_idle=""
gpu=0
orig_args="$*"

usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "faces_run.sh: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --repeats) repeats=${2:?}; shift ;;
    --np) np=${2:?}; shift ;;
    --sizes) sizes=${2:?}; shift ;;
    --variants) variants=${2:?}; shift ;;
    --args) extra_args=${2?}; shift ;;
    --bind) bind=${2:?}; shift ;;
    --builddir) builddir=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --wait-idle) wait_idle=${2:?}; shift ;;
    --gpu) gpu=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ "$bind" == core || "$bind" == none ]] || die "--bind wants core or none"
[[ -z "$wait_idle" || "$wait_idle" =~ ^[0-9]+$ ]] || die "--wait-idle wants a percentage"
[[ -z "$repeats" ]] && repeats=$((quick ? 1 : 3))
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
[[ "$np" =~ ^[1-9][0-9]*$ ]] || die "--np wants a positive number"
[[ "$sizes" =~ ^[0-9]+[KkMm]?(,[0-9]+[KkMm]?)*$ ]] || die "--sizes wants a list like 8,64,4K"
IFS=, read -r -a size_list <<<"$sizes"
IFS=, read -r -a variant_list <<<"$variants"
for v in "${variant_list[@]}"; do
  [[ "$v" == p2p || "$v" == rma || "$v" == st ]] || die "unknown variant '$v'"
done
run_timeout=${STMPI_BENCH_TIMEOUT:-$((quick ? 90 : 180))}
qflag=""
[[ $quick -eq 1 ]] && qflag="-q"

if [[ -z "$builddir" ]]; then
  builddir="$srcdir/build"
  if [[ -e "$srcdir/.libs/libmpi.so.12" && ( ! -e "$builddir/.libs/libmpi.so.12" ||
        "$srcdir/.libs/libmpi.so.12" -nt "$builddir/.libs/libmpi.so.12" ) ]]; then
    builddir="$srcdir"
  fi
fi
builddir=$(cd "$builddir" 2>/dev/null && pwd) || die "no build directory $builddir"
if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-faces.XXXXXX") || die "cannot create a work directory"
fi
mkdir -p "$workdir/out" "$workdir/stmpi/lib" "$workdir/stmpi/bin" || die "cannot use $workdir"
workdir=$(cd "$workdir" && pwd)
rm -f "$workdir"/out/*

# ---- build (against a copy, so that a rebuild during the runs cannot mix libraries) ----
lib="$builddir/.libs/libmpi.so.12"
[[ -e "$lib" && -x "$builddir/mpiexec" ]] || die "$builddir has no .libs/libmpi.so.12 or mpiexec (build STMPI first)"
newer=$(find "$srcdir/src" "$srcdir/include" -newer "$lib" -type f \( -name '*.cc' -o -name '*.h' \) 2>/dev/null | head -3)
[[ -n "$newer" ]] && echo "faces_run.sh: warning: sources newer than $lib, e.g. $(echo $newer)" >&2
cp -L "$lib" "$workdir/stmpi/lib/libmpi.so.12" || die "cannot copy $lib"
ln -sf libmpi.so.12 "$workdir/stmpi/lib/libmpi.so"
ln -sf libmpi.so.12 "$workdir/stmpi/lib/libmpich.so.12"  # the soname programs need
cp -L "$builddir/mpiexec" "$workdir/stmpi/bin/mpiexec" || die "cannot copy $builddir/mpiexec"
rm -rf "$workdir/stmpi/include"
cp -rL "$srcdir/include" "$workdir/stmpi/include" || die "cannot copy $srcdir/include"
# A build tree outside the source tree may hold generated headers of its own.
[[ -d "$builddir/include" && "$builddir" != "$srcdir" ]] && cp -rL "$builddir/include/." "$workdir/stmpi/include/"
exe="$workdir/faces"
# faces_gpu.c is the GPU mode (-G); it loads the CUDA driver at run time, so
# it needs no CUDA to build.
build() {
  ${CC:-gcc} -O2 -Wall "$@" -I"$workdir/stmpi/include" -I"$srcdir/test/mpi/util" -o "$exe" "$here/faces.c" \
    "$here/faces_gpu.c" -L"$workdir/stmpi/lib" -Wl,-rpath,"$workdir/stmpi/lib" -Wl,--disable-new-dtags \
    -lmpi -lm -ldl >"$workdir/build.log" 2>&1
}
st_built=0
st_note="mpi.h does not declare MPIX_MODE_STREAM"
if grep -q 'define MPIX_MODE_STREAM' "$workdir/stmpi/include/"*.h; then
  st_built=1
  if ! build; then
    # The header may run ahead of the library: build without the st variant then.
    st_built=0
    st_note="the library lacks the stream-triggered calls the header declares ($(grep -o "undefined reference to \`[A-Za-z_]*'" "$workdir/build.log" | head -1))"
  fi
fi
if [[ $st_built -eq 0 ]]; then
  build -DFACES_NO_ST || { cat "$workdir/build.log" >&2; die "building faces failed"; }
fi
gpu_args=()
if [[ $gpu -eq 1 ]]; then
  nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  [[ -x "$nvcc" ]] || die "--gpu: no nvcc (not in PATH, not $nvcc; set NVCC)"
  ptx="$workdir/faces_kernels.ptx"
  "$nvcc" -ptx -arch=compute_90 -o "$ptx" "$here/faces_kernels.cu" >"$workdir/nvcc.log" 2>&1 ||
    { cat "$workdir/nvcc.log" >&2; die "--gpu: nvcc -ptx faces_kernels.cu failed"; }
  # Every thread of both kernels runs on the CPU, with the launch shapes faces uses.
  "$nvcc" -arch=sm_90 -DFACES_KERNELS_HOST_CHECK -o "$workdir/faces_kernels_check" "$here/faces_kernels.cu" \
    >>"$workdir/nvcc.log" 2>&1 || { cat "$workdir/nvcc.log" >&2; die "--gpu: nvcc of the kernels' host check failed"; }
  "$workdir/faces_kernels_check" >"$workdir/kernels_check.log" 2>&1 ||
    { cat "$workdir/kernels_check.log" >&2; die "--gpu: the kernels' host check failed"; }
  # The kernels' by-value argument: the PTX's size against the host's sizeof.
  ptx_bytes=$(sed -n 's/.*faces_compare_param_0\[\([0-9]*\)\].*/\1/p' "$ptx" | head -1)
  host_bytes=$(sed -n 's/.*sizeof(struct faces_kparams) \([0-9]*\).*/\1/p' "$workdir/kernels_check.log")
  [[ -n "$ptx_bytes" && "$ptx_bytes" == "$host_bytes" ]] ||
    die "--gpu: faces_compare takes ${ptx_bytes:-?} bytes in the PTX, struct faces_kparams is ${host_bytes:-?}"
  gpu_args=(-G "$ptx")
  export STMPI_STREAM_BACKEND=cuda
fi

source "$here/bench_lib.sh"  # idle_percent, wait_for_idle

cpus=$(nproc)
b=$bind
[[ $np -gt $cpus ]] && b=none
echo "# Faces: $(date '+%F %T'), $(uname -n), $cpus CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: test/bench/faces_run.sh $orig_args" | sed 's/ *$//'
echo "# STMPI: build tree $builddir (libmpi.so.12 of $(date -r "$lib" '+%F %T'), sha1 $(sha1sum "$lib" | cut -c1-12), copied)"
echo "# $np ranks, binding $b, $repeats repeats, faces arguments: ${qflag:+$qflag }$extra_args; time limit per run ${run_timeout}s"
[[ $st_built -eq 0 ]] && echo "# st variant not built: $st_note"
[[ $gpu -eq 1 ]] && echo "# GPU mode: faces -G $ptx ($("$nvcc" --version | tail -1)), STMPI_STREAM_BACKEND=cuda; $(cat "$workdir/kernels_check.log")"
echo "# raw outputs: $workdir/out"

failures=()
nv=${#variant_list[@]}
read -r -a extra <<<"$extra_args"
for ((rep = 1; rep <= repeats; rep++)); do
  for s in "${size_list[@]}"; do
    for ((k = 0; k < nv; k++)); do
      v=${variant_list[$(((k + rep - 1) % nv))]}
      [[ "$v" == st && $st_built -eq 0 ]] && continue
      out="$workdir/out/$v-$s.$rep"
      wait_for_idle
      start=$(date +%s)
      timeout -k 5 "$run_timeout" "$workdir/stmpi/bin/mpiexec" -n "$np" -bind-to "$b" \
        "$exe" ${qflag:+"$qflag"} -v "$v" -s "$s" ${gpu_args[@]+"${gpu_args[@]}"} "${extra[@]}" >"$out.out" 2>"$out.err" </dev/null
      rc=$?
      if [[ $rc -ne 0 ]] || ! grep -q '^# faces: done' "$out.out"; then
        why="exit status $rc"
        [[ $rc -eq 124 || $rc -eq 137 ]] && why="timed out after ${run_timeout}s (status $rc)"
        [[ $rc -eq 0 ]] && why="exit status 0 but no '# faces: done' line"
        failures+=("$v, face $s B, repeat $rep: $why; see $out.out and $out.err")
        echo "FAIL: $v, face $s B, repeat $rep: $why" >&2
        tail -n 5 "$out.err" | sed 's/^/    /' >&2
      fi
      echo "# repeat $rep/$repeats: $v, face $s B: $(($(date +%s) - start))s (status $rc)" >&2
    done
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

cat "$workdir"/out/*.out 2>/dev/null | awk '
function median(list,   v, m, i, j, t) {
  m = split(list, v, " ")
  for (i = 2; i <= m; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
  if (m == 0) return ""
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
function fmt(x) { return x == "" ? "-" : (x >= 100 ? sprintf("%.0f", x) : (x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x))) }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
function addsize(s) { if (!(s in seen)) { seen[s] = 1; sizes[++ns] = s } }
/^# faces: [0-9]+ ranks as/ && !grid { grid = $0; sub(/^# faces: /, "", grid) }
/^# faces: GPU mode/ { gpu = 1 }
$1 == "faces" { addsize($3); t[$2, $3] = t[$2, $3] " " $4; spread[$2, $3] = spread[$2, $3] " " ($6 - $5) / $4 }
$1 == "cpu" { for (i = 4; i <= 6; i++) c[$2, $3, i] = c[$2, $3, i] " " $i }
$1 == "exec" { for (i = 4; i <= 8; i++) e[$2, $3, i] = e[$2, $3, i] " " $i }
$1 == "st" { for (i = 3; i <= 13; i++) st[$2, i] = st[$2, i] " " $i; hst = 1 }
$1 == "ststats" { hss = 1; for (i = 3; i <= NF; i++) ss[$2, i] = ss[$2, i] " " $i; if (NF > nss) nss = NF }
$1 == "ststats_names" { ssn = $0 }
END {
  # sizes in numeric order
  for (i = 2; i <= ns; i++) { x = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] + 0 > x + 0; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = x }
  print ""
  print "== Faces: time per step, us (slowest rank; median over repeats) =="
  print "   " grid
  printf "%10s %10s %10s %10s %8s %8s %8s %8s\n", "face B", "p2p", "rma", "st", "st/rma", "st/p2p", "rma/p2p", "spread"
  for (i = 1; i <= ns; i++) {
    s = sizes[i]; p = median(t["p2p", s]); r = median(t["rma", s]); q = median(t["st", s])
    sp = 0
    for (k in spread) { split(k, kk, SUBSEP); if (kk[2] == s) { m = median(spread[k]); if (m > sp) sp = m } }
    printf "%10s %10s %10s %10s %8s %8s %8s %7.0f%%\n", s, fmt(p), fmt(r), fmt(q), ratio(q, r), ratio(q, p), ratio(r, p), 100 * sp
  }
  print ""
  if (gpu) print "== CPU time per step on rank 0, us: in MPI calls / in cuLaunchKernel / in cuStreamSynchronize (GPU mode) =="
  else print "== CPU time per step on rank 0, us: in MPI calls / in MPIX_Host_stream_launch / in MPIX_Host_stream_synchronize =="
  printf "%10s %22s %22s %22s\n", "face B", "p2p", "rma", "st"
  for (i = 1; i <= ns; i++) {
    s = sizes[i]; line = sprintf("%10s", s)
    split("p2p rma st", vs, " ")
    for (j = 1; j <= 3; j++) {
      v = vs[j]
      cell = (c[v, s, 4] == "") ? "-" : fmt(median(c[v, s, 4])) " / " fmt(median(c[v, s, 5])) " / " fmt(median(c[v, s, 6]))
      line = line sprintf(" %22s", cell)
    }
    print line
  }
  print ""
  print "== Threads per step on rank 0: stream thread CPU us / main thread CPU us / stream thread sleeps / preemptions+yields / us in the 2 kernels =="
  if (gpu) print "   GPU mode: no host stream thread, no kernel clock: only main thread CPU is measured"
  printf "%10s %32s %32s %32s\n", "face B", "p2p", "rma", "st"
  for (i = 1; i <= ns; i++) {
    s = sizes[i]; line = sprintf("%10s", s)
    split("p2p rma st", vs, " ")
    for (j = 1; j <= 3; j++) {
      v = vs[j]
      cell = (e[v, s, 4] == "") ? "-" : fmt(median(e[v, s, 4])) " / " fmt(median(e[v, s, 5])) " / " fmt(median(e[v, s, 6])) " / " fmt(median(e[v, s, 7])) " / " fmt(median(e[v, s, 8]))
      line = line sprintf(" %32s", cell)
    }
    print line
  }
  if (hst) {
    print ""
    print "== st: where the time goes, us per step (rank 0) =="
    print "   CPU enqueue cost per epoch: post_stream, start, puts, complete_stream, wait_stream, the 2 kernel launches; enq = all of it"
    print "   sync = CPU blocked in the one " (gpu ? "cuStreamSynchronize" : "MPIX_Host_stream_synchronize") " of the inner loop, per step"
    if (gpu) print "   GPU mode: first, exec and tail are not measured (0)"
    print "   stream, per inner loop (not per step): first = enqueue start -> first increment runs; tail = last compare ends -> synchronize returns"
    print "   exec = first increment starts -> last compare ends, per step"
    printf "%10s %7s %7s %7s %7s %7s %7s %8s %8s %8s %8s %7s\n", "face B", "post", "start", "puts", "compl", "wait", "launch", "enq", "sync", "first", "exec", "tail"
    for (i = 1; i <= ns; i++) {
      s = sizes[i]
      if (st[s, 3] == "") continue
      line = sprintf("%10s", s)
      for (j = 3; j <= 13; j++) line = line sprintf(j >= 9 && j <= 12 ? " %8s" : " %7s", fmt(median(st[s, j])))
      print line
    }
  }
  if (hss) {
    print ""
    print "== st: library stream statistics per step (rank 0) =="
    if (ssn != "") { n = split(ssn, names, " "); line = sprintf("%10s", "face B"); for (j = 3; j <= n; j++) line = line sprintf(" %10s", names[j]); print line }
    for (i = 1; i <= ns; i++) {
      s = sizes[i]
      if (ss[s, 3] == "") continue
      line = sprintf("%10s", s)
      for (j = 3; j <= nss; j++) line = line sprintf(" %10s", fmt(median(ss[s, j])))
      print line
    }
  }
  print ""
  print "ratios below 1: st faster; spread = the largest (max - min) / median of a run over its repeats"
}'

if [[ ${#failures[@]} -gt 0 ]]; then
  echo ""
  echo "FAILED RUNS (${#failures[@]}):"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
exit 0
