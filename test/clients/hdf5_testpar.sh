#!/bin/bash
# HDF5's own parallel tests (testpar) as a client of STMPI: takes HDF5's source from Debian's
# package archive (`apt-get source hdf5`: HDF5 1.10.8 on bookworm, upstream's tarball unpacked
# without Debian's patches, so autotools output is used as shipped), configures it with our
# mpicc (--enable-parallel, static, no Fortran, C++, high-level library, tools or Java), builds
# only the library, the test utility library (test/libh5test.la) and the chosen testpar
# programs, and runs each under our mpiexec with a time limit in a fresh run folder.
#
# Programs run by default (in this order: t_prestart reads what t_pshutdown left, t_pflush2
# what t_pflush1 left):
#   t_mpi         MPI-IO alone: file views, large offsets, atomicity, file sizes
#   t_init_term   HDF5 opened and closed around MPI_Init/MPI_Finalize
#   t_pshutdown   a file left open at MPI_Finalize, closed by HDF5's atexit handler
#   t_prestart    reads t_pshutdown's file back
#   t_pread       collective reads of a file written by one rank (with and without filters)
#   t_pflush1     writes, flushes and stops without closing (it exits non-zero by design,
#                 without MPI_Finalize: it passes when it prints PASSED and no real error)
#   t_pflush2     reopens t_pflush1's files: the flushed one must read back, the other not
#   testphdf5     the main suite: collective and independent dataset I/O, chunked,
#                 contiguous, compact, multiple datasets, properties, metadata reads
#   t_shapesame   hyperslab selections of different rank but the same shape
#   t_filters_parallel  parallel writes to filtered (compressed) chunked datasets
#   t_cache       the metadata cache's parallel synchronization
# Not by default (--programs names them): t_cache_image (slow), t_bigio (over 2 GiB per rank).
# HDF5TestExpress defaults to 2 (HDF5's "quick" sizes; 3 is its smoke test, 0 exhaustive) unless
# the environment sets it.
#
# Opt-in: it needs Debian's archive (or an HDF5 tree with --source). When `apt-cache showsrc
# hdf5` knows no source package, the script adds /etc/apt/sources.list.d/stmpi-deb-src.sources
# (deb-src with the URIs, suites and components of debian.sources), runs apt-get update and
# installs dpkg-dev if it is missing: these steps need root. Nothing else is written outside
# the cache and work folders.
#
# Usage: test/clients/hdf5_testpar.sh [options]
#   --prefix DIR     STMPI installation (bin/mpicc, bin/mpiexec; default <source>/_inst)
#   --peer mpich     build and run the same with Debian's MPICH (mpicc.mpich, mpiexec.mpich)
#   --cache DIR      downloaded and unpacked HDF5 source (default ~/.cache/stmpi-clients)
#   --source DIR     an unpacked HDF5 source tree instead of Debian's package
#   --workdir DIR    builds (build-stmpi, build-mpich), run folders and logs; kept and
#                    reused, so a second run only rebuilds what changed (default
#                    CACHE/hdf5-testpar)
#   --ranks N        ranks per program (default 4; t_cache needs at least 3)
#   --programs LIST  comma-separated testpar programs (default: the list above)
#   -h, --help
# Environment: STMPI_CLIENT_TIMEOUT (seconds per program, default 300).
# Prints PASS/FAIL per program and "hdf5 testpar (MPI, N ranks): N passed, N failed". Exit
# status 0 when every program passed, 1 when one failed, 2 for usage, download or build errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix="$srcdir/_inst"
peer=""
cache="${XDG_CACHE_HOME:-$HOME/.cache}/stmpi-clients"
source_dir=""
workdir=""
np=4
programs=t_mpi,t_init_term,t_pshutdown,t_prestart,t_pread,t_pflush1,t_pflush2,testphdf5,t_shapesame,t_filters_parallel,t_cache
. "$here/lib.sh"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) prefix=${2:?}; shift ;;
    --peer) peer=${2:?}; shift ;;
    --cache) cache=${2:?}; shift ;;
    --source) source_dir=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    --ranks) np=${2:?}; shift ;;
    --programs) programs=${2:?}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
timeout_s=${STMPI_CLIENT_TIMEOUT:-300}
export HDF5TestExpress=${HDF5TestExpress:-2}
mkdir -p "$cache" || die "cannot create $cache"
cache=$(cd "$cache" && pwd)
workdir=${workdir:-$cache/hdf5-testpar}
mpi=stmpi
if [[ -n "$peer" ]]; then
  [[ "$peer" == mpich ]] || die "--peer takes mpich"
  # The peer's wrappers under the names lib.sh runs (bin/mpicc, bin/mpiexec).
  prefix="$workdir/peer-mpich"
  mkdir -p "$prefix/bin" || die "cannot create $prefix"
  for tool in mpicc mpiexec; do
    path=$(command -v "$tool.mpich") || die "no $tool.mpich (Debian's mpich package)"
    ln -sf "$path" "$prefix/bin/$tool"
  done
  # Hydra's mpiexec starts hydra_pmi_proxy from the folder it was started from.
  for proxy in "$(dirname "$(readlink -f "$path")")"/hydra_*; do
    [[ -x "$proxy" ]] && ln -sf "$proxy" "$prefix/bin/"
  done
  mpi=mpich
fi
client_prepare hdf5-testpar
prefix=$(cd "$prefix" && pwd)

