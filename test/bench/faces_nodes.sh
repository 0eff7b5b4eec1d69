#!/bin/bash
# Faces (test/bench/faces.c) across nodes made of network namespaces (maint/netns.sh)
# under MPICH's Hydra (maint/netns-launch): every layout (NODES x RANKS per node), every
# libfabric provider, and per provider every trigger path it allows times every throttling
# policy. One run is one Hydra job of `faces -v p2p,rma,st` (variant order rotating from run
# to run) over all face sizes, with STMPI_ST_TRIGGER and STMPI_ST_THROTTLE set for it, so
# each st time has its active-RMA and point-to-point times from the same job; faces verifies
# every received element and aborts on a mismatch. The whole set of runs is repeated
# (interleaved); a cell is the median over the repeats of the run's ratio (itself from
# medians over faces' own repeats). Prints, per layout and provider:
#   NODESxRANKS PROVIDER PATH POLICY  face B  st_us  rma_us  p2p_us  ST/RMA  ST/P2P
# then a summary per path and policy (geometric mean of ST/RMA and ST/P2P over the sizes), and
# where the st time goes on rank 0 (faces' own breakdown, medians): CPU us per step in all the
# ST calls and in the MPI_Put calls (which post the triggered operations), the stream's
# execution per step, and the delay until the first kernel of an inner loop runs.
#
# Usage: test/bench/faces_nodes.sh [options]
#   --quick              faces -q -m 1 -i 10 (10 timed steps, 3 repeats inside a run),
#                        1 repeat, sizes 8,4K,64K (2x4 and 4x2: about 30 minutes at load 20 on 2 cores)
#   --repeats N          repeats of the whole set (default 3; --quick 1)
#   --layouts LIST       NODESxRANKS, comma separated (default 2x4,4x2)
#   --providers LIST     '|'-separated STMPI_OFI_PROVIDER values on the ofi module, or "ucx"
#                        for the UCX module (default "sockets|tcp;ofi_rxm|ucx")
#   --paths LIST         trigger paths to try (default native,deferred,software; a path the
#                        provider lacks is left out after a probe run, and said so)
#   --policies LIST      throttling policies (default application,static,adaptive)
#   --throttle           static against adaptive with budgets small enough to throttle:
#                        --policies static,adaptive, STMPI_ST_COUNTERS=4 (and
#                        STMPI_ST_TRIGGERED_OPS=256) unless --env sets them; adds the table
#                        "static vs adaptive" (st us per step of each, adaptive/static per
#                        repeat, medians) and rank 0's throttle statistics of each run
#                        (STMPI_ST_PRINT_STATS=yes: stalls and ms stalled, all windows)
#   --sizes LIST         bytes per face (default 8,64,512,4K,16K,64K)
#   --args "A"           more arguments for faces (e.g. "-i 50")
#   --env NAME=VALUE     passed to every rank (repeatable), e.g. --env STMPI_ST_COUNTERS=16
#   --workdir DIR        where the binary and raw outputs go (default: a new directory
#                        under ${TMPDIR:-/tmp}); it is kept
#   --report DIR         only print the tables of an earlier run's workdir DIR
# Environment: BUILDDIR (default <source>/build), CC (default gcc), STMPI_NETNS_PREFIX
#   (default f<pid>), STMPI_BENCH_TIMEOUT (seconds per run, default 240). Needs root.
# Exit status: 0 when every run succeeded, 1 when some run failed (listed at the end),
# 2 for usage or setup errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=$(cd "${BUILDDIR:-$srcdir/build}" 2>/dev/null && pwd) || { echo "faces_nodes.sh: no build tree" >&2; exit 2; }
quick=0
repeats=""
layouts="2x4,4x2"
providers="sockets|tcp;ofi_rxm|ucx"
paths="native,deferred,software"
policies="application,static,adaptive"
throttle=0
sizes=""
extra_args=""
extra_env=()
workdir=""
orig_args="$*"
report=""

usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "faces_nodes.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --repeats) repeats=${2:?}; shift ;;
    --layouts) layouts=${2:?}; shift ;;
    --providers) providers=${2:?}; shift ;;
    --paths) paths=${2:?}; shift ;;
    --policies) policies=${2:?}; shift ;;
    --throttle) throttle=1 ;;
    --sizes) sizes=${2:?}; shift ;;
    --args) extra_args=${2?}; shift ;;
    --env) [[ "${2:-}" == *=* ]] || die "--env wants NAME=VALUE"; extra_env+=("$2"); shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --report) report=${2:?}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
tables() {  # WORKDIR
# Tables: one file per run; its name says layout, provider, path, policy, repeat.
for f in "$1"/out/[0-9]*.out; do
  [[ -e "$f" ]] || continue
  b=$(basename "$f" .out)
  IFS=. read -r layout prov path policy rep <<<"$b"
  awk -v key="$layout ${prov//+/;} $path $policy" '$1 == "faces" { print key, $2, $3, $4 }
    $1 == "st" { print key, "bd", $2, $9, $5, $12, $11 }' "$f"
  # Rank 0 throttle statistics of the run (STMPI_ST_PRINT_STATS=yes, every st window).
  err=${f%.out}.err
  [[ $policy == static || $policy == adaptive ]] && [[ -e "$err" ]] &&
    awk -v key="$layout ${prov//+/;} $path $policy" '
      /^STMPI st stats \(rank 0,.*triggered ops/ {
        for (i = 1; i <= NF; i++) {
          if ($i == "throttle" && $(i + 1) == "stalls,") st += $(i - 1)
          if ($i == "ms" && $(i + 1) == "stalled,") ms += $(i - 1)
        }
        n++
      }
      END { if (n) print key, "th", "all", st, ms }' "$err"
done | awk '
function median(list,   v, m, i, j, t) {
  m = split(list, v, " ")
  for (i = 2; i <= m; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
  return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : (x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x)) }
$5 == "bd" {
  key = $1 " " $2 " " $3 " " $4; s = $6
  for (i = 7; i <= 10; i++) bd[key, s, i] = bd[key, s, i] " " $i
  next
}
$5 == "th" {
  key = $1 " " $2 " " $3 " " $4
  th[key, 1] = th[key, 1] " " $7; th[key, 2] = th[key, 2] " " $8
  next
}
{
  key = $1 " " $2 " " $3 " " $4; v = $5; s = $6
  if (!(key in seenk)) { seenk[key] = 1; keys[++nk] = key }
  if (!(s in seens)) { seens[s] = 1; sizes[++ns] = s }
  run[key, s, v, ++cnt[key, s, v]] = $7
}
END {
  for (i = 2; i <= ns; i++) { x = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] + 0 > x + 0; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = x }
  printf "\n== Faces across nodes: us per step (slowest rank), ratios per run, medians over repeats ==\n"
  printf "%-6s %-12s %-9s %-12s %8s %9s %9s %9s %7s %7s\n", "layout", "provider", "path", "policy", "face B", "st", "rma", "p2p", "ST/RMA", "ST/P2P"
  for (k = 1; k <= nk; k++) {
    key = keys[k]; split(key, kk, " ")
    lr = 0; lp = 0; nr = 0
    for (i = 1; i <= ns; i++) {
      s = sizes[i]; n = cnt[key, s, "st"]
      if (n == 0) continue
      ts = tr = tp = rr = rp = ""
      for (r = 1; r <= n; r++) {
        a = run[key, s, "st", r]; b = run[key, s, "rma", r]; c = run[key, s, "p2p", r]
        ts = ts " " a; tr = tr " " b; tp = tp " " c
        if (b > 0) rr = rr " " a / b
        if (c > 0) rp = rp " " a / c
      }
      mr = median(rr); mp = median(rp)
      printf "%-6s %-12s %-9s %-12s %8s %9s %9s %9s %7.2f %7.2f\n", kk[1], kk[2], kk[3], kk[4], s, fmt(median(ts)), fmt(median(tr)), fmt(median(tp)), mr, mp
      lr += log(mr); lp += log(mp); nr++
      sum[kk[1] " " kk[2] " " kk[3] " " kk[4]] = sprintf("%.2f %.2f", exp(lr / nr), exp(lp / nr))
    }
  }
  printf "\n== Summary: geometric mean over face sizes of ST/RMA and ST/P2P (below 1: ST faster) ==\n"
  printf "%-6s %-12s %-9s %-12s %7s %7s\n", "layout", "provider", "path", "policy", "ST/RMA", "ST/P2P"
  for (k = 1; k <= nk; k++) {
    key = keys[k]; split(key, kk, " "); split(sum[key], g, " ")
    printf "%-6s %-12s %-9s %-12s %7s %7s\n", kk[1], kk[2], kk[3], kk[4], g[1], g[2]
  }
  printf "\n== st on rank 0, us per step (medians): CPU in the ST calls (enq) and in MPI_Put (post), stream execution (exec); first = start of an inner loop -> its first kernel ==\n"
  printf "%-6s %-12s %-9s %-12s %8s %9s %9s %9s %9s\n", "layout", "provider", "path", "policy", "face B", "enq", "post", "exec", "first"
  for (k = 1; k <= nk; k++) {
    key = keys[k]; split(key, kk, " ")
    for (i = 1; i <= ns; i++) {
      s = sizes[i]
      if (bd[key, s, 7] == "") continue
      printf "%-6s %-12s %-9s %-12s %8s %9s %9s %9s %9s\n", kk[1], kk[2], kk[3], kk[4], s, fmt(median(bd[key, s, 7])), fmt(median(bd[key, s, 8])), fmt(median(bd[key, s, 9])), fmt(median(bd[key, s, 10]))
    }
  }
  # Static against adaptive: the same layout, provider and path under both policies.
  header = 0
  for (k = 1; k <= nk; k++) {
    key = keys[k]; split(key, kk, " ")
    if (kk[4] != "static") continue
    akey = kk[1] " " kk[2] " " kk[3] " adaptive"
    if (!(akey in seenk)) continue
    if (!header) {
      printf "\n== static vs adaptive: st us per step (medians), adaptive/static per repeat (median; below 1: adaptive faster); rank 0 throttle stalls and ms stalled in a whole run (all sizes and faces repeats, medians over repeats) ==\n"
      printf "%-6s %-12s %-9s %8s %9s %9s %7s %9s %9s %9s %9s\n", "layout", "provider", "path", "face B", "static", "adaptive", "A/S", "st stall", "st ms", "ad stall", "ad ms"
      header = 1
    }
    ths = th[key, 1] == "" ? "-" : fmt(median(th[key, 1])); thms = th[key, 2] == "" ? "-" : fmt(median(th[key, 2]))
    tha = th[akey, 1] == "" ? "-" : fmt(median(th[akey, 1])); thma = th[akey, 2] == "" ? "-" : fmt(median(th[akey, 2]))
    for (i = 1; i <= ns; i++) {
      s = sizes[i]; n = cnt[key, s, "st"]; m = cnt[akey, s, "st"]
      if (n == 0 || m == 0) continue
      ts = ta = q = ""
      for (r = 1; r <= n; r++) ts = ts " " run[key, s, "st", r]
      for (r = 1; r <= m; r++) ta = ta " " run[akey, s, "st", r]
      for (r = 1; r <= (n < m ? n : m); r++) if (run[key, s, "st", r] > 0) q = q " " run[akey, s, "st", r] / run[key, s, "st", r]
      printf "%-6s %-12s %-9s %8s %9s %9s %7.2f %9s %9s %9s %9s\n", kk[1], kk[2], kk[3], s, fmt(median(ts)), fmt(median(ta)), median(q), ths, thms, tha, thma
    }
  }
}'
}

