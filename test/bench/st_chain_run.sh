#!/bin/bash
# st_chain across 2 nodes made of network namespaces (maint/netns.sh), one rank per node,
# under MPICH's Hydra (maint/netns-launch), once per libfabric provider: one triggered
# chain (N x 4 KiB writes + a signal, N = 1, 4, 16) per trigger path (native FI_TRIGGER,
# deferred FI_QUEUE_WORK) against the provider's plain writes + flush (what the software
# trigger engine issues), interleaved in one run. Prints st_chain's lines
#   chain PROVIDER PATH N post_us_per_op rtt_us rtt_vs_plain
# and the load (uptime) before and after each provider.
# Usage: test/bench/st_chain_run.sh [--providers 'sockets|tcp;ofi_rxm'] [-r REPEATS] [-i CHAINS]
# Environment: BUILDDIR (default <source>/build), STMPI_NETNS_PREFIX (default c<pid>),
#   STMPI_BENCH_TIMEOUT (seconds per provider, default 300). Needs root.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=$(cd "${BUILDDIR:-$srcdir/build}" && pwd)
providers="sockets|tcp;ofi_rxm"
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --providers) providers=${2:?}; shift ;;
    -r|-i) args+=("$1" "${2:?}"); shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "st_chain_run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-c$$}
limit=${STMPI_BENCH_TIMEOUT:-300}
netns=$srcdir/maint/netns.sh
launch=$srcdir/maint/netns-launch
(cd "$builddir" && make -s test/bench/st_chain) || { echo "st_chain_run.sh: build failed" >&2; exit 1; }
command -v mpiexec.hydra >/dev/null || { echo "st_chain_run.sh: mpiexec.hydra (Debian mpich) missing" >&2; exit 1; }
cleanup() { "$netns" down >/dev/null 2>&1; }
trap cleanup EXIT
trap 'exit 130' INT TERM
"$netns" up 2 >/dev/null || { echo "st_chain_run.sh: netns.sh up 2 failed" >&2; exit 1; }
IFS=, read -r -a hosts <<<"$("$netns" hosts)"
status=0
IFS='|' read -r -a list <<<"$providers"
for prov in "${list[@]}"; do
  echo "# provider $prov, load before: $(uptime)"
  timeout -k 5 "$limit" mpiexec.hydra -hosts "${hosts[0]}:1,${hosts[1]}:1" -launcher ssh \
    -launcher-exec "$launch" -genv STMPI_OFI_PROVIDER "$prov" -n 2 \
    "$builddir/test/bench/st_chain" "${args[@]}" </dev/null || { echo "# $prov: failed ($?)"; status=1; }
  echo "# provider $prov, load after: $(uptime)"
done
exit $status
