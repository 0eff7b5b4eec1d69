#!/bin/bash
# MPICH's own test programs as a client of STMPI: takes the test/mpi tree of an MPICH source
# checkout (or clones MPICH from the network), builds the programs of the chosen chapters
# unchanged with STMPI's installed mpicc and MPICH's test utility library (mtest), runs each
# entry of the chapter's testlist under STMPI's mpiexec as MPICH's own runner would (rank count,
# arguments, time limit) and counts a run as passed when it exits 0 and prints "No Errors" (or,
# for entries marked resultTest=TestStatus or TestErrFatal, when it fails as they expect).
#
# The Fortran chapters (f77, f90, f08 and their sub-chapters such as f08/subarray) are built with
# the installed mpifort and MPICH's Fortran test utilities (mtest_f77.f, mtest_f90.f90,
# mtest_f08.f90); the f90 programs are generated from the f77 ones by the suite's own
# maint/f77tof90 script, as MPICH's autogen does. A program's sources are those its chapter's
# Makefile.am lists (C helpers built with mpicc); "f77", "f90" and "f08" name all sub-chapters of
# the testlist except io (the MPI-IO issue's) and spawn (dynamic processes are not provided).
#
# MPICH's configure for test/mpi is not run: a small mpitestconf.h written here stands in for it,
# with strict-MPI mode on (no MPICH-only extensions); the configure-made Fortran headers
# (*.h.in: address and offset integers) are written as configure would on this machine. Entries that only set MPICH's own
# environment variables (env=MPIR_CVAR_..., algorithm choices of MPICH) repeat another entry for
# any other MPI and are skipped; so are entries whose source uses MPICH's datatype pools (dtpools),
# and those that need more memory (mem=, GB) than the machine has.
#
# An entry that sets only MPICH's variables (env=MPIR_CVAR_...) for a program without another
# entry (impls/mpich/comm's stream tests) runs without them.
#
# Opt-in: it needs the network for the clone (or --source), so CI does not run it.
#
# Usage: test/clients/mpich_tests.sh [options]
#   --prefix DIR     STMPI installation (default: <source>/_inst, made by maint/build.sh)
#   --source DIR     an MPICH repository (bare or not) or source tree
#   --repo URL       what to clone (default https://github.com/pmodels/mpich.git)
#   --chapters LIST  test/mpi subdirectories (default coll,topo,comm,group; nested ones such as
#                    threads/pt2pt or f08/subarray too; f77, f90, f08 for all Fortran ones)
#   --peer mpich     build and run with Debian's MPICH instead (mpicc.mpich, mpifort.mpich,
#                    mpiexec.mpich), in the same harness, for the baseline
#   --filter RE      only tests whose name matches RE
#   --workdir DIR    where the copy, the build and the logs go (default: a new directory)
#   -h, --help
# Environment: STMPI_CLIENT_TIMEOUT (seconds per run unless the entry says timeLimit=, default 180).
# Exit status: 0 when every run passed, 1 when one failed, 2 for usage, download or build errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix="$srcdir/_inst"
source_dir=""
repo=https://github.com/pmodels/mpich.git
chapters=coll,topo,comm,group
filter=""
workdir=""
peer=""
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --source) source_dir=$2; shift 2 ;;
    --repo) repo=$2; shift 2 ;;
    --chapters) chapters=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --peer) peer=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "mpich_tests.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -n "$peer" ]; then
  [ "$peer" = mpich ] || { echo "mpich_tests.sh: --peer takes mpich" >&2; exit 2; }
  cc=$(command -v mpicc.mpich) || { echo "mpich_tests.sh: no mpicc.mpich (Debian's mpich package)" >&2; exit 2; }
  fc=$(command -v mpifort.mpich || true)
  mpiexec=$(command -v mpiexec.mpich) || { echo "mpich_tests.sh: no mpiexec.mpich" >&2; exit 2; }
else
  [ -x "$prefix/bin/mpicc" ] || { echo "mpich_tests.sh: no $prefix/bin/mpicc (run maint/build.sh)" >&2; exit 2; }
  cc=$prefix/bin/mpicc
  fc=""
  [ -x "$prefix/bin/mpifort" ] && fc=$prefix/bin/mpifort
  mpiexec=$prefix/bin/mpiexec
fi
workdir=${workdir:-$(mktemp -d "${TMPDIR:-/tmp}/stmpi-mpich-tests.XXXXXX")}
mkdir -p "$workdir/run" && workdir=$(cd "$workdir" && pwd)
tree=$workdir/mpich
if [ ! -d "$tree/test/mpi" ]; then
  mkdir -p "$tree"
  if [ -z "$source_dir" ]; then
    git clone -q --depth 1 "$repo" "$workdir/clone" || { echo "mpich_tests.sh: clone of $repo failed" >&2; exit 2; }
    source_dir=$workdir/clone
  fi
  if [ -d "$source_dir/test/mpi" ]; then
    cp -r "$source_dir/test" "$tree/"
  else  # a bare repository
    git -C "$source_dir" archive HEAD test/mpi | tar -x -C "$tree" ||
      { echo "mpich_tests.sh: no test/mpi in $source_dir" >&2; exit 2; }
  fi
