#!/bin/bash
# One message's cost per layer between 2 nodes made of network namespaces (maint/netns.sh),
# 1 rank per node under Hydra, all in one run, interleaved:
#   net_layers (this directory): bare libfabric (fi_inject, fi_send, the rendezvous skeleton
#              8 B send + fi_read + 8 B send) and the network module (Ofi send/poll, or
#              expose + RTS + pull + FIN), on STMPI_OFI_PROVIDER (default: the first offered)
#   pingpong:  MPI_Send/MPI_Recv ping-pong through STMPI (adds protocol and MPI layer) and,
#              for reference, through Debian's MPICH (UCX) in the same nodes
# Prints every repeat's lines, then the medians of each row over the repeats and the
# per-layer split (protocol+MPI = STMPI pingpong - transport; transport = transport -
# provider_send or provider_rndv) with the load before and after.
#   --ucx:     the same on UCX: ucx_layers (bare UCP active messages ucp_am_send_nbx, the
#              rendezvous skeleton 8 B AM + ucp_get_nbx + 8 B AM, and the UCX module) in place
#              of net_layers, and STMPI's pingpong with STMPI_NETMOD=ucx
# Usage: test/bench/net_layers_run.sh [-r REPEATS] [-s SIZES] [--no-mpich] [--ucx]
# Environment: BUILDDIR (default <source>/build), STMPI_NETNS_PREFIX (default l<pid>),
#   STMPI_BENCH_TIMEOUT (seconds per run, default 120); other variables reach the ranks
#   (STMPI_OFI_PROVIDER, STMPI_OFI_EAGER_SIZE, ...). Needs root.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=$(cd "${BUILDDIR:-$srcdir/build}" && pwd)
repeats=5
sizes=8,64K
mpich=1
layers=net_layers
stmpi_env=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -r) repeats=${2:?}; shift ;;
    -s) sizes=${2:?}; shift ;;
    --no-mpich) mpich=0 ;;
    --ucx) layers=ucx_layers; stmpi_env=(-env STMPI_NETMOD ucx) ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "net_layers_run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-l$$}
limit=${STMPI_BENCH_TIMEOUT:-120}
netns=$srcdir/maint/netns.sh
launch=$srcdir/maint/netns-launch
work=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-layers.XXXXXX")
(cd "$builddir" && make -s "test/bench/$layers") || { echo "net_layers_run.sh: build failed" >&2; exit 1; }
${CC:-gcc} -O2 -I"$srcdir/include" -o "$work/pingpong.stmpi" "$here/pingpong.c" \
  -L"$builddir/.libs" -Wl,-rpath,"$builddir/.libs" -lmpi || exit 1
[[ $mpich -eq 1 ]] && { mpicc.mpich -O2 -o "$work/pingpong.mpich" "$here/pingpong.c" || exit 1; }
cleanup() { "$netns" down >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
"$netns" up 2 >/dev/null || { echo "net_layers_run.sh: netns.sh up 2 failed" >&2; exit 1; }
IFS=, read -r -a hosts <<<"$("$netns" hosts)"
hydra=(mpiexec.hydra -hosts "${hosts[0]}:1,${hosts[1]}:1" -launcher ssh -launcher-exec "$launch" -n 2)
echo "# net_layers_run.sh -r $repeats -s $sizes ($layers), $(date -u '+%F %T UTC'), $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
run() {  # label command...; a failed run is reported and marked in $work/failed
  local label=$1 rc; shift
  timeout -k 5 "$limit" "${hydra[@]}" "$@" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  sed -n "s/^\(layer\|lat\|call\) /$label &/p" "$work/out"
  [[ $rc -eq 0 ]] || { echo "# $label failed ($rc): $(head -3 "$work/err")"; touch "$work/failed"; }
}
for ((rep = 1; rep <= repeats; rep++)); do
  run net "$builddir/test/bench/$layers" -r 3 -i 100 -s "$sizes"
  run stmpi "${stmpi_env[@]}" "$work/pingpong.stmpi" -t 3 -m 200 -s "$sizes" -b none
  [[ $mpich -eq 1 ]] && run mpich "$work/pingpong.mpich" -t 3 -m 200 -s "$sizes" -b none
done | tee "$work/all"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ -e "$work/failed" ]] && status=1
# Medians over repeats: "net layer NAME SIZE US ..." and "IMPL lat SIZE US ...".
awk '
  function med(key,   n, i, j, t, a) {
    n = split(vals[key], a, " ");
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  $2 == "layer" { k = $3 " " $4; vals[k] = vals[k] " " $5; sz[$4] = 1 }
  $2 == "lat"   { k = $1 " " $3; vals[k] = vals[k] " " $4; sz[$3] = 1 }
  END {
    printf "\n%-8s %10s %10s %10s %10s %10s %10s | %9s %9s %9s\n", "size", "inject", "send", "rndv", "module", "STMPI", "MPICH", "provider", "transport", "proto+MPI"
    for (s in sz) {
      inj = ("provider_inject " s) in vals ? med("provider_inject " s) : "-"
      snd = med("provider_send " s)
      rnd = ("provider_rndv " s) in vals ? med("provider_rndv " s) : "-"
      mod = med("transport " s)
      st = ("stmpi " s) in vals ? med("stmpi " s) : "-"
      mp = ("mpich " s) in vals ? med("mpich " s) : "-"
      prov = (rnd != "-") ? rnd : (inj != "-" ? inj : snd)
      printf "%-8s %10s %10s %10s %10s %10s %10s | %9.2f %9.2f %9s\n", s, inj, snd, rnd, mod, st, mp, prov, mod - prov, (st != "-") ? sprintf("%.2f", st - mod) : "-"
    }
  }' "$work/all"
exit $status