if [[ -n "$report" ]]; then
  [[ -d "$report/out" ]] || die "--report: no $report/out"
  tables "$report"
  exit 0
fi
if [[ $throttle -eq 1 ]]; then
  policies="static,adaptive"
  [[ " ${extra_env[*]} " == *" STMPI_ST_COUNTERS="* ]] || extra_env+=(STMPI_ST_COUNTERS=4)
  [[ " ${extra_env[*]} " == *" STMPI_ST_TRIGGERED_OPS="* ]] || extra_env+=(STMPI_ST_TRIGGERED_OPS=256)
  extra_env+=(STMPI_ST_PRINT_STATS=yes)
fi
[[ -z "$repeats" ]] && repeats=$((quick ? 1 : 3))
[[ -z "$sizes" ]] && sizes=$([[ $quick -eq 1 ]] && echo 8,4K,64K || echo 8,64,512,4K,16K,64K)
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || die "--repeats wants a positive number"
[[ "$layouts" =~ ^[1-9][0-9]*x[1-9][0-9]*(,[1-9][0-9]*x[1-9][0-9]*)*$ ]] || die "--layouts wants e.g. 2x4,4x2"
[[ "$sizes" =~ ^[0-9]+[KkMm]?(,[0-9]+[KkMm]?)*$ ]] || die "--sizes wants a list like 8,64,4K"
IFS=, read -r -a layout_list <<<"$layouts"
IFS='|' read -r -a provider_list <<<"$providers"
IFS=, read -r -a path_list <<<"$paths"
IFS=, read -r -a policy_list <<<"$policies"
for p in "${path_list[@]}"; do [[ "$p" =~ ^(native|deferred|software)$ ]] || die "unknown path '$p'"; done
for p in "${policy_list[@]}"; do [[ "$p" =~ ^(application|static|adaptive)$ ]] || die "unknown policy '$p'"; done
limit=${STMPI_BENCH_TIMEOUT:-240}
qflag=""
[[ $quick -eq 1 ]] && qflag="-q"
[[ $quick -eq 1 ]] && extra_args="-m 1 -i 10 $extra_args"
read -r -a extra <<<"$extra_args"
command -v mpiexec.hydra >/dev/null || die "mpiexec.hydra (Debian mpich) missing"
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces)"

