#!/bin/bash
# Parallel HDF5 (Debian's h5pcc.mpich, MPICH's ABI) on the build tree's library: the
# datasets written and read back by hdf5_rw.c on $1 ranks and checked with h5dump (through
# test/clients/hdf5.sh). Fails, not skips, when HDF5's tools are not installed
# (maint/install-deps.sh installs libhdf5-mpich-dev and hdf5-tools).
set -u
np=${1:-2}
: "${STMPI_SRCDIR:?}" "${STMPI_BUILDDIR:?}"
work=$STMPI_BUILDDIR/test/mpi/out/io_hdf5.$np
rm -rf "$work"
exec bash "$STMPI_SRCDIR/test/clients/hdf5.sh" --libdir "$STMPI_BUILDDIR/.libs" \
  --mpiexec "$STMPI_BUILDDIR/mpiexec" --ranks "$np" --workdir "$work"