# HDF5's source: Debian's source package, downloaded and unpacked once into the cache.
hdf5_source() {
  local dl="$cache/hdf5-deb" dsc
  dsc=$(ls "$dl"/hdf5_*.dsc 2>/dev/null | tail -1)
  if [[ -z "$dsc" ]]; then
    if ! apt-cache showsrc hdf5 2>/dev/null | grep -q '^Package: hdf5$'; then
      [[ $(id -u) -eq 0 ]] || die "apt knows no deb-src for hdf5 and this is not root (add a deb-src entry, or pass --source DIR)"
      [[ -r /etc/apt/sources.list.d/debian.sources ]] ||
        die "no /etc/apt/sources.list.d/debian.sources to derive a deb-src entry from (pass --source DIR)"
      sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        >/etc/apt/sources.list.d/stmpi-deb-src.sources || die "cannot write the deb-src entry"
      apt-get update -qq >"$cache/apt-update.log" 2>&1 || die "apt-get update failed (log: $cache/apt-update.log)"
    fi
    if ! command -v dpkg-source >/dev/null; then
      [[ $(id -u) -eq 0 ]] || die "dpkg-dev is missing and this is not root"
      apt-get install -y -q dpkg-dev >"$cache/apt-install.log" 2>&1 ||
        die "installing dpkg-dev failed (log: $cache/apt-install.log)"
    fi
    mkdir -p "$dl" && (cd "$dl" && apt-get source -q --download-only hdf5) >"$cache/apt-source.log" 2>&1 ||
      die "apt-get source hdf5 failed (log: $cache/apt-source.log)"
    dsc=$(ls "$dl"/hdf5_*.dsc 2>/dev/null | tail -1)
    [[ -n "$dsc" ]] || die "apt-get source left no .dsc in $dl"
  fi
  hdf5_src="$dl/$(basename "$dsc" .dsc)"
  if [[ ! -x "$hdf5_src/configure" ]]; then
    rm -rf "$hdf5_src"
    dpkg-source -q --skip-patches -x "$dsc" "$hdf5_src" >"$cache/dpkg-source.log" 2>&1 ||
      die "unpacking $dsc failed (log: $cache/dpkg-source.log)"
  fi
}
if [[ -n "$source_dir" ]]; then
  hdf5_src=$(cd "$source_dir" && pwd) || die "no $source_dir"
else
  hdf5_source
fi
[[ -x "$hdf5_src/configure" && -d "$hdf5_src/testpar" ]] || die "$hdf5_src is not an HDF5 source tree"
IFS=, read -r -a program_list <<<"$programs"

# Out-of-tree build, one per MPI; reconfigured when the compiler's command line changed.
build="$workdir/build-$mpi"
cc="$prefix/bin/mpicc"
stamp="$cc $("$cc" -show 2>/dev/null)"
if [[ ! -f "$build/config.status" || "$(cat "$build/.stmpi-cc" 2>/dev/null)" != "$stamp" ]]; then
  rm -rf "$build" && mkdir -p "$build" || die "cannot create $build"
  client_build "$workdir/configure-$mpi.log" "HDF5's configure with $cc" \
    sh -c "cd '$build' && '$hdf5_src/configure' CC='$cc' --enable-parallel --disable-shared \
      --disable-fortran --disable-cxx --disable-hl --disable-tools --disable-java \
      --enable-build-mode=production --enable-optimization=none --disable-dependency-tracking"
  echo "$stamp" >"$build/.stmpi-cc"
fi
echo "# HDF5 $(sed -n 's/^ *HDF5 Version: *//p' "$build/src/libhdf5.settings" 2>/dev/null) testpar" \
  "from $hdf5_src, $mpi ($cc), $np ranks, work directory $workdir"
client_build "$workdir/build-$mpi.log" "HDF5 and testpar with $cc" \
  sh -c "make -C '$build/src' -j2 && make -C '$build/test' -j2 libh5test.la &&
         make -C '$build/testpar' -j2 ${program_list[*]}"

run="$workdir/run-$mpi"
rm -rf "$run" && mkdir -p "$run" || die "cannot create $run"
passed=0
for name in "${program_list[@]}"; do
  exe="$build/testpar/$name"
  log="$workdir/$name.$mpi.np$np.log"
  elapsed=0
  if [[ ! -x "$exe" ]]; then
    client_why="not built"
    : >"$log"
  else
    cd "$run" || die "cannot enter $run"
    start=$SECONDS
    client_run "$log" "$np" "$exe"
    elapsed=$((SECONDS - start))
    cd - >/dev/null || die "cannot leave $run"
    case "$name" in
      # t_pflush1 stops without MPI_Finalize and with a failure code by design.
      t_pflush1)
        client_why=""
        if ! grep -q PASSED "$log" || grep -q 'REAL ERROR' "$log"; then
          client_why="no PASSED line, or a real error"
        fi ;;
      *)
        if [[ -z "$client_why" ]] && grep -qE '\*FAILED\*|^ *FAILED' "$log"; then
          client_why="a test reported FAILED"
        fi ;;
    esac
  fi
  verdicts=$(grep -ciE 'passed|no errors|successful' "$log")
  client_result "$name" "$log" "$elapsed s, $verdicts passed or no-error lines"
  [[ -z "$client_why" ]] && passed=$((passed + 1))
done
echo "hdf5 testpar ($mpi, $np ranks): $passed passed, ${#client_failed[@]} failed"
client_summary
