#!/bin/bash
# Two "nodes" on this machine: MPICH's Hydra with the fork launcher and two
# host names gives a process mapping of 2 nodes x 2 ranks, so each rank
# reaches one peer by shared memory and two through the ofi network module.
# Runs point-to-point programs (MPI_ANY_SOURCE across both kinds of peer)
# once per provider on the loopback interface. (Windows spanning nodes wait
# for the device windows' network hook: see src/device/ofi/README.md.)
# A missing mpiexec.hydra is a failure with the reason, not a skip.
set -u
hydra=$(command -v mpiexec.hydra) || { echo "FAIL: mpiexec.hydra not installed (Debian: mpich)"; exit 1; }
out="$STMPI_BUILDDIR/test/mpi/out/net_2x2"
mkdir -p "$out"
programs="net/anysource pt2pt/sendrecv pt2pt/probe pt2pt/nonblocking pt2pt/sizes"
for p in $programs; do
  exe="$out/${p//\//_}"
  if [[ ! -x "$exe" || "$STMPI_SRCDIR/test/mpi/$p.c" -nt "$exe" || "$STMPI_BUILDDIR/.libs/libmpi.so" -nt "$exe" ]]; then
    $STMPI_TEST_CC $STMPI_TEST_CFLAGS "$STMPI_SRCDIR/test/mpi/$p.c" -o "$exe" $STMPI_TEST_LIBS || { echo "FAIL: $p did not compile"; exit 1; }
  fi
done
failed=0
for provider in sockets 'tcp;ofi_rxm'; do
  for p in $programs; do
    exe="$out/${p//\//_}"
    log="$out/${p//\//_}.${provider%%;*}.log"
    start=$(date +%s)
    STMPI_OFI_PROVIDER="$provider" STMPI_OFI_IFACE=lo timeout -k 5 90 \
      "$hydra" -launcher fork -hosts stmpi-node1,stmpi-node2 -ppn 2 -n 4 "$exe" </dev/null >"$log" 2>&1
    rc=$?
    if [[ $rc -eq 0 ]] && grep -q "No Errors" "$log"; then
      echo "ok   $provider $p ($(( $(date +%s) - start )) s)"
    else
      echo "FAIL $provider $p (status $rc; log $log)"
      tail -n 10 "$log" | sed 's/^/    | /'
      failed=$((failed + 1))
    fi
  done
done
[[ $failed -eq 0 ]] && echo " No Errors"
exit $failed
