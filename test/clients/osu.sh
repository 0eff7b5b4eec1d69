#!/bin/bash
# The OSU micro-benchmarks' collective tests (mpi/collective, c/mpi/collective in 7.x: osu_allreduce,
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

# OSU 5.4-6.x keep them in mpi/collective, 7.x in c/mpi/collective (with persistent and
# neighborhood folders beside blocking and non_blocking); 5.3 and older in one folder.
rel=mpi/collective
[[ -d "$src/c/mpi/collective" ]] && rel=c/mpi/collective
client_build "$workdir/build.log" "the collective tests" \
  sh -c "cd '$src' && ./configure CC=mpicc CXX=mpicxx && make -j2 -C $rel"
coll="$src/$rel"
coll_dirs=()
for d in blocking non_blocking persistent neighborhood; do
  [[ -d "$coll/$d" ]] && coll_dirs+=("$coll/$d")
done
[[ ${#coll_dirs[@]} -gt 0 ]] || coll_dirs=("$coll")
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
    args=(-i "$iter" -x 5 -f)
    case "$name" in
      # OSU 7 refuses its Cartesian neighbourhood below 4 processes (radius 1 "greater than
      # half of the minimum dimension size 2") before any MPI call.
      *neighbor*) if [[ $np -lt 4 ]]; then echo "SKIP: $name on $np ranks (needs 4)"; continue; fi ;;
    esac
    case "$name" in
      *barrier*) ;;  # no message size, nothing to validate (OSU 7 prints its usage for -m/-c)
      # OSU 7.4's persistent allreduce starts its request on the warm-up buffers and validates
      # the others, so its -c fails under any MPI: run it without -c.
      osu_allreduce_persistent) args+=(-m "1:$max_bytes") ;;
      *) args+=(-m "1:$max_bytes" "${validate[@]}") ;;
    esac
    client_run "$log" "$np" "$p" "${args[@]}"
    rows=$(grep -cE '^ *[0-9]' "$log")
    if [[ -n "$client_why" ]]; then :
    elif [[ $rows -eq 0 ]]; then client_why="no result rows"
    elif grep -qi 'fail' "$log"; then client_why="validation failed"
    fi
    client_result "$name on $np ranks" "$log" "$rows rows"
  done
done
client_summary
