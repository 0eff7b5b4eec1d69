#!/bin/bash
# Collective latency (coll_bench.c) and nonblocking overlap (coll_overlap.c)
# of STMPI against Debian's MPICH and Open MPI, run the same way: each
# implementation's own compiler wrapper and launcher, runs interleaved (the
# order rotates every repeat), the whole set repeated; a cell is the median
# over repeats of a run's value (itself a median over trials). Prints
# microseconds per call and the ratio STMPI / best peer.
#
# Usage: test/bench/coll_run.sh [--quick] [--repeats N] [--ranks 2,4,8]
#        [--impls stmpi,mpich,openmpi] [--builddir DIR] [--workdir DIR]
#        [--no-overlap] [--overlap-only] [--overlap-args "ARGS"] [--bench-args "ARGS"]
#   --overlap-only        only coll_overlap (MPI_Iallreduce of 1 MiB by default), for
#                         the overlap % of each implementation side by side
#   --overlap-args "A"    extra arguments for coll_overlap (-b bytes, -c coll, -i iters,
#                         -s us between MPI_Test calls)
#   --bench-args "A"      extra arguments for coll_bench (-c colls, -s sizes)
# Each cell prints the median over repeats; the last two columns are the ratio
# STMPI / best peer of the medians and of the fastest repeats (the run least
# disturbed by other load), since the repeats' spread is wide on a loaded machine.
# Environment: STMPI_BENCH_TIMEOUT (seconds per run, default 300).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir="$srcdir/build"
repeats=3
ranks=2,4,8
impls_wanted=stmpi,mpich,openmpi
workdir=""
qflag=""
overlap=1
bench=1
overlap_args="-i 10"
bench_args=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) qflag=-q ;;
    --repeats) repeats=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --impls) impls_wanted=${2:?}; shift ;;
    --builddir) builddir=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --no-overlap) overlap=0 ;;
    --overlap-only) bench=0 ;;
    --overlap-args) overlap_args=${2?}; shift ;;
    --bench-args) bench_args=${2?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "coll_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
timeout_s=${STMPI_BENCH_TIMEOUT:-300}
[[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-coll-bench.XXXXXX")
mkdir -p "$workdir/bin" "$workdir/stmpi"
builddir=$(cd "$builddir" && pwd) || exit 2
wanted() { [[ ",$impls_wanted," == *",$1,"* ]]; }
impls=()
if wanted stmpi; then
  cp -L "$builddir/.libs/libmpi.so.12" "$workdir/stmpi/libmpi.so.12" || exit 2
  ln -sf libmpi.so.12 "$workdir/stmpi/libmpi.so"
  ln -sf libmpi.so.12 "$workdir/stmpi/libmpich.so.12"  # the soname programs need
  cp -L "$builddir/mpiexec" "$workdir/stmpi/mpiexec" || exit 2
  impls+=(stmpi)
fi
wanted mpich && command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null && impls+=(mpich)
wanted openmpi && command -v mpicc.openmpi >/dev/null && command -v mpiexec.openmpi >/dev/null && impls+=(openmpi)
for b in coll_bench coll_overlap; do
  for impl in "${impls[@]}"; do
    exe="$workdir/bin/$b.$impl"
    case $impl in
      stmpi) ${CC:-gcc} -O2 -I"$srcdir/include" -o "$exe" "$here/$b.c" -L"$workdir/stmpi" \
               -Wl,-rpath,"$workdir/stmpi" -Wl,--disable-new-dtags -lmpi ;;
      mpich) mpicc.mpich -O2 -o "$exe" "$here/$b.c" ;;
      openmpi) mpicc.openmpi -O2 -o "$exe" "$here/$b.c" ;;
    esac || { echo "coll_run.sh: building $b for $impl failed" >&2; exit 2; }
  done
done
launch() {  # impl np exe args...
  local impl=$1 np=$2; shift 2
  case $impl in
    stmpi) timeout "$timeout_s" "$workdir/stmpi/mpiexec" -n "$np" "$@" ;;
    mpich) timeout "$timeout_s" mpiexec.mpich -n "$np" "$@" ;;
    openmpi) timeout "$timeout_s" mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$np" "$@" ;;
  esac
}
data="$workdir/results.txt"
: >"$data"
echo "# $(date -u '+%F %T') uptime: $(uptime)"
IFS=, read -r -a rank_list <<<"$ranks"
for ((rep = 0; rep < repeats; rep++)); do
  for np in "${rank_list[@]}"; do
    for ((k = 0; k < ${#impls[@]}; k++)); do
      impl=${impls[$(((k + rep) % ${#impls[@]}))]}
      if [[ $bench -eq 1 ]]; then
        # shellcheck disable=SC2086  # word splitting of the extra arguments is wanted
        launch "$impl" "$np" "$workdir/bin/coll_bench.$impl" $qflag $bench_args \
          2>"$workdir/err.$impl.$np.$rep" |
          sed "s/^/$impl $np /" >>"$data" || echo "# coll_bench $impl np=$np failed" >&2
      fi
      if [[ $overlap -eq 1 ]]; then
        # shellcheck disable=SC2086  # word splitting of the extra arguments is wanted
        launch "$impl" "$np" "$workdir/bin/coll_overlap.$impl" $overlap_args \
          2>>"$workdir/err.$impl.$np.$rep" |
          awk -v i="$impl" -v n="$np" '{print i, n, $1 "_overlap_pct", $2, $NF}' >>"$data"
        echo "# $impl np=$np overlap run at load $(cut -d' ' -f1 /proc/loadavg)" >>"$workdir/load.txt"
      fi
    done
  done
done
echo "# finished $(date -u '+%F %T') uptime: $(uptime)"
python3 - "$data" "${impls[@]}" <<'PY'
import sys, statistics, collections
path, impls = sys.argv[1], sys.argv[2:]
vals = collections.defaultdict(list)
for line in open(path):
    f = line.split()
    if len(f) == 5:
        vals[(f[0], int(f[1]), f[2], int(f[3]))].append(float(f[4]))
keys = sorted({k[1:] for k in vals}, key=lambda k: (k[1], k[0], k[2]))
print('%-24s %3s %8s ' % ('collective', 'np', 'bytes') + ' '.join('%10s' % i for i in impls)
      + '  ratio(median) ratio(fastest)')
def ratio(stat, pct):
    peers = [stat[i] for i in stat if i != 'stmpi']
    if 'stmpi' not in stat or not peers:
        return '-'
    best = max(peers) if pct else min(peers)
    return '%.2f' % (stat['stmpi'] / best) if best > 0 else '-'
for np, coll, size in keys:
    runs = {i: vals[(i, np, coll, size)] for i in impls if vals.get((i, np, coll, size))}
    med = {i: statistics.median(v) for i, v in runs.items()}
    pct = coll.endswith('_pct')
    fast = {i: (max(v) if pct else min(v)) for i, v in runs.items()}
    print('%-24s %3d %8d ' % (coll, np, size) + ' '.join('%10.1f' % med[i] if i in med else '%10s' % '-' for i in impls)
          + '  %13s %14s' % (ratio(med, pct), ratio(fast, pct)))
PY
echo "# raw results: $data"
