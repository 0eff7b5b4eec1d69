#!/bin/bash
# Fortran against C, and STMPI against MPICH, in the same run: builds test/bench/fpingpong.F90
# through each Fortran interface (mpif.h, use mpi, use mpi_f08) and its C twin fpingpong.c with
# STMPI's installed wrappers (mpifort, mpicc) and with Debian's MPICH (mpifort.mpich,
# mpicc.mpich), runs each on 2 ranks with its own launcher, interleaved with the order rotating
# every repeat, and prints the median of each measurement (8 B and 1 MiB ping-pong one-way
# time, 8 B allreduce time, in microseconds) and the ratios: each STMPI Fortran interface over
# STMPI's C (goal: within 5 % at 8 B) and over MPICH running the same Fortran program (goal: no
# slower, ratio <= 1).
#
# Usage: test/bench/fortran_pingpong.sh [options]
#   --stmpi-prefix DIR  installed STMPI (default: <source>/_inst, made by maint/build.sh)
#   --impls LIST        subset of stmpi,mpich (default: both; mpich when installed)
#   --repeats N         repeats of the whole set (default 5)
#   --trials N          trials per run, each program reports their median (default 11)
#   --bind core|none    process binding, the same for all (default core)
#   --workdir DIR       where binaries and raw outputs go (default: a new directory)
#   -h, --help
# Environment: STMPI_BENCH_TIMEOUT (seconds per run, default 300).
# Exit status: 0 when every run succeeded, 1 when one failed, 2 for usage or build errors.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
prefix=$srcdir/_inst
impls_wanted=stmpi,mpich
repeats=5
trials=11
bind=core
workdir=""
die() { echo "fortran_pingpong.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --stmpi-prefix) prefix=${2:?}; shift ;;
    --impls) impls_wanted=${2:?}; shift ;;
    --repeats) repeats=${2:?}; shift ;;
    --trials) trials=${2:?}; shift ;;
    --bind) bind=${2:?}; shift ;;
    --workdir) workdir=${2:?}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1'" ;;
  esac
  shift
done
[[ "$bind" == core || "$bind" == none ]] || die "--bind wants core or none"
run_timeout=${STMPI_BENCH_TIMEOUT:-300}
workdir=${workdir:-$(mktemp -d "${TMPDIR:-/tmp}/stmpi-fpingpong.XXXXXX")}
mkdir -p "$workdir"
ifaces="c mpif mpi f08"
impls=()
for impl in ${impls_wanted//,/ }; do
  case $impl in
    stmpi)
      [[ -x "$prefix/bin/mpifort" ]] || die "no $prefix/bin/mpifort (an STMPI installation with Fortran)"
      impls+=(stmpi) ;;
    mpich)
      if command -v mpifort.mpich > /dev/null && command -v mpiexec.hydra > /dev/null; then impls+=(mpich)
      else echo "# mpich: mpifort.mpich or mpiexec.hydra not installed, left out" >&2; fi ;;
    *) die "unknown implementation '$impl'" ;;
  esac
