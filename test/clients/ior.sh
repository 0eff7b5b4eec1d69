#!/bin/bash
# IOR (github.com/hpc/ior) as a client of STMPI's MPI-IO: gets the source (a clone, or a tree or
# git repository you already have), builds it unchanged with STMPI's mpicc, and runs its MPIIO
# backend under our mpiexec with IOR's own data verification (-W: read back and check after
# writing, -R: read twice and compare), in these modes:
#   independent     shared file, contiguous blocks, independent I/O
#   collective      the same with collective I/O (-c)
#   fileview        collective through file views (--mpiio.useFileView), several segments
#   strided         collective through file views and one strided datatype for all segments
#                   (--mpiio.useFileView --mpiio.useStridedDatatype); IOR 4's -W/-R miscount
#                   this mode under any MPI (Debian's MPICH reports "Incorrect data" as
#                   well), so the file is written with a fixed signature (-G) and kept, and
#                   a second run reads it back plainly with -R against that signature
#   fpp             file per process (-F), independent
#   large           4 MiB transfers, collective
# A run fails when IOR exits non-zero, times out, reports a data mismatch or an error, or
# prints no summary.
#
# Opt-in: it needs the network for the clone (or --source), so CI does not run it.
#
# Usage: test/clients/ior.sh [options]
#   --prefix DIR     STMPI installation (default: <source>/_inst, made by maint/build.sh)
#   --source DIR     an IOR tree or git repository (bare or not) instead of cloning
#   --repo URL       what to clone (default https://github.com/hpc/ior.git)
#   --workdir DIR    where the copy, the build, the test files and the logs go (default: a new
#                    directory under ${TMPDIR:-/tmp}); kept
#   --ranks LIST     rank counts (default 2,4)
#   --modes LIST     subset of independent,collective,fileview,strided,fpp,large (default: all)
#   -h, --help
# Environment: STMPI_CLIENT_TIMEOUT (seconds per run, default 300).
# Exit status: 0 when every run passed, 1 when one failed, 2 for usage, download or build
# errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix="$srcdir/_inst"
repo=https://github.com/hpc/ior.git
source_dir=""
workdir=""
ranks=2,4
modes=independent,collective,fileview,strided,fpp,large
. "$here/lib.sh"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) prefix=${2:?}; shift ;;
    --source) source_dir=${2:?}; shift ;;
    --repo) repo=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --modes) modes=${2:?}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
timeout_s=${STMPI_CLIENT_TIMEOUT:-300}
client_prepare ior
src="$workdir/ior"
client_fetch "$src" "$source_dir" archive git "$repo"
echo "# IOR source ${source_dir:-$repo}, STMPI $prefix, work directory $workdir"
client_build "$workdir/build.log" "IOR" \
  sh -c "cd '$src' && ./bootstrap && ./configure CC='$prefix/bin/mpicc' && make -j2"
ior="$src/src/ior"
[[ -x "$ior" ]] || die "no src/ior after the build (log: $workdir/build.log)"

# The arguments of each mode (IOR options; -o is added per run).
# A mode with a second run: it checks what the first left in the file.
declare -A verify_args=(
  [strided]="-a MPIIO -r -R -G 4242 -b 64k -t 64k -s 16 -i 1 -C"
)
declare -A mode_args=(
  [independent]="-a MPIIO -w -r -W -R -b 1m -t 64k -s 4 -i 2 -e -C"
  [collective]="-a MPIIO -c -w -r -W -R -b 1m -t 64k -s 4 -i 2 -e -C"
  [fileview]="-a MPIIO -c --mpiio.useFileView -w -r -W -R -b 256k -t 64k -s 8 -i 2 -e -C"
  [strided]="-a MPIIO -c --mpiio.useFileView --mpiio.useStridedDatatype -w -r -k -G 4242 -b 64k -t 64k -s 16 -i 1 -e"
  [fpp]="-a MPIIO -F -w -r -W -R -b 1m -t 64k -s 2 -i 2 -e -C"
  [large]="-a MPIIO -c -w -r -W -R -b 8m -t 4m -s 2 -i 1 -e -C"
)
IFS=, read -r -a rank_list <<<"$ranks"
IFS=, read -r -a mode_list <<<"$modes"
for mode in "${mode_list[@]}"; do
  [[ -n "${mode_args[$mode]:-}" ]] || die "unknown mode '$mode'"
done
mkdir -p "$workdir/files"
for np in "${rank_list[@]}"; do
  for mode in "${mode_list[@]}"; do
    log="$workdir/$mode.np$np.log"
    rm -f "$workdir/files/$mode".*
    read -r -a args <<<"${mode_args[$mode]}"
    client_run "$log" "$np" "$ior" "${args[@]}" -o "$workdir/files/$mode.dat"
    if [[ -z "$client_why" && -n "${verify_args[$mode]:-}" ]]; then
      read -r -a args <<<"${verify_args[$mode]}"
      client_run "$log.verify" "$np" "$ior" "${args[@]}" -o "$workdir/files/$mode.dat"
      cat "$log.verify" >>"$log"
    fi
    if [[ -z "$client_why" ]]; then
      if grep -qiE 'incorrect data|WARNING: .*(mismatch|corrupt)|^ERROR|ior ERROR' "$log"; then
        client_why="IOR reported a data or I/O error"
      elif ! grep -q '^Summary of all tests' "$log"; then
        client_why="no summary"
      fi
    fi
    bw=$(awk '/^write / && !w { w = $2 } /^read / && !r { r = $2 } END { printf "write %s MiB/s, read %s MiB/s", w, r }' "$log")
    client_result "ior $mode on $np ranks" "$log" "$bw"
  done
done
client_summary
