#!/bin/bash
# Brings up N "nodes" on this machine for multi-node runs: N network
# namespaces joined by a Linux bridge in the root namespace, so that Hydra
# (mpiexec.hydra) or Open MPI's mpirun, started in the root namespace, launch
# ranks on "other nodes" through maint/netns-launch.
#
# Usage: maint/netns.sh up N     create nodes 1..N (tears down what it made on failure)
#        maint/netns.sh down     remove the nodes, the bridge and the files made by up
#        maint/netns.sh status   list the nodes (exit 1 when none are up)
#        maint/netns.sh hosts    print the node addresses, comma separated (for -hosts / -H)
#        maint/netns.sh exec K COMMAND...   run COMMAND in node K's namespace
#
# Layout (P = $STMPI_NETNS_PREFIX, S = the subnet's first three octets):
#   bridge P-br in the root namespace, address S.1/24 (Hydra's proxies connect back to it);
#   node K (1..N): namespace P-nK, loopback up, interface net0 with address S.(K+1)/24,
#   linked to the bridge by the veth pair P-vK / net0. No default route: a node reaches the
#   bridge subnet and nothing else.
#   Host names: use the addresses (`hosts` prints them). Inside a node, /etc/hosts is
#   /etc/netns/P-nK/hosts (ip netns exec mounts it there; the real /etc/hosts is never
#   touched) and maps every node name and this machine's host name to its bridge address.
#   State: /run/stmpi-netns/P/made lists what up created (down removes exactly that);
#   /run/stmpi-netns/P/nodes, one line per node: "namespace address name", and
#   /run/stmpi-netns/P/NS.boot_id, the node's boot id (see maint/netns-launch).
#
# Environment:
#   STMPI_NETNS_PREFIX  name prefix, 1-8 characters [a-z0-9] (default "stmpi"); give each
#                       concurrent user (e.g. each CI job) its own prefix
#   STMPI_NETNS_SUBNET  first three octets of a /24 (default: the first 10.213.X.0/24, X=0..255,
#                       that no interface of this machine uses yet)
# Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN). When something cannot be created, `up` says
# what and why, removes what it made, and exits non-zero.
set -u

prefix=${STMPI_NETNS_PREFIX:-stmpi}
statedir_root=/run/stmpi-netns
statedir=$statedir_root/$prefix
nodes_file=$statedir/nodes

die() { echo "netns.sh: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }

[[ "$prefix" =~ ^[a-z0-9]{1,8}$ ]] ||
  die "STMPI_NETNS_PREFIX '$prefix': want 1-8 characters a-z, 0-9 (interface names are at most 15)"

need_root() {
  [[ $(id -u) -eq 0 ]] || die "$1 needs root (network namespaces, a bridge, mounts); running as uid $(id -u)"
  command -v ip >/dev/null || die "the 'ip' command (iproute2) is not installed"
}

# Addresses of the subnet S (three octets) that this machine already has.
subnet_in_use() {
  ip -4 -o addr show 2>/dev/null | awk '{print $4}' | grep -q "^${1//./\\.}\."
}

# reachable NAMESPACE|"" ADDRESS: a connection to port 9 (discard; nothing listens) is refused.
reachable() {
  local run=() out
  [[ -n "$1" ]] && run=(ip netns exec "$1")
  for _ in 1 2 3 4 5; do
    out=$("${run[@]}" timeout 3 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1)
    [[ $? -eq 0 || "$out" == *"refused"* ]] && return 0
    sleep 1
  done
  echo "netns.sh: $2: ${out:-no answer}" >&2
  return 1
}

# Removes exactly what `up` recorded in $statedir/made (newest first), nothing else.
do_down() {
  local kind name pid
  [[ -f "$statedir/made" ]] || { rm -rf "$statedir"; return 0; }
  while read -r kind name; do
    case "$kind" in
      netns)
        # Processes still running in the namespace (ranks of a failed job) end first.
        for pid in $(ip netns pids "$name" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        ip netns del "$name" 2>/dev/null ;;
      link) ip link del "$name" 2>/dev/null ;;   # a veth goes with its peer, a bridge alone
      dir) rm -rf "$name" ;;
    esac
  done < <(tac "$statedir/made")
  rm -rf "$statedir"
  rmdir /etc/netns 2>/dev/null
  # The lock file goes with the last prefix.
  if [[ -z "$(find "$statedir_root" -mindepth 1 -maxdepth 1 -type d 2>/dev/null)" ]]; then
    rm -f "$statedir_root/.lock"
    rmdir "$statedir_root" 2>/dev/null
  fi
  echo "netns.sh: removed the nodes of prefix '$prefix'"
  return 0
}

