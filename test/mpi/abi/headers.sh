#!/bin/bash
# Compile-time ABI: the constants, handles and struct layouts of our mpi.h
# match MPICH's (test/abi/check_abi.sh). Skips when MPICH is not installed.
set -u
: "${STMPI_SRCDIR:?}"
sh "$STMPI_SRCDIR/test/abi/check_abi.sh" "$STMPI_SRCDIR/include"
rc=$?
case $rc in
  0) echo "No Errors"; exit 0 ;;
  77) echo "SKIP: check_abi.sh skipped"; exit 0 ;;
  *) echo "Found errors (check_abi.sh exit $rc)"; exit 1 ;;
esac