fi
t=$tree/test/mpi
# The f90 chapters: generated from the f77 ones by MPICH's maint/f77tof90 (as its autogen does).
if [ -d "$t/f77" ] && [ ! -e "$t/f90/.generated" ]; then
  for d in "$t"/f77/*/; do
    leaf=$(basename "$d")
    mkdir -p "$t/f90/$leaf"
    (cd "$t" && perl maint/f77tof90 "f77/$leaf" "f90/$leaf" Makefile.am Makefile.ap) > /dev/null ||
      { echo "mpich_tests.sh: maint/f77tof90 f77/$leaf failed" >&2; exit 2; }
  done
  # What configure writes into the Fortran headers on a 64-bit machine (address and offset
  # integers of 8 bytes).
  find "$t/f77" "$t/f90" "$t/f08" -name '*.h.in' | while read -r h; do
    sed -e 's/@F77_MPI_ADDRESS@/integer*8/g' -e 's/@F77_MPI_OFFSET@/integer*8/g' "$h" > "${h%.in}"
  done
  : > "$t/f90/.generated"
fi
# The io chapters' write tests: merged at make time from ioharness.defn and ioharness.tlt by
# maint/testmerge (configure makes it from testmerge.in); f90/io's two inputs come from f77/io's
# by the rules of its Makefile.ap (f08/io has its own).
if [ -f "$t/maint/testmerge.in" ] && [ ! -e "$t/maint/.io-generated" ]; then
  sed -e "1s|@PERL@|$(command -v perl)|" "$t/maint/testmerge.in" > "$t/maint/testmerge"
  chmod +x "$t/maint/testmerge"
  if [ -f "$t/f90/io/Makefile.ap" ]; then
    make -s -C "$t/f90/io" -f Makefile.ap srcdir=. ioharness.defn ioharness.tlt > /dev/null ||
      { echo "mpich_tests.sh: the rules of f90/io/Makefile.ap failed" >&2; exit 2; }
  fi
  for d in f77/io f90/io f08/io; do
    [ -f "$t/$d/ioharness.defn" ] || continue
    (cd "$t/$d" && ../../maint/testmerge -defn=../../maint/common.defn ioharness.defn ioharness.tlt) > /dev/null ||
      { echo "mpich_tests.sh: maint/testmerge in $d failed" >&2; exit 2; }
  done
  : > "$t/maint/.io-generated"
fi
build=$workdir/build${peer:+-$peer}
mkdir -p "$build"
cat > "$build/mpitestconf.h" <<'EOF'
/* Stands in for what MPICH's test/mpi configure writes (mpich_tests.sh). */
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE__BOOL 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define F77_NAME_LOWER_USCORE 1
EOF
# As MPICH's configure: MPI_INTEGER16 counts as available unless mpi.h makes it MPI_DATATYPE_NULL.
echo '#include <mpi.h>' | "$cc" -E -dM -x c - 2> /dev/null |
  grep -Eq '^#define MPI_INTEGER16 [(]*(MPI_Datatype[)])?MPI_DATATYPE_NULL' ||
  echo '#define HAVE_MPI_INTEGER16 1' >> "$build/mpitestconf.h"
# C helpers of the Fortran chapters include it as ../../include/mpitestconf.h
cp "$build/mpitestconf.h" "$t/include/mpitestconf.h"
: > "$build/mtest_mpix.h"  # generated by MPICH's own build; empty outside it (strict MPI)
cflags=(-O1 -w -I"$build" -I"$t/include")
for u in mtest mtest_common mtest_thread mtest_single dtypes run_mpitests; do
  "$cc" "${cflags[@]}" -c "$t/util/$u.c" -o "$build/$u.o" > "$build/$u.log" 2>&1 ||
    { echo "mpich_tests.sh: building MPICH's $u.c failed:"; cat "$build/$u.log"; exit 2; }
