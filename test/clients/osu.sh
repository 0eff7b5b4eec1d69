#!/bin/bash
# The OSU micro-benchmarks' collective tests (mpi/collective: osu_allreduce,
# osu_iallreduce, osu_bcast, ... whatever the release has) as a client of
# STMPI: gets the source (a release tarball by URL, or a tree/repository you
# already have), configures and builds it unchanged with STMPI's mpicc and
# mpicxx, runs every collective test on the given rank counts with short
# settings, and fails if one fails, times out or prints no result row.
#
# Opt-in: it needs the network for the download (or --source), so CI does
# not run it. Nothing is written outside the work directory.
#
# Usage: test/clients/osu.sh [options]
#   --prefix DIR     STMPI installation (default: <source>/_inst, made by maint/build.sh)
#   --url URL        release tarball to download (default: OSU 7.4 from mvapich.cse.ohio-state.edu)
#   --source DIR     an unpacked source tree or a git repository instead of downloading
#   --workdir DIR    where the copy, the build and the logs go (default: a new
#                    directory under ${TMPDIR:-/tmp}); kept
#   --ranks LIST     rank counts (default 2,4)
#   --max-bytes N    largest message (default 1048576)
#   --iter N         iterations per size (default 20; 5 warm-up)
#   --validate       pass -c (data validation; OSU 7 and later)
#   -h, --help
# Environment: STMPI_CLIENT_TIMEOUT (seconds per run, default 300).
# Exit status: 0 when every run passed, 1 when one failed, 2 for usage,
# download or build errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix="$srcdir/_inst"
url=https://mvapich.cse.ohio-state.edu/download/mvapich/osu-micro-benchmarks-7.4.tar.gz
source_dir=""
workdir=""
ranks=2,4
max_bytes=1048576
iter=20
validate=()
. "$here/lib.sh"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) prefix=${2:?}; shift ;;
    --url) url=${2:?}; shift ;;
    --source) source_dir=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --max-bytes) max_bytes=${2:?}; shift ;;
    --iter) iter=${2:?}; shift ;;
    --validate) validate=(-c) ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
timeout_s=${STMPI_CLIENT_TIMEOUT:-300}
client_prepare osu
src="$workdir/osu"
client_fetch "$src" "$source_dir" archive tarball "$url"
echo "# OSU source ${source_dir:-$url}, STMPI $prefix, work directory $workdir"

client_build "$workdir/build.log" "the collective tests" \
  sh -c "cd '$src' && ./configure CC=mpicc CXX=mpicxx && make -j2 -C mpi/collective"
coll="$src/mpi/collective"
[[ -d "$coll/blocking" ]] && coll_dirs=("$coll/blocking" "$coll/non_blocking") || coll_dirs=("$coll")
programs=()
for d in "${coll_dirs[@]}"; do
  for p in "$d"/osu_*; do
    [[ -f "$p" && -x "$p" ]] && programs+=("$p")
  done
done
[[ ${#programs[@]} -gt 0 ]] || die "no collective test was built (log: $workdir/build.log)"

IFS=, read -r -a rank_list <<<"$ranks"
for np in "${rank_list[@]}"; do
  for p in "${programs[@]}"; do
    name=$(basename "$p")
    log="$workdir/$name.np$np.log"
    client_run "$log" "$np" "$p" -m "1:$max_bytes" -i "$iter" -x 5 -f "${validate[@]}"
    rows=$(grep -cE '^ *[0-9]' "$log")
    if [[ -n "$client_why" ]]; then :
    elif [[ $rows -eq 0 ]]; then client_why="no result rows"
    elif grep -qi 'fail' "$log"; then client_why="validation failed"
    fi
    client_result "$name on $np ranks" "$log" "$rows rows"
  done
done
client_summary