do_up() {
  local n=$1 subnet k ns addr bridge=$prefix-br host
  [[ "$n" =~ ^[1-9][0-9]?$ && $n -le 64 ]] || die "up: want a number of nodes 1..64, got '$n'"
  need_root up
  [[ -e "$statedir" ]] && die "nodes of prefix '$prefix' are up already ($statedir); run 'down' first or use another STMPI_NETNS_PREFIX"
  mkdir -p "$statedir_root" || die "cannot create $statedir_root"
  # One `up` at a time picks a subnet.
  exec 9>"$statedir_root/.lock"
  flock 9
  if [[ -n "${STMPI_NETNS_SUBNET:-}" ]]; then
    subnet=$STMPI_NETNS_SUBNET
    [[ "$subnet" =~ ^(10\.[0-9]+\.[0-9]+|192\.168\.[0-9]+|172\.(1[6-9]|2[0-9]|3[01])\.[0-9]+)$ ]] ||
      die "STMPI_NETNS_SUBNET '$subnet': want the first three octets of a private /24 (e.g. 10.213.0)"
    subnet_in_use "$subnet" && die "subnet $subnet.0/24 is already used on this machine (ip -4 addr); choose another STMPI_NETNS_SUBNET"
  else
    subnet=""
    for k in $(seq 0 255); do
      subnet_in_use "10.213.$k" || { subnet=10.213.$k; break; }
    done
    [[ -n "$subnet" ]] || die "every subnet 10.213.0-255.0/24 is in use; set STMPI_NETNS_SUBNET"
  fi
  mkdir -p "$statedir" || die "cannot create $statedir"
  : >"$statedir/made"
  trap 'echo "netns.sh: up failed; removing what it made" >&2; do_down >/dev/null' EXIT
  local err
  err=$(ip link add "$bridge" type bridge 2>&1) ||
    die "cannot create the bridge $bridge: $err (needs CAP_NET_ADMIN and bridge support in the kernel)"
  echo "link $bridge" >>"$statedir/made"
  ip addr add "$subnet.1/24" dev "$bridge" || die "cannot give $bridge the address $subnet.1/24"
  ip link set "$bridge" up || die "cannot bring $bridge up"
  host=$(hostname)
  : >"$statedir/nodes.new"
  for ((k = 1; k <= n; k++)); do
    ns=$prefix-n$k
    addr=$subnet.$((k + 1))
    err=$(ip netns add "$ns" 2>&1) || die "cannot create the network namespace $ns: $err"
    echo "netns $ns" >>"$statedir/made"
    ip link add "$prefix-v$k" type veth peer name net0 netns "$ns" 2>/dev/null ||
      die "cannot create the veth pair $prefix-v$k / net0 in $ns"
    echo "link $prefix-v$k" >>"$statedir/made"
    ip link set "$prefix-v$k" master "$bridge" && ip link set "$prefix-v$k" up ||
      die "cannot attach $prefix-v$k to $bridge"
    ip -n "$ns" link set lo up && ip -n "$ns" addr add "$addr/24" dev net0 &&
      ip -n "$ns" link set net0 up || die "cannot configure lo and net0 in $ns"
    echo "$ns $addr $ns" >>"$statedir/nodes.new"
    # The node's own boot id (maint/netns-launch mounts it over the machine's): libraries that
    # tell nodes apart by it (UCX's shared-memory transports) see different machines.
    cat /proc/sys/kernel/random/uuid >"$statedir/$ns.boot_id" || die "cannot write $statedir/$ns.boot_id"
  done
  for ((k = 1; k <= n; k++)); do
    ns=$prefix-n$k
    [[ -e "/etc/netns/$ns" ]] && die "/etc/netns/$ns exists already (not made by this run)"
    mkdir -p "/etc/netns/$ns" || die "cannot create /etc/netns/$ns"
    echo "dir /etc/netns/$ns" >>"$statedir/made"
    {
      echo "127.0.0.1 localhost"
      echo "$subnet.1 $host"
      awk '{print $2, $3}' "$statedir/nodes.new"
    } >"/etc/netns/$ns/hosts"
  done
  mv "$statedir/nodes.new" "$nodes_file"
  echo "$subnet" >"$statedir/subnet"
  # Every node answers on the bridge before anyone launches there: a TCP connection to a
  # closed port is refused at once by a reachable node (no ping needed).
  for ((k = 1; k <= n; k++)); do
    addr=$subnet.$((k + 1))
    reachable "" "$addr" || die "node $k ($addr) does not answer from the root namespace on $bridge"
    reachable "$prefix-n1" "$addr" || die "node $k ($addr) does not answer from node 1"
    reachable "$prefix-n$k" "$subnet.1" || die "node $k does not reach $subnet.1 on $bridge"
  done
  trap - EXIT
  echo "netns.sh: $n nodes up on $bridge ($subnet.1/24): hosts $(do_hosts)"
}

do_hosts() {
  [[ -f "$nodes_file" ]] || die "no nodes of prefix '$prefix' are up (run: $0 up N)"
  awk '{print $2}' "$nodes_file" | paste -sd,
}

do_status() {
  [[ -f "$nodes_file" ]] || { echo "netns.sh: no nodes of prefix '$prefix' are up"; return 1; }
  echo "bridge $prefix-br, address $(cat "$statedir/subnet").1/24"
  local ns addr name state
  while read -r ns addr name; do
    state=missing
    ip netns list | awk '{print $1}' | grep -qx "$ns" && state="up, $(ip netns pids "$ns" | wc -l) processes"
    echo "node $name: namespace $ns, address $addr ($state)"
  done <"$nodes_file"
}

case "${1:-}" in
  up) [[ $# -eq 2 ]] || { usage >&2; exit 2; }; do_up "$2" ;;
  down) need_root down; do_down ;;
  status) do_status ;;
  hosts) do_hosts ;;
  exec)
    [[ $# -ge 3 && "$2" =~ ^[0-9]+$ ]] || { usage >&2; exit 2; }
    need_root exec
    ns=$prefix-n$2
    grep -q "^$ns " "$nodes_file" 2>/dev/null || die "no node $2 of prefix '$prefix'"
    shift 2
    exec ip netns exec "$ns" "$@" ;;
  -h|--help) usage ;;
  *) usage >&2; exit 2 ;;
esac
