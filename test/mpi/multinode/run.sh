#!/bin/bash
# Cross-node tests: brings up 2 nodes (network namespaces, maint/netns.sh), runs the
# programs of test/mpi/multinode/programs across them under MPICH's Hydra
# (mpiexec.hydra -launcher-exec maint/netns-launch) once per libfabric provider and once on
# UCX (each where the build has that module; a module it lacks is reported as SKIP), then
# runs the whole test/mpi suite once on one node with STMPI_DEVICE_NOLOCAL=yes (every
# peer through the network module), tears the nodes down and prints
#   PASS: multinode/PROVIDER/chapter/name (nprocs)    FAIL: ... : why; log: FILE
#   PASS: nolocal/chapter/name (nprocs)                ...
#   multinode tests: N passed, M failed
#
# Gates, never silent skips: before the programs of a provider run, a probe (a ring and an
# allreduce on 2 nodes x 1 rank) must pass; when it fails (e.g. at MPI_Init because the
# library has no network module yet), each program of that provider is reported as FAIL
# with the probe's error. When stmpi_info does not list STMPI_DEVICE_NOLOCAL, each nolocal
# entry is FAIL with that reason. When the nodes cannot be brought up (not root, no
# namespaces), every cross-node entry is FAIL with netns.sh's reason.
#
# Usage: test/mpi/multinode/run.sh [options]
#   --providers LIST   '|'-separated runs: a value of STMPI_OFI_PROVIDER (';' inside it) runs
#                      on the ofi module (STMPI_NETMOD=ofi), "ucx" on the UCX module
#                      (STMPI_NETMOD=ucx) (default "sockets|tcp;ofi_rxm|ucx")
#   --filter REGEX     only testlist entries whose chapter/name matches
#   --no-nolocal       leave out the STMPI_DEVICE_NOLOCAL=yes suite
#   --no-multinode     only the STMPI_DEVICE_NOLOCAL=yes suite
#   --impl stmpi|mpich|openmpi
#                      run the cross-node programs with another MPI, built with its mpicc
#                      and launched by its launcher through the same nodes (to check the test
#                      bed; programs marked stmpi-only are reported as SKIP, the provider loop
#                      and the nolocal suite are STMPI's only)
#   --env NAME=VALUE   passed to every rank of the cross-node runs (repeatable), e.g.
#                      --env STMPI_OFI_IFACE=net0 --env STMPI_DEVICE_VERBOSE=yes
#   --keep             leave the nodes up at the end (maint/netns.sh down removes them)
# Environment: BUILDDIR (STMPI build tree, default .), SRCDIR (default: this script's
#   ../../..), STMPI_TEST_TIMEOUT (default limit per program, 60 s; the list's timeout=
#   wins), STMPI_NETNS_PREFIX (default: m<pid>, so concurrent runs do not collide), CC.
#   Every other variable of the environment reaches the ranks as well (Hydra passes the
#   launching environment on).
# Exit status 0 when everything passed.
set -u
srcdir=${SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
builddir=$(cd "${BUILDDIR:-.}" && pwd)
providers="sockets|tcp;ofi_rxm|ucx"
filter=.
do_nolocal=1
do_multinode=1
impl=stmpi
keep=0
extra_env=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --providers) providers=${2:?}; shift ;;
    --filter) filter=${2:?}; shift ;;
    --no-nolocal) do_nolocal=0 ;;
    --no-multinode) do_multinode=0 ;;
    --impl) impl=${2:?}; shift ;;
    --env) [[ "${2:-}" == *=* ]] || { echo "run.sh: --env wants NAME=VALUE" >&2; exit 2; }
           extra_env+=("$2"); shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$impl" =~ ^(stmpi|mpich|openmpi)$ ]] || { echo "run.sh: --impl wants stmpi, mpich or openmpi" >&2; exit 2; }
[[ $impl != stmpi ]] && do_nolocal=0

default_timeout=${STMPI_TEST_TIMEOUT:-60}
outdir=$builddir/test/mpi/multinode/out-$impl
mkdir -p "$outdir"
export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-m$$}
netns=$srcdir/maint/netns.sh
launch=$srcdir/maint/netns-launch
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

