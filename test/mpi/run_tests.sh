#!/bin/bash
# Runs the MPI test programs listed in test/mpi/*/testlist under our mpiexec.
# testlist lines: `name nprocs [timeout=SECONDS] [env=NAME=VALUE]... [args=...]`
#   name.c is compiled against the build tree's libmpi; name.f (fixed form) and name.f90 (free
#   form) are compiled with the build's Fortran compiler against its mpif.h, mpi and mpi_f08
#   modules and libmpichfort (plus name_c.c, a C helper, when it exists); name.sh is run as a
#   script with the environment below. Every run has a time limit. A Fortran entry in a build
#   without Fortran fails with the reason (never a silent skip).
# Environment: BUILDDIR (default: .), SRCDIR (default: dir of this script/../..),
#   STMPI_TEST_FILTER (regex on chapter/name), STMPI_TEST_TIMEOUT (default 60),
#   STMPI_TEST_OUTDIR (logs and binaries; default BUILDDIR/test/mpi/out),
#   STMPI_TEST_LABEL (prefix of each PASS/FAIL name, e.g. "nolocal/"),
#   STMPI_TEST_NOT_RUN (a reason: report every selected test as failed without running it,
#   for a configuration a gate found missing; never a silent skip),
#   STMPI_TEST_FC / STMPI_TEST_FCFLAGS (Fortran compiler and flags; default: the FC and FCFLAGS
#   configure found, from BUILDDIR/Makefile).
set -u
srcdir=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${BUILDDIR:-$(pwd)}
builddir=$(cd "$builddir" && pwd)
filter=${STMPI_TEST_FILTER:-.}
default_timeout=${STMPI_TEST_TIMEOUT:-60}
outdir=${STMPI_TEST_OUTDIR:-$builddir/test/mpi/out}
label=${STMPI_TEST_LABEL:-}
not_run=${STMPI_TEST_NOT_RUN:-}
mkdir -p "$outdir"
export STMPI_SRCDIR="$srcdir" STMPI_BUILDDIR="$builddir"
export STMPI_MPIEXEC="$builddir/mpiexec"
export STMPI_TEST_CC="${CC:-gcc}"
# STMPI_TEST_SANITIZE: the sanitizer flags of a --enable-sanitizers build (the programs must
# load the same runtimes as the library).
export STMPI_TEST_CFLAGS="-O2 -Wall ${STMPI_TEST_SANITIZE:+$STMPI_TEST_SANITIZE }-I$srcdir/include -I$srcdir/test/mpi/util"
export STMPI_TEST_LIBS="-L$builddir/.libs -Wl,-rpath,$builddir/.libs -lmpi -lm"
# Fortran: the compiler configure found (empty when the build has no Fortran), the folders that
# hold the build's mpif.h and module files, and libmpichfort from the build tree.
STMPI_TEST_FC=${STMPI_TEST_FC:-$(sed -n 's/^FC = //p' "$builddir/Makefile" 2>/dev/null | head -1)}
STMPI_TEST_FCFLAGS=${STMPI_TEST_FCFLAGS:-$(sed -n 's/^FCFLAGS = //p' "$builddir/Makefile" 2>/dev/null | head -1)}
fortran_missing=""
if [[ -z "$STMPI_TEST_FC" ]]; then
  fortran_missing="this build has no Fortran (configure found no Fortran compiler, or --disable-fortran)"
elif [[ ! -e "$builddir/.libs/libmpichfort.so" ]]; then
  fortran_missing="the build has no .libs/libmpichfort.so (Fortran bindings not built)"
fi
fortran_includes="-I$srcdir/include"
[[ -d "$builddir/include" ]] && fortran_includes="-I$builddir/include $fortran_includes"
for d in $(find "$builddir" -path "$outdir" -prune -o -path "$builddir/inst" -prune -o \
    \( -name mpi.mod -o -name mpi_f08.mod \) -print 2>/dev/null | xargs -r -n1 dirname | sort -u); do
  fortran_includes="$fortran_includes -I$d"
