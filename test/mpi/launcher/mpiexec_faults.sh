#!/bin/bash
# Builds the PMI smoke program and runs the launcher checks (fault handling,
# signals, stdin/stdout forwarding, shared-memory cleanup, Hydra interop).
set -eu
out="$STMPI_BUILDDIR/test/mpi/out"
mkdir -p "$out"
g++ -std=c++20 -O1 -I"$STMPI_SRCDIR/src" -I"$STMPI_BUILDDIR/src" \
  "$STMPI_SRCDIR/test/unit/pmi_client_smoke.cc" "$STMPI_SRCDIR/src/pmi/client.cc" \
  "$STMPI_SRCDIR/src/util/launcher_env.cc" -o "$out/pmi_client_smoke"
exec bash "$STMPI_SRCDIR/test/mpi/launcher/check_mpiexec.sh" "$STMPI_MPIEXEC" "$out/pmi_client_smoke"