# ---- the programs -------------------------------------------------------------------------
entries=()   # "chapter/name nprocs timeout args env stmpi_only"
while read -r id nprocs rest; do
  [[ -z "$id" || "$id" == \#* ]] && continue
  [[ "$id" =~ $filter ]] || continue
  entries+=("$id $nprocs $rest")
done <"$srcdir/test/mpi/multinode/programs"

compile() {  # chapter/name -> exe path on stdout; 1 when it does not compile
  local id=$1 src=$srcdir/test/mpi/$1.c exe=$outdir/${1//\//_}
  if [[ ! -x "$exe" || "$src" -nt "$exe" || ( $impl == stmpi && "$builddir/.libs/libmpi.so" -nt "$exe" ) ]]; then
    case $impl in
      stmpi) ${CC:-gcc} -O2 -Wall -I"$srcdir/include" -I"$srcdir/test/mpi/util" "$src" -o "$exe" \
               -L"$builddir/.libs" -Wl,-rpath,"$builddir/.libs" -lmpi -lm ;;
      mpich) mpicc.mpich -O2 -I"$srcdir/test/mpi/util" "$src" -o "$exe" -lm ;;
      openmpi) mpicc.openmpi -O2 -I"$srcdir/test/mpi/util" "$src" -o "$exe" -lm ;;
    esac >"$exe.build.log" 2>&1 </dev/null || return 1
  fi
  echo "$exe"
}

# mpirun_on NPROCS TIMEOUT LOG ENV... -- PROGRAM ARGS...: the ranks split over the 2 nodes,
# node 1 the first ceil(n/2). Sets $status.
hosts=()
mpirun_on() {
  local n=$1 limit=$2 log=$3 a b
  shift 3
  local envs=()
  while [[ "$1" != -- ]]; do envs+=("$1"); shift; done
  shift
  a=$(((n + 1) / 2)); b=$((n - a))
  local hostlist=${hosts[0]}:$a
  [[ $b -gt 0 ]] && hostlist+=,${hosts[1]}:$b
  local genv=() e
  case $impl in
    stmpi|mpich)
      for e in "${envs[@]}"; do genv+=(-genv "${e%%=*}" "${e#*=}"); done
      timeout -k 5 "$limit" mpiexec.hydra -hosts "$hostlist" -launcher ssh -launcher-exec "$launch" \
        "${genv[@]}" -n "$n" "$@" ;;
    openmpi)
      for e in "${envs[@]}"; do genv+=(-x "$e"); done
      timeout -k 5 "$limit" mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "$launch" \
        -H "$hostlist" --mca pml ob1 --mca btl tcp,self,vader \
        --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24" --mca osc pt2pt \
        "${genv[@]}" -n "$n" "$@" ;;
  esac </dev/null >"$log" 2>&1
  status=$?
}

why_of() {  # status timeout
  case $1 in
    124|137) echo "timed out after ${2}s" ;;
    98) echo "no 'No Errors' line" ;;
    *) echo "exit status $1" ;;
  esac
}

run_provider() {  # provider label ("" for a peer MPI)
  local prov=$1 tag=$2 gate="" envs=() word id nprocs limit args env_list only exe log
  if [[ "$prov" == ucx ]]; then envs+=("STMPI_NETMOD=ucx")
  elif [[ -n "$prov" ]]; then envs+=("STMPI_NETMOD=ofi" "STMPI_OFI_PROVIDER=$prov"); fi
  envs+=("${extra_env[@]}")
  if [[ -n "$nodes_down" ]]; then
    gate="nodes not up: $nodes_down"
  else
    # The probe: a ring and an allreduce on 2 nodes x 1 rank.
    if ! exe=$(compile multinode/probe 2>/dev/null); then
      gate="the probe program did not compile: $(head -c 300 "$outdir/multinode_probe.build.log")"
    else
      log=$outdir/probe.$tag.log
      mpirun_on 2 "$default_timeout" "$log" "${envs[@]}" -- "$exe"
      [[ $status -eq 0 ]] && ! grep -q "No Errors" "$log" && status=98
      if [[ $status -eq 0 ]]; then
        pass "multinode/$tag/probe (2)"
      else
        gate="the 2-node probe failed ($(why_of $status "$default_timeout")): $(grep -v '^\s*$' "$log" | head -3 | tr '\n' ' ' | cut -c1-400)"
        fail "multinode/$tag/probe (2): $(why_of $status "$default_timeout"); log: $log"
        sed 's/^/    | /' "$log" | tail -n 8
      fi
    fi
  fi
  for entry in "${entries[@]}"; do
    read -r id nprocs rest <<<"$entry"
    limit=$default_timeout; args=(); env_list=(); only=0; expect_fail=0
    for word in $rest; do
      case "$word" in
        timeout=*) limit=${word#timeout=} ;;
        expect=fail) expect_fail=1 ;;
        env=*) env_list+=("${word#env=}") ;;
        args=*) args+=("${word#args=}") ;;
        stmpi-only) only=1 ;;
      esac
    done
    local name="multinode/$tag/$id ($nprocs)"
    if [[ $only -eq 1 && $impl != stmpi ]]; then echo "SKIP: $name: uses STMPI's MPIX_ calls"; continue; fi
    if [[ -n "$gate" ]]; then fail "$name: not run: $gate"; continue; fi
    log=$outdir/${id//\//_}.$nprocs${args[0]:+.${args[0]}}.$tag.log
    if ! exe=$(compile "$id"); then
      fail "$name: did not compile; log: $outdir/${id//\//_}.build.log"
      continue
    fi
    mpirun_on "$nprocs" "$limit" "$log" "${envs[@]}" "${env_list[@]}" -- "$exe" "${args[@]}"
    if [[ $expect_fail -eq 1 ]]; then
      # A fault on one node: the launcher must end the whole job (no timeout), exit
      # non-zero, name the failed rank, and leave no process of the job behind.
      local why=""
      sleep 1
      if [[ $status -eq 124 || $status -eq 137 ]]; then why="hung: timed out after ${limit}s"
      elif [[ $status -eq 0 ]]; then why="exit status 0 after a rank failed"
      elif ! grep -qiE 'rank 1[^0-9]|rank 1$' "$log"; then why="the output does not name rank 1"
      elif pgrep -f "$exe" >/dev/null; then why="processes left behind: $(pgrep -f "$exe" | tr '\n' ' ')"; pkill -9 -f "$exe"
      fi
      if [[ -z "$why" ]]; then pass "$name"; else fail "$name: $why; log: $log"; tail -n 10 "$log" | sed 's/^/    | /'; fi
      continue
    fi
    [[ $status -eq 0 ]] && ! grep -q "No Errors" "$log" && status=98
    if [[ $status -eq 0 ]]; then
      pass "$name"
    else
      fail "$name: $(why_of $status "$limit"); log: $log"
      tail -n 10 "$log" | sed 's/^/    | /'
    fi
  done
}

