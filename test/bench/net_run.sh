#!/bin/bash
# Benchmarks across 2 nodes made of network namespaces (maint/netns.sh): STMPI, Debian's
# MPICH (ch4:ucx; UCX's TCP transport between the nodes) and Open MPI (ob1, TCP BTL) in the
# same nodes, launched through maint/netns-launch (STMPI and MPICH by mpiexec.hydra, Open
# MPI by its mpirun). It brings the nodes up, runs test/bench/run.sh and rma_run.sh with
# --hosts (so the same builds, interleaving, repeats, medians, ratios and time limits) and
# tears the nodes down:
#   pingpong, 1 rank per node: 8 B one-way latency; 64 KiB and 4 MiB streaming bandwidth
#   rma_lat, 1 rank per node: 8 B put and get latency (lock_all + op + flush: "flush"; one
#            PSCW epoch: "pscw"), one
#            exclusive lock + 8 B put + unlock ("lock put"), lock + 8 B get + unlock
#   rma_lock, 4 ranks (2 per node): contended exclusive lock throughput on rank 0's lock
#   rma_overlap, 1 rank per node: seed 004's truly-passive overlap (the target computes
#            without MPI calls while the origin runs lock + put + unlock epochs)
# STMPI's column needs the library's network module: a 2-node probe (test/mpi/multinode/
# probe.c) runs first and, when it fails, STMPI is left out of the tables with the probe's
# error printed (and the exit status is 1).
#
# Usage: test/bench/net_run.sh [options]
#   --quick            shorter trials, 3 repeats (passed on)
#   --repeats N        repeats of each set (default 5, --quick 3)
#   --impls LIST       subset of stmpi,mpich,openmpi (default all)
#   --builddir DIR     STMPI build tree (default <source>/build)
#   --base-builddir DIR  the one-sided runs also run this previous STMPI build (STMPI-base)
#   --wait-idle PCT    passed on: wait for PCT % idle CPUs before each run
#   --workdir DIR      where the drivers' binaries and outputs go (default: new under /tmp)
#   --keep             leave the nodes up (maint/netns.sh down removes them)
# Environment: STMPI_BENCH_TIMEOUT (seconds per run, default 300), STMPI_NETNS_PREFIX
#   (default b<pid>), STMPI_BENCH_EXIT_GRACE (seconds a run that printed its results may
#   take to exit before it is stopped, default 15); every other variable reaches the ranks
#   (e.g. STMPI_OFI_PROVIDER).
# Needs root (namespaces). Exit status: 0 when every run of every implementation succeeded.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=$srcdir/build
pass_on=()
rma_pass_on=()
impls=stmpi,mpich,openmpi
workdir=""
keep=0
orig_args="$*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) pass_on+=(--quick) ;;
    --repeats|--wait-idle) pass_on+=("$1" "${2:?}"); shift ;;
    --impls) impls=${2:?}; shift ;;
    --builddir) builddir=${2:?}; shift ;;
    --base-builddir) rma_pass_on+=(--base-builddir "${2:?}"); shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "net_run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
export STMPI_BENCH_TIMEOUT=${STMPI_BENCH_TIMEOUT:-300}
export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-b$$}
[[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-net-bench.XXXXXX")
mkdir -p "$workdir" && workdir=$(cd "$workdir" && pwd)
netns=$srcdir/maint/netns.sh
launcher=$srcdir/maint/netns-launch

cleanup() { [[ $keep -eq 1 ]] || "$netns" down >/dev/null 2>&1; }
trap cleanup EXIT
trap 'exit 130' INT TERM
up=$("$netns" up 2 2>&1) || { echo "net_run.sh: cannot bring up the nodes: $up" >&2; exit 2; }
hosts=$("$netns" hosts)
subnet=$(cat "/run/stmpi-netns/$STMPI_NETNS_PREFIX/subnet").0/24
echo "# STMPI across nodes: $(date -u '+%F %T UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: test/bench/net_run.sh $orig_args" | sed 's/ *$//'
echo "# $up"
status=0

# The gate for STMPI: one ring + allreduce on the 2 nodes.
if [[ ",$impls," == *",stmpi,"* ]]; then
  probe=$workdir/probe
  if ! ${CC:-gcc} -O2 -I"$srcdir/include" "$srcdir/test/mpi/multinode/probe.c" -o "$probe" \
       -L"$builddir/.libs" -Wl,-rpath,"$builddir/.libs" -lmpi >"$workdir/probe.build.log" 2>&1; then
    why="the probe did not build against $builddir: $(head -3 "$workdir/probe.build.log")"
  else
    IFS=, read -r h1 h2 <<<"$hosts"
    timeout -k 5 60 mpiexec.hydra -hosts "$h1,$h2" -launcher ssh -launcher-exec "$launcher" -n 2 \
      "$probe" >"$workdir/probe.log" 2>&1 </dev/null
    rc=$?
    why=""
    grep -q "No Errors" "$workdir/probe.log" && [[ $rc -eq 0 ]] ||
      why="the 2-node probe failed (exit status $rc): $(grep -v '^\s*$' "$workdir/probe.log" | head -2 | tr '\n' ' ')"
  fi
  if [[ -n "$why" ]]; then
    echo "# STMPI left out: $why"
    impls=$(echo ",$impls," | sed 's/,stmpi,/,/; s/^,//; s/,$//')
    status=1
  fi
fi
[[ -n "$impls" ]] || { echo "net_run.sh: no implementation left to run" >&2; exit 1; }

net=(--hosts "$hosts" --launcher-exec "$launcher" --subnet "$subnet" --builddir "$builddir")
echo
echo "######## point to point: 1 rank per node"
bash "$here/run.sh" "${net[@]}" "${pass_on[@]}" --impls "$impls" --bench pingpong \
  --pingpong-args "-s 8 -b 64K,4M" --workdir "$workdir/p2p" || status=1
echo
echo "######## one-sided: latency and overlap 1 rank per node, lock contention 4 ranks on 2 nodes"
bash "$here/rma_run.sh" "${net[@]}" "${pass_on[@]}" "${rma_pass_on[@]}" --impls "$impls" \
  --bench rma_lat,rma_lock,rma_overlap --lock-ranks 4 \
  --lat-args "-s 8 -b none -y pscw,lock,flush -o put,get" --lock-args "-M exclusive" \
  --workdir "$workdir/rma" || status=1
stopped=$(grep -l "hung in MPI_Finalize" "$workdir"/p2p/out/*.err "$workdir"/rma/out/*.err 2>/dev/null |
          xargs -r -n1 basename | sed 's/\.err$//' | paste -sd' ')
echo
[[ -n "$stopped" ]] && echo "# runs stopped after their results because they did not exit (hung in MPI_Finalize): $stopped"
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