done
export STMPI_TEST_FC STMPI_TEST_FCFLAGS
export STMPI_TEST_FFLAGS="-O2 ${STMPI_TEST_FCFLAGS:+$STMPI_TEST_FCFLAGS }${STMPI_TEST_SANITIZE:+$STMPI_TEST_SANITIZE }$fortran_includes"
export STMPI_TEST_FLIBS="-L$builddir/.libs -Wl,-rpath,$builddir/.libs -lmpichfort -lmpi -lm"
passed=0
failed=0
failures=()
for list in "$srcdir"/test/mpi/*/testlist; do
  chapter=$(basename "$(dirname "$list")")
  while read -r name nprocs rest; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    id="$chapter/$name"
    [[ "$id" =~ $filter ]] || continue
    timeout_s=$default_timeout
    envs=()
    args=()
    for word in $rest; do
      case "$word" in
        timeout=*) timeout_s=${word#timeout=} ;;
        env=*) envs+=("${word#env=}") ;;
        args=*) args+=("${word#args=}") ;;
      esac
    done
    if [[ -n "$not_run" ]]; then
      failed=$((failed + 1))
      echo "FAIL: $label$id ($nprocs): not run: $not_run"
      continue
    fi
    log="$outdir/${label//\//_}${chapter}_${name}.log"
    src="$srcdir/test/mpi/$chapter/$name"
    status=0
    if [[ -f "$src.sh" ]]; then
      env "${envs[@]}" timeout -k 5 "$timeout_s" bash "$src.sh" "$nprocs" "${args[@]}" </dev/null >"$log" 2>&1 || status=$?
    elif [[ -f "$src.f90" || -f "$src.f" ]]; then
      fsrc="$src.f90"
      [[ -f "$fsrc" ]] || fsrc="$src.f"
      exe="$outdir/${chapter}_${name}"
      if [[ -n "$fortran_missing" ]]; then
        echo "not run: $fortran_missing" >"$log"
        status=97
      elif [[ ! -x "$exe" || "$fsrc" -nt "$exe" || "${src}_c.c" -nt "$exe" ||
        "$builddir/.libs/libmpi.so" -nt "$exe" || "$builddir/.libs/libmpichfort.so" -nt "$exe" ]]; then
        # mpif.h declares no interfaces: calls with different buffer types in one program unit
        # need gfortran's -fallow-argument-mismatch (mpifort passes it too).
        fextra=()
        grep -qi "^[^!]*include *['\"]mpif.h" "$fsrc" && fextra+=(-fallow-argument-mismatch)
        helper=()
        if [[ -f "${src}_c.c" ]]; then
          helper=("$outdir/${chapter}_${name}_c.o")
          $STMPI_TEST_CC $STMPI_TEST_CFLAGS -c "${src}_c.c" -o "${helper[0]}" </dev/null >"$log" 2>&1 || status=99
        fi
        # Module files the program writes go to a folder of their own, emptied first (a module
        # file left from a build against older mpi modules would clash with the new ones).
        rm -rf "$outdir/mod_${chapter}_${name}"
        mkdir -p "$outdir/mod_${chapter}_${name}"
        if [[ $status -eq 0 ]] && ! $STMPI_TEST_FC $STMPI_TEST_FFLAGS "${fextra[@]}" -J"$outdir/mod_${chapter}_${name}" \
          "$fsrc" "${helper[@]}" -o "$exe" $STMPI_TEST_FLIBS </dev/null >>"$log" 2>&1; then
          status=99
        fi
      fi
      if [[ $status -eq 0 ]]; then
        env "${envs[@]}" timeout -k 5 "$timeout_s" "$builddir/mpiexec" -n "$nprocs" "$exe" "${args[@]}" </dev/null >"$log" 2>&1 || status=$?
        if [[ $status -eq 0 ]] && ! grep -q "No Errors" "$log"; then status=98; fi
      fi
    else
      exe="$outdir/${chapter}_${name}"
      if [[ ! -x "$exe" || "$src.c" -nt "$exe" || "$builddir/.libs/libmpi.so" -nt "$exe" ]]; then
        if ! $STMPI_TEST_CC $STMPI_TEST_CFLAGS "$src.c" -o "$exe" $STMPI_TEST_LIBS </dev/null >"$log" 2>&1; then
          status=99
        fi
      fi
      if [[ $status -eq 0 ]]; then
        env "${envs[@]}" timeout -k 5 "$timeout_s" "$builddir/mpiexec" -n "$nprocs" "$exe" "${args[@]}" </dev/null >"$log" 2>&1 || status=$?
        # A program passes when it exits 0 and rank 0 printed "No Errors".
        if [[ $status -eq 0 ]] && ! grep -q "No Errors" "$log"; then status=98; fi
      fi
    fi
    if [[ $status -eq 0 ]]; then
      passed=$((passed + 1))
      echo "PASS: $label$id ($nprocs)"
    else
      failed=$((failed + 1))
      failures+=("$label$id")
      case $status in
        124|137) why="timed out after ${timeout_s}s" ;;
        99) why="did not compile" ;;
        97) why="not run: $fortran_missing" ;;
        98) why="no 'No Errors' line" ;;
        *) why="exit status $status" ;;
      esac
      echo "FAIL: $label$id ($nprocs): $why; log: $log"
      # The check lines that failed (a script's "FAIL: ..."), then the end of the log.
      { grep -m 8 '^FAIL: ' "$log"; echo "..."; tail -n 15 "$log"; } | sed 's/^/    | /'
    fi
  done < "$list"
done
echo "mpi tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
