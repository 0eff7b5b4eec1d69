#!/bin/bash
# The device's peer table: nodes come from the launcher's PMI_process_mapping
# (STMPI_DEVICE_VERBOSE=yes prints the table), and STMPI_DEVICE_NOLOCAL=yes,
# which needs a network module, is an init error naming the parameter while
# this build has none (a lone rank has no peer and still runs).
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

output=$(STMPI_DEVICE_VERBOSE=yes timeout -k 5 60 "$STMPI_MPIEXEC" -n "$n" "$out/peer_table_ring" 2>&1)
status=$?
echo "$output"
[ $status -eq 0 ] && grep -q "No Errors" <<<"$output" && pass "verbose run" || fail "verbose run: status $status"
grep -q "nodes from PMI_process_mapping (vector,(0,1,$n))" <<<"$output" &&
  pass "nodes from the launcher's mapping" || fail "no 'nodes from PMI_process_mapping' line"
grep -q "rank 0 -> rank 0: node 0, self" <<<"$output" && pass "self entry" || fail "no self entry"
grep -q "rank 0 -> rank $((n - 1)): node 0, shm" <<<"$output" && pass "shm entry" || fail "no shm entry"

output=$(STMPI_DEVICE_NOLOCAL=yes timeout -k 5 60 "$STMPI_MPIEXEC" -n 2 "$out/peer_table_ring" 2>&1)
status=$?
echo "$output"
[ $status -ne 0 ] && pass "NOLOCAL without a network module fails (status $status)" ||
  fail "NOLOCAL without a network module ran"
grep -q "STMPI_DEVICE_NOLOCAL=yes routes rank" <<<"$output" && grep -q "network module" <<<"$output" &&
  pass "the error names the parameter" || fail "the error does not name STMPI_DEVICE_NOLOCAL"

output=$(STMPI_DEVICE_NOLOCAL=yes timeout -k 5 60 "$STMPI_MPIEXEC" -n 1 "$out/peer_table_ring" 2>&1)
status=$?
[ $status -eq 0 ] && grep -q "No Errors" <<<"$output" && pass "NOLOCAL with one rank runs" ||
  fail "NOLOCAL with one rank: status $status: $output"

if [ $fails -eq 0 ]; then echo " No Errors"; else echo " Found $fails errors"; exit 1; fi
