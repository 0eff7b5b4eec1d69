#!/bin/bash
# Builds a pinned mpi4py release against an installed MPI and runs mpi4py's own
# test suite on 1, 2 and 3 ranks. Prints ok/fail/error/skip per rank count and
# ends with "mpi4py tests: N passed, N failed" (N = rank counts); exits non-zero
# when any run has a failing or erroring test, times out, or cannot start.
#
# Environment:
#   STMPI_PREFIX        installed STMPI (default: <source>/_inst)
#   STMPI_MPI4PY_DIR    work folder: download cache, venv, logs (default: <source>/build/clients)
#   STMPI_MPI4PY_NP     rank counts (default: "1 2 3")
#   STMPI_MPI4PY_TIMEOUT  seconds per rank count (default: 240 per rank: 240, 480, 720)
#   STMPI_MPI4PY_PEER   "mpich": build and run against Debian's MPICH instead
#                       (mpicc.mpich / mpiexec.mpich), for comparison counts
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
version=4.1.2
prefix=${STMPI_PREFIX:-$top/_inst}
work=${STMPI_MPI4PY_DIR:-$top/build/clients}
nps=${STMPI_MPI4PY_NP:-1 2 3}
peer=${STMPI_MPI4PY_PEER:-}

# Tests left out, one line each: "pattern  reason". A pattern is either
# "module:NAME" (a whole test module, mpi4py's -e) or an fnmatch pattern on
# module.Class.method (mpi4py's -x). Only features the README lists as not
# provided may appear here, and only where our call ends in a clean
# MPI_ERR_UNSUPPORTED_OPERATION. MPI-IO is provided: mpi4py's test_io, test_file,
# test_subclass and the file tests of test_errhandler and test_objmodel all run. Tests that spawn processes are skipped by mpi4py
# itself (MPI4PY_TEST_SPAWN=0 below).
exclusions=(
  "module:test_dynproc  dynamic processes: MPI_Open_port returns MPI_ERR_UNSUPPORTED_OPERATION on rank 0 and the other ranks then wait for a port name that never comes"
)

case "$peer" in
  "") mpicc=$prefix/bin/mpicc; mpiexec=$prefix/bin/mpiexec; tag=stmpi ;;
  mpich) mpicc=$(command -v mpicc.mpich); mpiexec=$(command -v mpiexec.mpich); tag=mpich ;;
  *) echo "mpi4py: unknown STMPI_MPI4PY_PEER=$peer"; echo "mpi4py tests: 0 passed, 1 failed"; exit 1 ;;
esac

fail_setup() {
  echo "mpi4py: $*"
  echo "mpi4py tests: 0 passed, 1 failed"
  exit 1
}

[ -x "$mpicc" ] && [ -x "$mpiexec" ] || fail_setup "no mpicc/mpiexec ($mpicc, $mpiexec)"
mkdir -p "$work/cache" || fail_setup "cannot create $work"
sdist=$work/cache/mpi4py-$version.tar.gz
if [ ! -f "$sdist" ]; then
  # The source release only (its build tools come as wheels when pip builds it).
  PIP_CACHE_DIR=$work/cache/pip timeout 600 python3 -m pip download -q --no-deps --no-binary mpi4py "mpi4py==$version" \
    -d "$work/cache" >"$work/download.log" 2>&1 ||
    { tail -5 "$work/download.log"; fail_setup "download of mpi4py $version failed"; }
fi
src=$work/mpi4py-$version
if [ ! -f "$src/test/main.py" ]; then
  tar -xzf "$sdist" -C "$work" || fail_setup "cannot unpack $sdist"
fi

# -O0 -g0 (after Python's -O3 -g): the generated MPI.c is large, and an optimized
# build alone would take most of CI's budget for this suite.
cflags="-O0 -g0"
# mpi4py does not recognize our mpi.h (no MPICH_NAME: we do not claim to be MPICH,
# whose version would switch on mpi4py's workarounds and skips for MPICH bugs), so
# its build probes every MPI name it knows, one compile and link each (about a
# thousand; a few minutes on an idle machine): it uses what we provide and nothing
# else.

