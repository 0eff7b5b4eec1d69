#!/bin/bash
# The multi-node test bed itself: maint/netns.sh brings up 2 nodes, Hydra launches through
# maint/netns-launch into them (host names, PMI_process_mapping), a program linked with our
# library runs 2 ranks in one node under Hydra, Open MPI runs across the nodes, and
# maint/netns.sh down leaves no namespace, link or file behind. Needs root: without it the
# test fails with netns.sh's reason.
set -u
srcdir=$STMPI_SRCDIR
out="$STMPI_BUILDDIR/test/mpi/out/netns"
mkdir -p "$out"
export STMPI_NETNS_PREFIX=t$$
netns=$srcdir/maint/netns.sh
launch=$srcdir/maint/netns-launch
failed=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failed=1; }
trap '"$netns" down >/dev/null 2>&1' EXIT
command -v mpiexec.hydra >/dev/null || { echo "FAIL: mpiexec.hydra (Debian package mpich) is not installed"; exit 1; }
"$netns" up 2 || { echo "FAIL: maint/netns.sh up 2 failed (reason above)"; exit 1; }
"$netns" status
IFS=, read -r h1 h2 <<<"$("$netns" hosts)"
hydra=(timeout -k 5 60 mpiexec.hydra -launcher ssh -launcher-exec "$launch")

# Host names: 2 ranks on each node.
got=$("${hydra[@]}" -hosts "$h1:2,$h2:2" -n 4 hostname 2>&1 | sort | uniq -c | awk '{print $1, $2}' | paste -sd' ')
[[ "$got" == "2 $STMPI_NETNS_PREFIX-n1 2 $STMPI_NETNS_PREFIX-n2" ]] && ok "hostname on 2 nodes x 2: $got" ||
  bad "hostname on 2 nodes x 2: '$got'"

# What Hydra tells the ranks about nodes, read with a minimal PMI-1 client.
cat >"$out/pmimap.py" <<'PY'
import os, socket
f = socket.socket(fileno=int(os.environ["PMI_FD"])).makefile("rw")
def cmd(c):
    f.write(c + "\n"); f.flush(); return f.readline().strip()
cmd("cmd=init pmi_version=1 pmi_subversion=1")
kvs = cmd("cmd=get_my_kvsname").split("kvsname=")[1].split()[0]
reply = cmd("cmd=get kvsname=%s key=PMI_process_mapping" % kvs)
# One file per rank: lines that ranks print through Hydra's forwarded
# stdout can interleave mid-line.
with open(os.path.join(os.environ["PMIMAP_DIR"], "rank." + os.environ["PMI_RANK"]), "w") as out:
    out.write("%s %s %s\n" % (os.environ["PMI_RANK"], os.uname().nodename, reply.split("value=")[1].split()[0]))
cmd("cmd=finalize")
PY
for case in "$h1:2,$h2:2 4 (vector,(0,2,2))" "$h1,$h2 2 (vector,(0,2,1))" "$h1:3,$h2:1 4 (vector,(0,1,3),(1,1,1))"; do
  read -r hl n want <<<"$case"
  rm -rf "$out/pmimap" && mkdir -p "$out/pmimap"
  "${hydra[@]}" -hosts "$hl" -n "$n" -genv PMIMAP_DIR "$out/pmimap" python3 "$out/pmimap.py" 2>&1 |
    sed 's/^/    | /'
  got=$(cat "$out"/pmimap/rank.* 2>/dev/null | awk 'NF == 3 && $1 ~ /^[0-9]+$/ {print $3}' |
    sort -u | paste -sd' ')
  [[ $(ls "$out"/pmimap | wc -l) -eq $n ]] || got="$got (answers from $(ls "$out"/pmimap | wc -l) of $n ranks)"
  [[ "$got" == "$want" ]] && ok "PMI_process_mapping for -hosts $hl -n $n: $got" ||
    bad "PMI_process_mapping for -hosts $hl -n $n: '$got', expected '$want'"
done

# Our library under Hydra, 2 ranks in one node (shared memory inside the node).
$STMPI_TEST_CC $STMPI_TEST_CFLAGS "$srcdir/test/mpi/multinode/probe.c" -o "$out/probe" $STMPI_TEST_LIBS || exit 1
log=$("${hydra[@]}" -hosts "$h1" -n 2 "$out/probe" 2>&1)
status=$?
echo "$log" | sed 's/^/    | /'
if [[ $status -eq 0 ]] && grep -q "No Errors" <<<"$log" && [[ $(grep -c "on $STMPI_NETNS_PREFIX-n1$" <<<"$log") -eq 2 ]]; then
  ok "STMPI, 2 ranks in node 1 under Hydra"
else
  bad "STMPI, 2 ranks in node 1 under Hydra (exit status $status)"
fi

# Open MPI across the nodes over TCP, 2 x 2.
if command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 "$srcdir/test/mpi/multinode/probe.c" -o "$out/probe.ompi"; then
  subnet=$(cat "/run/stmpi-netns/$STMPI_NETNS_PREFIX/subnet").0/24
  log=$(timeout -k 5 60 mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent "$launch" -H "$h1:2,$h2:2" -n 4 \
        --mca pml ob1 --mca btl tcp,self,vader --mca btl_tcp_if_include "$subnet" \
        --mca oob_tcp_if_include "$subnet" "$out/probe.ompi" 2>&1 </dev/null)
  status=$?
  if [[ $status -eq 0 ]] && grep -q "No Errors" <<<"$log" && [[ $(grep -c "on $STMPI_NETNS_PREFIX-n2$" <<<"$log") -eq 2 ]]; then
    ok "Open MPI, 2 nodes x 2 over TCP"
  else
    echo "$log" | tail -n 10 | sed 's/^/    | /'
    bad "Open MPI, 2 nodes x 2 over TCP (exit status $status)"
  fi
else
  echo "note: Open MPI (mpicc.openmpi) not installed; its cross-node run left out"
fi

# An unknown host is refused the way ssh refuses it.
"$launch" -x 10.255.255.254 true 2>"$out/unknown.err"
status=$?
[[ $status -eq 255 ]] && grep -q "not a node" "$out/unknown.err" && ok "netns-launch refuses an unknown host (255)" ||
  bad "netns-launch with an unknown host: exit status $status, $(cat "$out/unknown.err")"

"$netns" down
trap - EXIT
left=$( { ip netns list; ip -o link show; ls /etc/netns /run/stmpi-netns 2>/dev/null; } | grep -c "$STMPI_NETNS_PREFIX")
[[ $left -eq 0 ]] && ok "down leaves nothing behind" || bad "down left $left namespaces, links or files of $STMPI_NETNS_PREFIX"
[[ $failed -eq 0 ]] && echo "No Errors"
exit $failed
