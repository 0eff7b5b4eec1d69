#!/bin/sh
# Installs the Debian packages STMPI builds and tests with (needs root or sudo).
# Required: compilers, Autotools. Optional but used: hwloc, libfabric, UCX,
# GoogleTest, and the peer MPIs (MPICH: ABI reference, Hydra; Open MPI).
# hipcc and libamdhip64-dev build the HIP stream backend (no GPU needed to
# build it); the CUDA backend is built where nvcc exists (not in Debian main).
# python3-venv, python3-dev and python3-pip build mpi4py for its test suite
# (test/clients/mpi4py.sh). clang and clang-format (14, Debian 12's) run `make lint`.
# libhdf5-mpich-dev (h5pcc.mpich) and hdf5-tools (h5dump) run parallel HDF5 on our library
# (test/mpi/io/hdf5.sh, test/clients/hdf5.sh).
# gfortran builds the Fortran bindings (mpif.h, the mpi and mpi_f08 modules, libmpichfort)
# and their tests.
set -e
packages="build-essential gfortran autoconf automake libtool pkg-config python3 procps iproute2
  libhwloc-dev libfabric-dev libucx-dev libgtest-dev mpich libmpich-dev openmpi-bin libopenmpi-dev
  hipcc libamdhip64-dev python3-venv python3-dev python3-pip clang clang-format
  libhdf5-mpich-dev hdf5-tools"
missing=""
for p in $packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $missing