# One venv per MPI; rebuilt when the MPI's headers or wrapper change (mpi4py
# probes at build time which MPI calls exist).
venv=$work/venv-$tag
stamp=$( { echo "$version $cflags"; "$mpicc" -show; cat "$("$mpicc" -show | tr ' ' '\n' | sed -n 's/^-I//p' | head -1)/mpi.h"; } 2>/dev/null | sha256sum | cut -c1-16)
if [ "$(cat "$venv/stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" || fail_setup "python3 -m venv failed (python3-venv missing?)"
  echo "mpi4py: building $version with $mpicc (log: $work/build-$tag.log)"
  # pip's cache (the build tools it fetches for the isolated build) stays under $work.
  if ! MPICC=$mpicc CFLAGS="$cflags" MAKEFLAGS=-j2 PIP_CACHE_DIR=$work/cache/pip timeout 1500 "$venv/bin/python" -m pip install -q --no-deps "$sdist" \
    >"$work/build-$tag.log" 2>&1; then
    tail -20 "$work/build-$tag.log"; fail_setup "build of mpi4py failed"
  fi
  echo "$stamp" >"$venv/stamp"
fi

# The extension must load our library (soname libmpich.so.12, as MPICH's), found
# in our prefix.
ext=$(ls "$venv"/lib/python3*/site-packages/mpi4py/MPI.*.so 2>/dev/null | head -1)
[ -n "$ext" ] || fail_setup "mpi4py/MPI*.so not found in $venv"
libs=$(ldd "$ext" | grep -E 'libmpi')
echo "mpi4py: $ext links:"; echo "$libs" | sed 's/^/    /'
if [ -z "$peer" ]; then
  echo "$libs" | grep -qE "libmpich\.so\.12 => $prefix/lib/" ||
    fail_setup "the extension does not link libmpich.so.12 from $prefix/lib"
  if echo "$libs" | grep -v "=> $prefix/lib/" | grep -q .; then
    fail_setup "the extension also links an MPI library outside $prefix"
  fi
fi

xargs_=()
for line in "${exclusions[@]}"; do
  pattern=${line%% *}
  case "$pattern" in
    module:*) xargs_+=(-e "^${pattern#module:}\\.py\$") ;;
    *) xargs_+=(-x "$pattern") ;;
  esac
done

passed=0
failed=0
for np in $nps; do
  log=$work/test-$tag-np$np.log
  limit=${STMPI_MPI4PY_TIMEOUT:-$((240 * np))}
  status=0
  start=$SECONDS
  # MPI4PY_TEST_SPAWN=0: mpi4py skips its tests that spawn processes (dynamic
  # processes are not provided; its process pool would wait forever for workers).
  (cd "$src/test" && MPI4PY_TEST_SPAWN=0 timeout -k 10 "$limit" "$mpiexec" -n "$np" -l "$venv/bin/python" main.py -v \
    "${xargs_[@]}" </dev/null >"$log" 2>&1) || status=$?
  # Each rank's unittest summary: "[r] Ran N tests ..." then "[r] OK (skipped=S)" or
  # "[r] FAILED (failures=F, errors=E, skipped=S)".
  summary=$(awk -v np="$np" '
    /^\[[0-9]+\] Ran [0-9]+ test/ { r = $1; ran[r] = $3; n++ }
    /^\[[0-9]+\] (OK|FAILED)/ {
      r = $1; s = $0
      f = 0; e = 0; k = 0
      if (match(s, /failures=[0-9]+/)) f = substr(s, RSTART + 9, RLENGTH - 9)
      if (match(s, /errors=[0-9]+/)) e = substr(s, RSTART + 7, RLENGTH - 7)
      if (match(s, /skipped=[0-9]+/)) k = substr(s, RSTART + 8, RLENGTH - 8)
      F += f; E += e; K += k; R += ran[r]; done++
    }
    END { printf "%d %d %d %d %d", R - F - E - K, F, E, K, done }' "$log")
  read -r ok nf ne ns ranks <<<"$summary"
  why=""
  case $status in
    0) ;;
    124|137) why="timed out after ${limit}s" ;;
    *) why="exit status $status" ;;
  esac
  [ "$ranks" -eq "$np" ] || why="${why:+$why, }$ranks of $np ranks reported"
  [ "$nf" -eq 0 ] && [ "$ne" -eq 0 ] || why="${why:+$why, }failing tests"
  echo "mpi4py np=$np ($tag): ok $ok, fail $nf, error $ne, skip $ns (summed over ranks), $((SECONDS - start)) s${why:+; FAIL: $why; log: $log}"
  if [ -z "$why" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    grep -E '^\[[0-9]+\] (FAIL|ERROR):' "$log" | sort | uniq -c | sort -rn | head -40 | sed 's/^/    /'
  fi
done
echo "mpi4py tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