done
# Fortran: mpif.h programs need gfortran's -fallow-argument-mismatch (MPICH's configure adds it
# for them too); the mtest utilities of each language, built when a Fortran chapter is asked for.
fflags=(-O1 -w)
fortran_missing=""
build_fortran_utils() {
  [ -n "$fortran_missing" ] && return 1
  [ -e "$build/mtest_f08.o" ] && return 0
  if [ -z "$fc" ]; then
    fortran_missing="no mpifort in ${peer:-$prefix/bin} (this STMPI has no Fortran)"
    return 1
  fi
  mkdir -p "$build/fmod"
  (cd "$build/fmod" &&
    "$fc" "${fflags[@]}" -fallow-argument-mismatch -c "$t/util/mtest_f77.f" -o "$build/mtest_f77.o" &&
    "$fc" "${fflags[@]}" -c "$t/util/mtest_f90.f90" -o "$build/mtest_f90.o" &&
    "$fc" "${fflags[@]}" -c "$t/util/mtest_f08.f90" -o "$build/mtest_f08.o") > "$build/mtest_f.log" 2>&1 ||
    { fortran_missing="MPICH's Fortran mtest utilities did not build with $fc (see $build/mtest_f.log)"; return 1; }
}
# program_sources DIR NAME EXT: the sources automake would build NAME from (NAME_SOURCES in
# DIR's Makefile.am, continuation lines joined; NAME.EXT otherwise)
program_sources() {
  local mk=$t/$1/Makefile.am list=""
  [ -f "$mk" ] && list=$(sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba' -e '}' "$mk" |
    sed -n "s/^[[:space:]]*$2_SOURCES[[:space:]]*=[[:space:]]*//p" | head -1)
  echo "${list:-$2.$3}"
}
timeout_default=${STMPI_CLIENT_TIMEOUT:-180}
mem_gb=$(awk '/^MemTotal:/ { print int($2 / 1048576) }' /proc/meminfo)
passed=0 failed=0 skipped=0
failures=()
IFS=, read -r -a asked <<< "$chapters"
dirs=()
for dir in "${asked[@]}"; do
  case $dir in
    f77|f90|f08)  # the sub-chapters its testlist.in names, without io and spawn
      for sub in $(sed -e 's/@rmadir@/rma/' -e 's/@f77profile@/profile/' -e 's/@f90profile@/profile/' \
          -e '/@/d' "$t/$dir/testlist.in"); do
        dirs+=("$dir/$sub")
      done ;;
    *) dirs+=("$dir") ;;
  esac
