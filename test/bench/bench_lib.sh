# Shell helpers shared by the benchmark drivers (run.sh, rma_run.sh,
# faces_run.sh); sourced, not run.

# CPU idle percentage over the next 2 seconds (idle + iowait, from /proc/stat).
idle_percent() {
  local a b total=0 i
  read -r -a a < <(grep '^cpu ' /proc/stat)
  sleep 2
  read -r -a b < <(grep '^cpu ' /proc/stat)
  for ((i = 1; i < ${#a[@]}; i++)); do total=$((total + b[i] - a[i])); done
  echo $((total > 0 ? (b[4] - a[4] + b[5] - a[5]) * 100 / total : 100))
}

# With $wait_idle set (a percentage), waits until the CPUs were that idle,
# at most $wait_max seconds (default 300); adds the wait to $waited_total.
waited_total=0
wait_for_idle() {
  [[ -z "${wait_idle:-}" ]] && return
  local start limit=${wait_max:-300} pct
  start=$(date +%s)
  while :; do
    pct=$(idle_percent)
    [[ $pct -ge $wait_idle ]] && break
    if (( $(date +%s) - start >= limit )); then
      echo "# wait-idle: CPUs only ${pct}% idle after ${limit} s; running anyway" >&2
      break
    fi
  done
  waited_total=$((waited_total + $(date +%s) - start))
}

# Runs across nodes (test/bench/net_run.sh sets these through --hosts, --launcher-exec and
# --subnet of run.sh and rma_run.sh): $net_hosts is a comma list of 2 hosts, $net_launcher an
# ssh stand-in such as maint/netns-launch, $net_subnet the CIDR of the nodes' network (Open
# MPI's TCP interfaces). net_launch IMPL NPROCS TIMEOUT PROGRAM ARGS... starts the first
# ceil(NPROCS/2) ranks on the first host and the rest on the second, unbound (the "nodes" share
# the machine's CPUs): STMPI and MPICH under mpiexec.hydra, Open MPI under its mpirun (ob1 and
# the TCP BTL, vader inside a node; one-sided through osc pt2pt, Open MPI's RMA over its
# point-to-point: its osc rdma finds no RMA-capable BTL over TCP and fails MPI_Win_allocate).
net_hosts=""
net_launcher=""
net_subnet=""
net_exit_grace=${STMPI_BENCH_EXIT_GRACE:-15}
net_done_re='^# [a-z_]*: done'  # the line that says a program printed its results
net_launch() {
  local impl=$1 np=$2 limit=$3 h1 h2 a b cmd=()
  shift 3
  IFS=, read -r h1 h2 <<<"$net_hosts"
  a=$(((np + 1) / 2)); b=$((np - a))
  local hostlist=$h1:$a
  [[ $b -gt 0 ]] && hostlist+=,$h2:$b
  case "$impl" in
    stmpi|base|mpich)
      cmd=(mpiexec.hydra -hosts "$hostlist" -launcher ssh -launcher-exec "$net_launcher"
           -bind-to none -n "$np") ;;
    openmpi)
      # shellcheck disable=SC2054  # the commas belong to the BTL list
      cmd=(mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "$net_launcher" -H "$hostlist"
           --bind-to none --mca pml ob1 --mca btl tcp,self,vader --mca btl_tcp_if_include "$net_subnet"
           --mca oob_tcp_if_include "$net_subnet" --mca osc pt2pt -n "$np") ;;
  esac
  # A run that printed its "# BENCH: done" line (or whatever $net_done_re matches) and
  # still has not exited $net_exit_grace seconds later (MPICH over UCX's TCP transport can
  # spin in MPI_Finalize) is stopped; its results count, and the note in its stderr says so.
  local out pid seen="" me=$BASHPID
  out=$(readlink "/proc/$me/fd/1")   # the caller's output file
  timeout -k 5 "$limit" "${cmd[@]}" "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if [[ -z "$seen" && -f "$out" ]] && grep -Eq "$net_done_re" "$out"; then seen=$SECONDS; fi
    if [[ -n "$seen" ]] && ((SECONDS - seen >= net_exit_grace)); then
      echo "net_launch: printed its results but did not exit within ${net_exit_grace}s (hung in MPI_Finalize); stopped" >&2
      kill -TERM "$pid" 2>/dev/null
      wait "$pid"
      return 0
    fi
    sleep 1
  done
  wait "$pid"
}

# Brings up 2 nodes (maint/netns.sh; root only) for net_launch: sets net_hosts, net_launcher,
# net_subnet and net_up_text (what netns.sh said); the nodes go at exit. Prefix: $1 unless
# STMPI_NETNS_PREFIX is set. Returns 1, with netns.sh's message in net_up_text, on failure.
net_up() {
  local tree
  tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  export STMPI_NETNS_PREFIX=${STMPI_NETNS_PREFIX:-$1}
  net_up_text=$("$tree/maint/netns.sh" up 2 2>&1) || return 1
  # shellcheck disable=SC2064  # the tree is known now
  trap "'$tree/maint/netns.sh' down >/dev/null 2>&1" EXIT
  net_hosts=$("$tree/maint/netns.sh" hosts)
  net_launcher=$tree/maint/netns-launch
  net_subnet=$(cat "/run/stmpi-netns/$STMPI_NETNS_PREFIX/subnet").0/24
}

# Parses --hosts/--launcher-exec/--subnet for the drivers; returns 1 for other options.
net_option() {  # option value
  case "$1" in
    --hosts) net_hosts=$2 ;;
    --launcher-exec) net_launcher=$2 ;;
    --subnet) net_subnet=$2 ;;
    *) return 1 ;;
  esac
}

# copy_stmpi_build NAME TREE [check]: TREE's .libs/libmpi.so.12 and mpiexec into
# $workdir/NAME/lib and bin (the library also as libmpi.so and as libmpich.so.12, the soname
# programs need), so a rebuild during the run cannot change what runs; sets copied_desc. With
# "check", a library older than the sources is reported (not rebuilt). Needs $workdir,
# $srcdir and die().
copy_stmpi_build() {
  local name=$1 tree=$2 check=${3:-} lib newer
  lib="$tree/.libs/libmpi.so.12"
  [[ -e "$lib" && -x "$tree/mpiexec" ]] ||
    die "$tree has no .libs/libmpi.so.12 or mpiexec (build STMPI first)"
  if [[ "$check" == check ]]; then
    newer=$(find "$srcdir/src" "$srcdir/include" -newer "$lib" -type f \( -name '*.cc' -o -name '*.h' \) 2>/dev/null | head -3)
    [[ -n "$newer" ]] && echo "$(basename "$0"): warning: sources newer than $lib, e.g. $(echo $newer)" >&2
  fi
  mkdir -p "$workdir/$name/lib" "$workdir/$name/bin"
  cp -L "$lib" "$workdir/$name/lib/libmpi.so.12" || die "cannot copy $lib"
  ln -sf libmpi.so.12 "$workdir/$name/lib/libmpi.so"
  ln -sf libmpi.so.12 "$workdir/$name/lib/libmpich.so.12"
  cp -L "$tree/mpiexec" "$workdir/$name/bin/mpiexec" || die "cannot copy $tree/mpiexec"
  copied_desc="build tree $tree (libmpi.so.12 of $(date -r "$lib" '+%F %T'), sha1 $(sha1sum "$lib" | cut -c1-12), copied)"
}
