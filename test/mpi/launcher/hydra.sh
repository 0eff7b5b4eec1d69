#!/bin/bash
# The library's PMI-1 client under MPICH's Hydra: a program linked with our
# libmpi, launched by mpiexec.hydra, exchanges messages and reduces.
set -u
hydra=$(command -v mpiexec.hydra) || { echo "SKIP: mpiexec.hydra not installed"; exit 0; }
out="$STMPI_BUILDDIR/test/mpi/out"
mkdir -p "$out"
cat > "$out/hydra_ring.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, errors = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int token = rank * 10, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
               (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (got != ((rank + size - 1) % size) * 10) errors++;
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size * (size - 1) / 2) errors++;
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(version, &len);
  if (strncmp(version, "STMPI", 5) != 0) errors++;
  int total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "No Errors\n" : "Found %d errors\n", total);
  MPI_Finalize();
  return total != 0;
}
PROG
$STMPI_TEST_CC $STMPI_TEST_CFLAGS "$out/hydra_ring.c" -o "$out/hydra_ring" $STMPI_TEST_LIBS || exit 1
for n in 1 3; do
  output=$(timeout -k 5 60 "$hydra" -n $n "$out/hydra_ring" 2>&1)
  status=$?
  echo "$output"
  if [ $status -ne 0 ] || ! grep -q "No Errors" <<<"$output"; then
    echo "FAIL: mpiexec.hydra -n $n exited $status"
    exit 1
  fi
  echo "ok: mpiexec.hydra -n $n"
done