if [[ -z "$workdir" ]]; then
  workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-faces-nodes.XXXXXX") || die "cannot create a work directory"
fi
mkdir -p "$workdir/out" "$workdir/lib" || die "cannot use $workdir"
workdir=$(cd "$workdir" && pwd)
rm -f "$workdir"/out/*
# A copy of the library, so that a rebuild during the runs cannot mix libraries.
lib=$builddir/.libs/libmpi.so.12
[[ -e "$lib" ]] || die "$lib missing (build STMPI first)"
cp -L "$lib" "$workdir/lib/libmpi.so.12" || die "cannot copy $lib"
ln -sf libmpi.so.12 "$workdir/lib/libmpi.so"
ln -sf libmpi.so.12 "$workdir/lib/libmpich.so.12"  # the soname programs need
exe=$workdir/faces
${CC:-gcc} -O2 -Wall -I"$srcdir/include" -I"$srcdir/test/mpi/util" -o "$exe" "$here/faces.c" "$here/faces_gpu.c" \
  -L"$workdir/lib" -Wl,-rpath,"$workdir/lib" -Wl,--disable-new-dtags -lmpi -lm -ldl >"$workdir/build.log" 2>&1 ||
  { cat "$workdir/build.log" >&2; die "building faces failed"; }

export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-f$$}
netns=$srcdir/maint/netns.sh
launch=$srcdir/maint/netns-launch
maxnodes=0
for l in "${layout_list[@]}"; do n=${l%x*}; [[ $n -gt $maxnodes ]] && maxnodes=$n; done
cleanup() { "$netns" down >/dev/null 2>&1; }
trap cleanup EXIT
trap 'exit 130' INT TERM
"$netns" up "$maxnodes" >"$workdir/netns.log" 2>&1 || { cat "$workdir/netns.log" >&2; die "netns.sh up $maxnodes failed"; }
IFS=, read -r -a hosts <<<"$("$netns" hosts)"

# run LAYOUT PROVIDER PATH POLICY VARIANTS OUT: one Hydra job; sets $status.
run() {
  local layout=$1 prov=$2 path=$3 policy=$4 variants=$5 out=$6 nodes per hostlist="" k e genv=()
  nodes=${layout%x*}; per=${layout#*x}
  if [[ "$prov" == ucx ]]; then genv=(-genv STMPI_NETMOD ucx)
  else genv=(-genv STMPI_NETMOD ofi -genv STMPI_OFI_PROVIDER "$prov"); fi
  for ((k = 0; k < nodes; k++)); do hostlist+=${hostlist:+,}${hosts[$k]}:$per; done
  for e in "${extra_env[@]}"; do genv+=(-genv "${e%%=*}" "${e#*=}"); done
  timeout -k 5 "$limit" mpiexec.hydra -hosts "$hostlist" -launcher ssh -launcher-exec "$launch" \
    -genv STMPI_ST_TRIGGER "$path" -genv STMPI_ST_THROTTLE "$policy" \
    "${genv[@]}" -n $((nodes * per)) "$exe" ${qflag:+"$qflag"} -v "$variants" -s "$sizes" "${extra[@]}" \
    >"$out.out" 2>"$out.err" </dev/null
  status=$?
  [[ $status -eq 0 ]] && ! grep -q '^# faces: done' "$out.out" && status=98
}

echo "# Faces across nodes: $(date -u '+%F %T') UTC, $(uname -n), $(nproc) CPUs"
echo "# command: test/bench/faces_nodes.sh $orig_args" | sed 's/ *$//'
echo "# library: $lib ($(date -r "$lib" '+%F %T'), sha1 $(sha1sum "$lib" | cut -c1-12)), copied"
echo "# faces ${qflag:+$qflag }-s $sizes ${extra_args}; $repeats repeats; time limit per run ${limit}s; env: ${extra_env[*]:-none}"
echo "# raw outputs: $workdir/out"
echo "# load before: $(uptime)"

# Which paths each provider has: a probe job per provider and NIC path (st only, 1 size).
declare -A configs  # provider -> "path:policy ..."
failures=()
for prov in "${provider_list[@]}"; do
  list=""
  for path in "${path_list[@]}"; do
    if [[ $path != software ]]; then
      out=$workdir/out/probe-${prov//;/+}-$path
      saved=$sizes; sizes=8
      run "2x1" "$prov" "$path" adaptive st "$out"
      sizes=$saved
      if [[ $status -ne 0 ]]; then
        if grep -q 'STMPI_ST_TRIGGER' "$out.out" "$out.err"; then
          echo "# $prov: no $path path: $(grep -h 'STMPI_ST_TRIGGER' "$out.out" "$out.err" | head -1 | cut -c1-160)"
        else
          echo "# $prov: the $path probe failed (status $status), left out; see $out.err"
          failures+=("probe $prov $path: status $status; see $out.err")
        fi
        continue
      fi
    fi
    for policy in "${policy_list[@]}"; do list+=" $path:$policy"; done
  done
  configs[$prov]=$list
  echo "# $prov: runs ${list:- none}"
done

variants=(p2p rma st)
n=0
for ((rep = 1; rep <= repeats; rep++)); do
  for layout in "${layout_list[@]}"; do
    for prov in "${provider_list[@]}"; do
      for cfg in ${configs[$prov]}; do
        path=${cfg%%:*}; policy=${cfg#*:}
        k=$((n % 3)); n=$((n + 1))
        order="${variants[$k]},${variants[$(((k + 1) % 3))]},${variants[$(((k + 2) % 3))]}"
        out=$workdir/out/$layout.${prov//;/+}.$path.$policy.$rep
        start=$(date +%s)
        run "$layout" "$prov" "$path" "$policy" "$order" "$out"
        echo "# repeat $rep/$repeats $layout $prov $path $policy ($order): $(($(date +%s) - start))s, status $status, load $(cut -d' ' -f1 /proc/loadavg)" >&2
        if [[ $status -ne 0 ]]; then
          why="exit status $status"
          [[ $status -eq 124 || $status -eq 137 ]] && why="timed out after ${limit}s"
          [[ $status -eq 98 ]] && why="no '# faces: done' line"
          failures+=("$layout $prov $path $policy repeat $rep: $why; see $out.out, $out.err")
          tail -n 3 "$out.err" | sed 's/^/    /' >&2
        fi
      done
    done
  done
done
echo "# load after: $(uptime)"

tables "$workdir"

if [[ ${#failures[@]} -gt 0 ]]; then
  echo ""
  echo "FAILED RUNS (${#failures[@]}):"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
exit 0
