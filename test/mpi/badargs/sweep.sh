#!/bin/bash
# Runs every case of the bad-argument sweep in a job of its own and prints,
# per program, how many cases gave the right error class and message, the
# wrong class (or MPI_SUCCESS, or a message that does not name the argument),
# a crash (a signal or a non-zero exit) or a hang (killed after CASE_TIMEOUT
# seconds), and how many left a /dev/shm segment of the job behind (leak;
# removed after counting).
#
#   test/mpi/badargs/sweep.sh [--lib DIR] [--mpiexec PATH] [--keep DIR] [PROGRAM...]
#
# --lib DIR compiles against the libmpi in DIR (default: the build tree's
# .libs), so the same cases can be run against another build. Not part of
# `make check` (one job per case takes minutes); the programs themselves are.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${SRCDIR:-$(cd "$here/../../.." && pwd)}
builddir=${BUILDDIR:-$srcdir/build}
lib="$builddir/.libs"
mpiexec="$builddir/mpiexec"
case_timeout=${CASE_TIMEOUT:-20}
keep=""
programs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lib) lib=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) programs+=("$1"); shift ;;
  esac
done
if [[ ${#programs[@]} -eq 0 ]]; then
  while read -r name nprocs rest; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    programs+=("$name")
  done < "$here/testlist"
fi
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
printf '%-10s %6s %6s %12s %6s %5s %5s\n' program cases right wrong-class crash hang leak
totals=(0 0 0 0 0 0)
for prog in "${programs[@]}"; do
  nprocs=$(awk -v p="$prog" '$1 == p { print $2; exit }' "$here/testlist")
  exe="$work/$prog"
  gcc -O1 -w -I"$srcdir/include" -I"$srcdir/test/mpi/util" "$here/$prog.c" -o "$exe" \
      -L"$lib" -Wl,-rpath,"$lib" -lmpi -lm || { echo "$prog: does not compile"; continue; }
  n=$(timeout 60 "$mpiexec" -n "$nprocs" "$exe" --count 2>/dev/null | sed -n 's/^BADARGS cases=//p')
  [[ -z "$n" ]] && { echo "$prog: --count failed"; continue; }
  right=0 wrong=0 crash=0 hang=0 leak=0
  for ((k = 0; k < n; k++)); do
    log="$work/$prog.$k.log"
    # mpiexec's pid names the job's segments (stmpi-kvs_<pid>_0-...).
    timeout -k 2 "$case_timeout" bash -c 'echo $$ >"$0"; exec "$@"' "$work/pid" \
        "$mpiexec" -n "$nprocs" "$exe" --case "$k" >"$log" 2>&1
    rc=$?
    if compgen -G "/dev/shm/stmpi-kvs_$(cat "$work/pid")_0-*" >/dev/null; then
      leak=$((leak + 1))
      rm -f /dev/shm/stmpi-kvs_"$(cat "$work/pid")"_0-*
    fi
    results=$(grep -c "^BADARGS case=$k " "$log")
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
      hang=$((hang + 1)); echo "  $prog case $k: hang" >>"$work/summary"
    elif [[ $results -lt $nprocs ]]; then
      crash=$((crash + 1)); echo "  $prog case $k: crash (exit $rc)" >>"$work/summary"
    elif grep "^BADARGS case=$k " "$log" | grep -qv "outcome=right"; then
      wrong=$((wrong + 1))
      echo "  $prog case $k: $(grep -v 'outcome=right' "$log" | grep -m1 'check failed')" >>"$work/summary"
    else
      right=$((right + 1))
    fi
  done
  printf '%-10s %6d %6d %12d %6d %5d %5d\n' "$prog" "$n" $right $wrong $crash $hang $leak
  totals=($((totals[0] + n)) $((totals[1] + right)) $((totals[2] + wrong)) $((totals[3] + crash)) \
          $((totals[4] + hang)) $((totals[5] + leak)))
done
printf '%-10s %6d %6d %12d %6d %5d %5d\n' total "${totals[@]}"
[[ -f "$work/summary" ]] && { echo "failing cases:"; cat "$work/summary"; }
[[ -z "$keep" ]] && rm -rf "$work"
exit 0