done
[[ ${#impls[@]} -gt 0 ]] || die "nothing to run"
# build: <impl>-<iface>
for impl in "${impls[@]}"; do
  if [[ $impl == stmpi ]]; then fc=$prefix/bin/mpifort cc=$prefix/bin/mpicc; else fc=mpifort.mpich cc=mpicc.mpich; fi
  for iface in $ifaces; do
    exe=$workdir/$impl-$iface
    if [[ $iface == c ]]; then
      "$cc" -O2 "$here/fpingpong.c" -o "$exe" > "$exe.build" 2>&1 || { cat "$exe.build"; die "$impl: fpingpong.c did not build"; }
    else
      flag=IFACE_$(echo "$iface" | tr a-z A-Z)
      (cd "$workdir" && "$fc" -O2 -cpp -D"$flag" "$here/fpingpong.F90" -o "$exe") > "$exe.build" 2>&1 ||
        { cat "$exe.build"; die "$impl: fpingpong.F90 ($iface) did not build"; }
    fi
  done
done
launch() {  # launch IMPL PROGRAM ARGS...
  local impl=$1; shift
  if [[ $impl == stmpi ]]; then
    timeout -k 5 "$run_timeout" "$prefix/bin/mpiexec" -n 2 -bind-to "$bind" "$@"
  else
    timeout -k 5 "$run_timeout" mpiexec.hydra -n 2 -bind-to "$bind" "$@"
  fi
}
variants=()
for impl in "${impls[@]}"; do for iface in $ifaces; do variants+=("$impl-$iface"); done; done
echo "# fortran_pingpong: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null); ${#variants[@]} programs; $repeats repeats of $trials trials; binding $bind; load $(cut -d' ' -f1-3 /proc/loadavg)"
raw=$workdir/raw.txt
: > "$raw"
failures=()
for ((r = 0; r < repeats; r++)); do
  n=${#variants[@]}
  for ((k = 0; k < n; k++)); do
    v=${variants[$(((k + r) % n))]}
    out=$workdir/$v.$r.out
    if launch "${v%%-*}" "$workdir/$v" "$trials" < /dev/null > "$out" 2>&1 && grep -q '^allreduce ' "$out"; then
      awk -v v="$v" '$1 == "pingpong" || $1 == "allreduce" { print v, $1 "_" $2, $3 }' "$out" >> "$raw"
    else
      failures+=("$v (repeat $r)")
      echo "# $v failed in repeat $r:" >&2
      tail -5 "$out" | sed 's/^/#   /' >&2
    fi
  done
done
# medians over repeats, then the table and the ratios
awk -v variants="${variants[*]}" -v impls="${impls[*]}" '
  { vals[$1 SUBSEP $2] = vals[$1 SUBSEP $2] " " $3 }
  function med(s,   a, n, i, j, t) {
    n = split(s, a, " "); if (n == 0) return -1
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return a[int((n + 1) / 2)] + 0
  }
  END {
    nm = split("pingpong_8 pingpong_1048576 allreduce_8", metrics, " ")
    nv = split(variants, vs, " ")
    printf "%-18s", "median (us)"; for (i = 1; i <= nv; i++) printf " %12s", vs[i]; printf "\n"
    for (m = 1; m <= nm; m++) {
      printf "%-18s", metrics[m]
      for (i = 1; i <= nv; i++) { x = med(vals[vs[i] SUBSEP metrics[m]]); md[vs[i], metrics[m]] = x; printf " %12.3f", x }
      printf "\n"
    }
    ni = split(impls, im, " ")
    printf "\nratio (lower is better) %s\n", "Fortran over C of the same library; STMPI over MPICH, same program"
    printf "%-18s", "metric"
    for (k = 1; k <= ni; k++) for (f = 2; f <= 4; f++) printf " %14s", im[k] "-" (f == 2 ? "mpif" : f == 3 ? "mpi" : "f08") "/c"
    if (ni == 2) for (f = 1; f <= 4; f++) printf " %14s", (f == 1 ? "c" : f == 2 ? "mpif" : f == 3 ? "mpi" : "f08") " st/mpich"
    printf "\n"
    for (m = 1; m <= nm; m++) {
      printf "%-18s", metrics[m]
      for (k = 1; k <= ni; k++) for (f = 2; f <= 4; f++) {
        fi = (f == 2 ? "mpif" : f == 3 ? "mpi" : "f08")
        c = md[im[k] "-c", metrics[m]]; x = md[im[k] "-" fi, metrics[m]]
        printf " %14s", (c > 0 && x > 0) ? sprintf("%.3f", x / c) : "-"
      }
      if (ni == 2) for (f = 1; f <= 4; f++) {
        fi = (f == 1 ? "c" : f == 2 ? "mpif" : f == 3 ? "mpi" : "f08")
        a = md["stmpi-" fi, metrics[m]]; b = md["mpich-" fi, metrics[m]]
        printf " %14s", (a > 0 && b > 0) ? sprintf("%.3f", a / b) : "-"
      }
      printf "\n"
    }
  }' "$raw"
echo "# raw values: $raw"
if [[ ${#failures[@]} -gt 0 ]]; then
  printf '# failed: %s\n' "${failures[@]}"
  exit 1
fi
exit 0
