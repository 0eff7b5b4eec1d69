#!/bin/bash
# Intel MPI Benchmarks (IMB-MPI1, IMB-NBC) as a client of STMPI: gets the
# public source (git clone, or a checkout you already have), builds both
# programs unchanged with STMPI's installed mpicc/mpicxx, runs every
# benchmark of each on the given rank counts with short settings, and fails
# if a run fails, times out, does not reach MPI_Finalize or, with --check
# (IMB built with -DCHECK, which verifies every result), reports a defect.
#
# Opt-in: it needs the network for the clone (or --source), so CI does not
# run it. Nothing is written outside the work directory.
#
# Usage: test/clients/imb.sh [options]
#   --prefix DIR     STMPI installation (default: <source>/_inst, made by maint/build.sh)
#   --source DIR     an mpi-benchmarks repository (bare or not) or source tree
#                    to use instead of cloning from the network
#   --repo URL       what to clone (default https://github.com/intel/mpi-benchmarks.git)
#   --ref REF        branch, tag or commit to build (default: the clone's default branch)
#   --workdir DIR    where the copy, the build and the logs go (default: a new
#                    directory under ${TMPDIR:-/tmp}); kept
#   --ranks LIST     rank counts (default 2,4)
#   --check          build with -DCHECK: IMB verifies the data of every call
#   --msglog A:B     message sizes 2^A..2^B bytes (default 0:20)
#   --iter N         repetitions per size (default 20)
#   --suites LIST    subset of IMB-MPI1,IMB-NBC (default both)
#   -h, --help
# Environment: STMPI_CLIENT_TIMEOUT (seconds per run, default 600).
# Exit status: 0 when every run passed, 1 when one failed, 2 for usage,
# download or build errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix="$srcdir/_inst"
source_dir=""
repo=https://github.com/intel/mpi-benchmarks.git
ref=""
workdir=""
ranks=2,4
check=0
msglog=0:20
iter=20
suites=IMB-MPI1,IMB-NBC
. "$here/lib.sh"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) prefix=${2:?}; shift ;;
    --source) source_dir=${2:?}; shift ;;
    --repo) repo=${2:?}; shift ;;
    --ref) ref=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --check) check=1 ;;
    --msglog) msglog=${2:?}; shift ;;
    --iter) iter=${2:?}; shift ;;
    --suites) suites=${2:?}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
timeout_s=${STMPI_CLIENT_TIMEOUT:-600}
client_prepare imb
src="$workdir/mpi-benchmarks"

# ---- source ----
client_fetch "$src" "$source_dir" clone git "$repo"
if [[ -n "$ref" ]]; then
  git -C "$src" checkout -q "$ref" || die "no ref $ref in the checkout"
fi
rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# IMB source $rev, STMPI $prefix, work directory $workdir"

# ---- build (unchanged sources; IMB's own makefile, our wrappers) ----
flags=()
[[ $check -eq 1 ]] && flags=(CPPFLAGS=-DCHECK)
IFS=, read -r -a suite_list <<<"$suites"
for suite in "${suite_list[@]}"; do
  case "$suite" in IMB-MPI1|IMB-NBC) ;; *) die "unknown suite $suite" ;; esac
done
client_build "$workdir/build.log" "${suite_list[*]}" \
  make -C "$src" -j2 CC=mpicc CXX=mpicxx "${flags[@]}" "${suite_list[@]}"

# ---- runs ----
IFS=, read -r -a rank_list <<<"$ranks"
for suite in "${suite_list[@]}"; do
  for np in "${rank_list[@]}"; do
    log="$workdir/$suite.np$np.log"
    start=$SECONDS
    client_run "$log" "$np" "$src/$suite" -npmin "$np" -iter "$iter" -msglog "$msglog" -time 10
    benches=$(grep -c '^# Benchmarking' "$log")
    if [[ -n "$client_why" ]]; then :
    elif ! grep -q 'All processes entering MPI_Finalize' "$log"; then client_why="did not reach MPI_Finalize"
    elif [[ $benches -eq 0 ]]; then client_why="ran no benchmark"
    fi
    # With -DCHECK every result row ends with its defect count.
    if [[ -z "$client_why" && $check -eq 1 ]]; then
      defects=$(awk '/^# Benchmarking/ {chk = 0} /defects/ {chk = 1; next}
                     chk && $1 ~ /^[0-9]+$/ && $NF + 0 > 0 {n++} END {print n + 0}' "$log")
      [[ $defects -ne 0 ]] && client_why="$defects result rows with defects"
    fi
    client_result "$suite on $np ranks" "$log" "$benches benchmarks, $((SECONDS - start)) s"
  done
done
client_summary