# ---- cross-node -----------------------------------------------------------------------------
subnet=""
nodes_down=""
if [[ $do_multinode -eq 1 ]]; then
  cleanup() { [[ $keep -eq 1 ]] || "$netns" down >/dev/null 2>&1; }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  if ! command -v mpiexec.hydra >/dev/null; then
    nodes_down="mpiexec.hydra (Debian package mpich) is not installed"
  elif ! up_out=$("$netns" up 2 2>&1); then
    nodes_down=$(echo "$up_out" | tr '\n' ' ' | cut -c1-400)
  else
    echo "# $up_out"
    IFS=, read -r -a hosts <<<"$("$netns" hosts)"
    subnet=$(cat "/run/stmpi-netns/$STMPI_NETNS_PREFIX/subnet")
  fi
  if [[ $impl == stmpi ]]; then
    IFS='|' read -r -a provider_list <<<"$providers"
    build_options=$("$builddir/stmpi_info" 2>/dev/null | grep '^build options:')
    for prov in "${provider_list[@]}"; do
      module=ofi
      [[ "$prov" == ucx ]] && module=ucx
      if [[ -n "$build_options" && "$build_options" != *" $module=yes"* ]]; then
        echo "SKIP: multinode/${prov//;/+}: this build has no $module network module ($build_options)"
        continue
      fi
      run_provider "$prov" "${prov//;/+}"
    done
  else
    run_provider "" "$impl"
  fi
  cleanup
  trap - EXIT
fi

# ---- the whole suite with every peer through the network module -------------------------------
if [[ $do_nolocal -eq 1 ]]; then
  not_run=""
  info=$builddir/stmpi_info
  if [[ ! -x "$info" ]]; then
    not_run="no $info to tell whether this build has STMPI_DEVICE_NOLOCAL"
  elif ! "$info" 2>/dev/null | grep -q '^ *STMPI_DEVICE_NOLOCAL '; then
    not_run="this build has no STMPI_DEVICE_NOLOCAL parameter (stmpi_info does not list it)"
  fi
  # The launcher chapter tests mpiexec and Hydra themselves, not the device.
  chapters=$(cd "$srcdir/test/mpi" && ls -d */testlist | sed 's,/testlist,,' | grep -vx launcher | paste -sd'|')
  lines=$(STMPI_DEVICE_NOLOCAL=yes STMPI_TEST_LABEL=nolocal/ STMPI_TEST_NOT_RUN="$not_run" \
          STMPI_TEST_FILTER="^($chapters)/" \
          BUILDDIR="$builddir" SRCDIR="$srcdir" bash "$srcdir/test/mpi/run_tests.sh" 2>&1)
  echo "$lines" | grep -v '^mpi tests: '
  count=$(echo "$lines" | grep '^mpi tests: ' | tail -1)
  if [[ -z "$count" ]]; then
    fail "nolocal: test/mpi/run_tests.sh printed no count"
  else
    passed=$((passed + $(echo "$count" | sed -E 's/.* ([0-9]+) passed.*/\1/')))
    failed=$((failed + $(echo "$count" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
  fi
fi

echo "multinode tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
