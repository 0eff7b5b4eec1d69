#!/bin/bash
# The device's peer table: nodes come from the launcher's PMI_process_mapping
# (STMPI_DEVICE_VERBOSE=yes prints the table), and STMPI_DEVICE_NOLOCAL=yes,
# which needs a network module: with one built (stmpi_info says ofi=yes) it
# runs, and STMPI_NETMOD=none is an init error naming the parameter; without
# one it is an init error naming STMPI_DEVICE_NOLOCAL (a lone rank has no
# peer and always runs).
n=${1:-3}
set -u
out="$STMPI_BUILDDIR/test/mpi/out"
mkdir -p "$out"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }
cat > "$out/peer_table_ring.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int token = rank + 100, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT,
               (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int bad = got != (rank + size - 1) % size + 100, total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "No Errors\n" : "Found %d errors\n", total);
  MPI_Finalize();
  return total != 0;
}
PROG
# shellcheck disable=SC2086
$STMPI_TEST_CC $STMPI_TEST_CFLAGS "$out/peer_table_ring.c" -o "$out/peer_table_ring" $STMPI_TEST_LIBS ||
  { echo "FAIL: cannot compile"; exit 1; }

output=$(STMPI_DEVICE_VERBOSE=yes STMPI_DEVICE_NOLOCAL=no timeout -k 5 60 "$STMPI_MPIEXEC" -n "$n" "$out/peer_table_ring" 2>&1)
status=$?
echo "$output"
[ $status -eq 0 ] && grep -q "No Errors" <<<"$output" && pass "verbose run" || fail "verbose run: status $status"
grep -q "nodes from PMI_process_mapping (vector,(0,1,$n))" <<<"$output" &&
  pass "nodes from the launcher's mapping" || fail "no 'nodes from PMI_process_mapping' line"
grep -q "rank 0 -> rank 0: node 0, self" <<<"$output" && pass "self entry" || fail "no self entry"
grep -q "rank 0 -> rank $((n - 1)): node 0, shm" <<<"$output" && pass "shm entry" || fail "no shm entry"

netmod=no
"$STMPI_BUILDDIR/stmpi_info" 2>/dev/null | grep -q "ofi=yes" && netmod=yes
export STMPI_OFI_IFACE=lo  # network module traffic stays on loopback
output=$(STMPI_DEVICE_NOLOCAL=yes timeout -k 5 60 "$STMPI_MPIEXEC" -n 2 "$out/peer_table_ring" 2>&1)
status=$?
echo "$output"
if [ $netmod = yes ]; then
  [ $status -eq 0 ] && grep -q "No Errors" <<<"$output" && pass "NOLOCAL runs through the network module" ||
    fail "NOLOCAL with the network module: status $status"
  output=$(STMPI_DEVICE_NOLOCAL=yes STMPI_NETMOD=none timeout -k 5 60 "$STMPI_MPIEXEC" -n 2 "$out/peer_table_ring" 2>&1)
  status=$?
  echo "$output"
  [ $status -ne 0 ] && grep -q "STMPI_NETMOD=none" <<<"$output" && pass "STMPI_NETMOD=none is an init error naming it" ||
    fail "STMPI_NETMOD=none with network peers: status $status"
else
  [ $status -ne 0 ] && pass "NOLOCAL without a network module fails (status $status)" ||
    fail "NOLOCAL without a network module ran"
  grep -q "STMPI_DEVICE_NOLOCAL=yes routes rank" <<<"$output" && grep -q "network module" <<<"$output" &&
    pass "the error names the parameter" || fail "the error does not name STMPI_DEVICE_NOLOCAL"
fi

output=$(STMPI_DEVICE_NOLOCAL=yes timeout -k 5 60 "$STMPI_MPIEXEC" -n 1 "$out/peer_table_ring" 2>&1)
status=$?
[ $status -eq 0 ] && grep -q "No Errors" <<<"$output" && pass "NOLOCAL with one rank runs" ||
  fail "NOLOCAL with one rank: status $status: $output"

# Hydra's fork launcher with two host names puts the ranks on two nodes of
# its process mapping (on this one machine): the node comes from the
# launcher, and without a network module that is an init error naming both.
if hydra=$(command -v mpiexec.hydra); then
  output=$(STMPI_DEVICE_VERBOSE=yes timeout -k 5 60 "$hydra" -launcher fork -hosts localhost:1,127.0.0.1:1 \
    -n 2 "$out/peer_table_ring" 2>&1)
  status=$?
  echo "$output"
  if [ $netmod = yes ]; then
    [ $status -eq 0 ] && grep -q "No Errors" <<<"$output" && pass "two Hydra nodes run through the network module" ||
      fail "two Hydra nodes: status $status"
  else
    [ $status -ne 0 ] && [ $status -ne 124 ] && pass "two Hydra nodes without a network module fail (status $status)" ||
      fail "two Hydra nodes: status $status"
    grep -q "rank 0 runs on node 0 and rank 1 on node 1" <<<"$output" && pass "the error names both ranks and nodes" ||
      fail "the error does not name the ranks and nodes"
  fi
  grep -q "nodes from PMI_process_mapping (vector,(0,2,1))" <<<"$output" &&
    grep -q "rank 0 -> rank 1: node 1, net" <<<"$output" && pass "rank 1 is on node 1 per Hydra" ||
    fail "Hydra's mapping did not put rank 1 on node 1"
else
  echo "(mpiexec.hydra not installed: two-node mapping not checked)"
fi

if [ $fails -eq 0 ]; then echo " No Errors"; else echo " Found $fails errors"; exit 1; fi