done
for dir in "${dirs[@]}"; do
  lang=c
  case $dir in f77/*) lang=f77 ;; f90/*|f08/*) lang=${dir%%/*} ;; esac
  list=$t/$dir/testlist.in
  [ -f "$list" ] || list=$t/$dir/testlist
  [ -f "$list" ] || { echo "mpich_tests.sh: no testlist in $dir" >&2; continue; }
  # programs with an entry that sets no environment (the others run without MPICH's settings)
  plain_names=" $(awk '$1 !~ /^#/ && !/env=/ { printf "%s ", $1 }' "$list") "
  while read -r name np rest; do
    case $name in ''|'#'*) continue ;; esac
    [ -n "$filter" ] && ! [[ $name =~ $filter ]] && continue
    if [[ $name == *@* || $np == *@* || ! $np =~ ^[0-9]+$ ]]; then skipped=$((skipped + 1)); continue; fi
    args=() limit=$timeout_default skip="" result=""
    for kv in $rest; do
      case $kv in
        arg=*) args+=("${kv#arg=}") ;;
        timeLimit=*) limit=${kv#timeLimit=} ;;
        env=MPIR_CVAR_*) [[ $plain_names == *" $name "* ]] && skip="sets MPICH's environment ($kv)" ;;
        env=*) skip="sets MPICH's environment ($kv)" ;;
        xfail=*) skip="expected to fail in MPICH ($kv)" ;;
        mem=*) [ "${kv#mem=}" -gt "$mem_gb" ] 2>/dev/null && skip="needs ${kv#mem=} GB of memory, this machine has $mem_gb" ;;
        resultTest=*) result=${kv#resultTest=} ;;
        mpiversion=*|strict=*) ;;
        *) ;;
      esac
    done
    if [ $lang = c ]; then
      src=$t/$dir/$name.c
      [ -f "$src" ] || skip=${skip:-"no $dir/$name.c"}
      [ -z "$skip" ] && grep -q "dtpools\|mtest_dtp.h" "$src" && skip="uses MPICH's dtpools"
    fi
    label="$dir/$name $np ${args[*]}"
    if [ -n "$skip" ]; then skipped=$((skipped + 1)); echo "SKIP: $label: $skip"; continue; fi
    flat=${dir//\//_}  # threads/pt2pt -> threads_pt2pt
    exe=$build/${flat}_$name
    log=$build/${flat}_$name.$np.$((passed + failed)).log
    if [ $lang != c ] && [ ! -x "$exe" ]; then
      if ! build_fortran_utils; then
        failed=$((failed + 1)); failures+=("$label (not built)"); echo "FAIL: $label: not built: $fortran_missing"; continue
      fi
      ext=f90 mtest=$build/mtest_$lang.o
      [ $lang = f77 ] && ext=f
      objs=() ok=1
      mkdir -p "$build/$flat"
      # include folders the chapter's Makefile.am adds (AM_FFLAGS += -I../attr)
      fincs=(-I"$t/$dir")
      for i in $(sed -n 's/^[[:space:]]*AM_F[C]*FLAGS[[:space:]]*+\{0,1\}=//p' "$t/$dir/Makefile.am" 2>/dev/null |
          tr ' ' '\n' | sed -n 's/^-I//p'); do
        case $i in /*) fincs+=(-I"$i") ;; .) ;; *) fincs+=(-I"$t/$dir/$i") ;; esac
      done
      for f in $(program_sources "$dir" "$name" "$ext"); do
        # a source the chapter's Makefile.am copies from another chapter (rule
        # "f.c: $(srcdir)/../../f90/ext/f.c"); as make does, also over a checked-in copy older
        # than its generated origin (f08/io/c2f902cio.c from f90/io's)
        from=$(sed -n "s|^$f:[[:space:]]*\$(srcdir)/||p" "$t/$dir/Makefile.am" 2>/dev/null | head -1)
        if [ -n "$from" ] && [ -f "$t/$dir/$from" ] && { [ ! -f "$t/$dir/$f" ] || [ "$t/$dir/$from" -nt "$t/$dir/$f" ]; }; then
          cp "$t/$dir/$from" "$t/$dir/$f"
        fi
        case $f in
          *.c) "$cc" "${cflags[@]}" -c "$t/$dir/$f" -o "$build/$flat/${f%.c}.o" >> "$log" 2>&1 < /dev/null || ok=""
            objs+=("$build/$flat/${f%.c}.o") ;;
          *.f|*.f90|*.F|*.F90)
            extra=()
            grep -qi "^[^!]*include *['\"]mpif.h" "$t/$dir/$f" && extra=(-fallow-argument-mismatch)
            (cd "$build/$flat" && "$fc" "${fflags[@]}" "${extra[@]}" "${fincs[@]}" -I"$build/fmod" -c "$t/$dir/$f" \
              -o "$build/$flat/${f%.*}.o") >> "$log" 2>&1 < /dev/null || ok=""
            objs+=("$build/$flat/${f%.*}.o") ;;
        esac
      done
      # C helpers may call MPICH's C mtest functions
      if [ -n "$ok" ] && ! "$fc" "${fflags[@]}" "${objs[@]}" "$mtest" "$build/mtest.o" "$build/mtest_common.o" \
          "$build/mtest_single.o" -o "$exe" -lm >> "$log" 2>&1 < /dev/null; then
        ok=""
      fi
      if [ -z "$ok" ]; then
        failed=$((failed + 1)); failures+=("$label (build)"); echo "FAIL: $label: did not build; $log"; continue
      fi
    fi
    # Most programs define run() and take main() from MPICH's run_mpitests.c; older ones have main().
    driver=("$build/run_mpitests.o")
    [ $lang = c ] && grep -q "^int main" "$src" && driver=()
    if [ $lang = c ] && [ ! -x "$exe" ] && ! "$cc" "${cflags[@]}" "$src" "${driver[@]}" "$build/mtest.o" "$build/mtest_common.o" \
        "$build/mtest_thread.o" "$build/dtypes.o" -o "$exe" -lm -lpthread > "$log" 2>&1 < /dev/null; then
      failed=$((failed + 1)); failures+=("$label (build)"); echo "FAIL: $label: did not build; $log"; continue
    fi
    status=0
    # In the work folder: the programs create files (testfile, test.txt, ...) where they run.
    (cd "$workdir/run" && timeout -k 5 "$limit" "$mpiexec" -n "$np" "$exe" "${args[@]}") \
      < /dev/null > "$log" 2>&1 || status=$?
    # TestStatus and TestErrFatal entries pass when the program fails (an exit status it chose,
    # or an error that must abort); the others when it exits 0 and prints "No Errors".
    case $result in
      TestStatus|TestErrFatal) ok=$([ $status -ne 0 ] && echo 1) ;;
      *) ok=$([ $status -eq 0 ] && grep -qi "No Errors" "$log" && echo 1) ;;
    esac
    if [ -n "$ok" ]; then
      passed=$((passed + 1)); echo "PASS: $label"
    else
      failed=$((failed + 1)); failures+=("$label")
      echo "FAIL: $label: status $status; $log"; tail -n 5 "$log" | sed 's/^/    | /'
    fi
  done < "$list"
done
echo "MPICH tests ($chapters${peer:+, peer $peer}): $passed passed, $failed failed, $skipped skipped"
[ ${#failures[@]} -eq 0 ] || printf '  failed: %s\n' "${failures[@]}"
[ $failed -eq 0 ]
