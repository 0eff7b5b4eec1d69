#!/bin/bash
# Parallel HDF5 as a client of STMPI: builds test/mpi/io/hdf5_rw.c with Debian's h5pcc.mpich
# (HDF5 1.10 compiled against MPICH's ABI; package libhdf5-mpich-dev), runs the binary on
# STMPI's library (LD_LIBRARY_PATH puts our libmpich.so.12 first; the script checks that the
# binary loads it) under our mpiexec on each rank count, and checks every dataset twice: the
# program reads each back through parallel HDF5 in the other transfer mode, and h5dump
# (package hdf5-tools) dumps each as little-endian binary, compared byte by byte with the
# reference the program wrote. Four datasets: contiguous and chunked layouts, collective and
# independent transfers.
#
# HDF5's own parallel tests (testpar) are test/clients/hdf5_testpar.sh.
#
# Usage: test/clients/hdf5.sh [options]
#   --prefix DIR     STMPI installation (lib/ and bin/mpiexec; default <source>/_inst)
#   --libdir DIR     the directory holding our libmpich.so.12 (default PREFIX/lib)
#   --mpiexec PATH   our launcher (default PREFIX/bin/mpiexec)
#   --ranks LIST     rank counts (default 1,2,4)
#   --workdir DIR    build, files and logs (default: a new directory under ${TMPDIR:-/tmp})
#   -h, --help
# Environment: STMPI_CLIENT_TIMEOUT (seconds per run, default 120).
# Prints PASS/FAIL per rank count and ends with "hdf5 tests: N passed, M failed". Exit status
# 0 when everything passed, 1 when a run failed or HDF5's tools are missing (a missing
# h5pcc.mpich or h5dump is a failure, not a skip), 2 for usage errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix="$srcdir/_inst"
libdir=""
mpiexec=""
ranks=1,2,4
workdir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) prefix=${2:?}; shift ;;
    --libdir) libdir=${2:?}; shift ;;
    --mpiexec) mpiexec=${2:?}; shift ;;
    --ranks) ranks=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "hdf5.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
libdir=${libdir:-$prefix/lib}
mpiexec=${mpiexec:-$prefix/bin/mpiexec}
timeout_s=${STMPI_CLIENT_TIMEOUT:-120}
passed=0
failed=0
fail() {  # name why
  failed=$((failed + 1))
  echo "FAIL: $1: $2"
}
finish() {
  echo "hdf5 tests: $passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
}
missing=""
command -v h5pcc.mpich >/dev/null || missing="h5pcc.mpich (package libhdf5-mpich-dev)"
command -v h5dump >/dev/null || missing="${missing:+$missing, }h5dump (package hdf5-tools)"
if [[ -n "$missing" ]]; then
  fail "hdf5" "not installed: $missing (maint/install-deps.sh installs them)"
  finish
fi
[[ -e "$libdir/libmpich.so.12" && -x "$mpiexec" ]] ||
  { fail "hdf5" "no STMPI in $libdir (libmpich.so.12) / $mpiexec"; finish; }
libdir=$(cd "$libdir" && pwd)
[[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-hdf5.XXXXXX")
mkdir -p "$workdir" && workdir=$(cd "$workdir" && pwd)
echo "# HDF5 client: $(h5pcc.mpich -showconfig 2>/dev/null | sed -n 's/^ *HDF5 Version: *//p'), STMPI $libdir, work directory $workdir"

exe=$workdir/hdf5_rw
if ! h5pcc.mpich -O1 -o "$exe" "$srcdir/test/mpi/io/hdf5_rw.c" >"$workdir/build.log" 2>&1; then
  cat "$workdir/build.log"
  fail "hdf5 build" "h5pcc.mpich could not build hdf5_rw.c"
  finish
fi
# The MPICH-built binary must load our libmpich.so.12.
loaded=$(LD_LIBRARY_PATH=$libdir ldd "$exe" | awk '/libmpich\.so\.12/ {print $3}')
if [[ "$(readlink -f "$loaded")" != "$(readlink -f "$libdir/libmpich.so.12")" ]]; then
  fail "hdf5 library" "hdf5_rw loads '$loaded', not $libdir/libmpich.so.12"
  finish
fi

IFS=, read -r -a rank_list <<<"$ranks"
for np in "${rank_list[@]}"; do
  file=$workdir/np$np.h5
  log=$workdir/np$np.log
  rm -f "$file" "$file".*.ref
  status=0
  LD_LIBRARY_PATH=$libdir timeout -k 5 "$timeout_s" "$mpiexec" -n "$np" "$exe" "$file" \
    </dev/null >"$log" 2>&1 || status=$?
  why=""
  if [[ $status -eq 124 || $status -eq 137 ]]; then why="timed out after ${timeout_s}s"
  elif [[ $status -ne 0 ]]; then why="exit status $status"
  elif ! grep -q "No Errors" "$log"; then why="no 'No Errors' line"
  fi
  checked=0
  if [[ -z "$why" ]]; then
    for ref in "$file".*.ref; do
      [[ -e "$ref" ]] || { why="no reference files"; break; }
      dset=${ref#"$file".}
      dset=${dset%.ref}
      if ! h5dump -d "/$dset" -b LE -o "$workdir/np$np.$dset.bin" "$file" >>"$log" 2>&1; then
        why="${why:+$why; }h5dump cannot read /$dset"
      elif ! cmp -s "$workdir/np$np.$dset.bin" "$ref"; then
        why="${why:+$why; }h5dump's /$dset differs from the reference ($(cmp "$workdir/np$np.$dset.bin" "$ref" 2>&1 | head -1))"
      else
        checked=$((checked + 1))
      fi
    done
  fi
  if [[ -z "$why" ]]; then
    passed=$((passed + 1))
    echo "PASS: hdf5_rw on $np ranks ($checked datasets read back and matched by h5dump)"
  else
    fail "hdf5_rw on $np ranks" "$why; log: $log"
    tail -n 8 "$log" | sed 's/^/    | /'
  fi
done

finish
