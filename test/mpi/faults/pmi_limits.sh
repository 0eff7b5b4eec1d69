#!/bin/bash
# mpiexec's PMI server against hostile or runaway clients (ranks that write PMI
# lines themselves to $PMI_FD):
#  - an abort message with terminal control sequences reaches mpiexec's stderr
#    escaped (\xNN), never as raw control bytes;
#  - a request line over 16 KiB stops the job with a message naming the rank;
#  - the key-value store of a job is capped (-kvs-limit) with a clear message,
#    and an MPI program whose puts do not fit fails MPI_Init saying so.
. "$STMPI_SRCDIR/test/mpi/faults/faultlib.sh"
build_faulty
init='printf "cmd=init pmi_version=1 pmi_subversion=1\n" >&$PMI_FD'

out=$(timeout 20 "$STMPI_MPIEXEC" -n 2 bash -c "if [ \$PMI_RANK = 1 ]; then $init; printf 'cmd=abort exitcode=3 message=title%%1B]0;owned%%07clear%%1B[2Jcsi%%C2%%9B31m\n' >&\$PMI_FD; fi; sleep 10" 2>&1)
rc=$?
echo "--- abort: rc=$rc: $(printf '%s' "$out" | cat -v)"
if [ $rc -eq 3 ] && ! printf '%s' "$out" | grep -q $'[\x01-\x08\x0b-\x1f\x7f]' &&
   printf '%s' "$out" | grep -qF 'title\x1b]0;owned\x07clear\x1b[2Jcsi\xc2\x9b31m'; then
  pass "abort message: control bytes escaped"
else fail "abort message: rc=$rc, raw control bytes or wrong text"; fi

out=$(timeout 20 "$STMPI_MPIEXEC" -n 2 bash -c "if [ \$PMI_RANK = 1 ]; then $init; head -c 20000 /dev/zero | tr '\\0' a >&\$PMI_FD; echo >&\$PMI_FD; fi; sleep 10" 2>&1)
rc=$?
echo "--- long line: rc=$rc: $out"
if [ $rc -eq 1 ] && echo "$out" | grep -q "^mpiexec: rank 1 sent a PMI request line .*16384.*; killing 1 other rank$"; then
  pass "long PMI line: job stopped, rank named"
else fail "long PMI line: rc=$rc"; fi

# The rank's parent is the launcher; the kvsname is kvs_<its parent, mpiexec>_0.
out=$(timeout 30 "$STMPI_MPIEXEC" -kvs-limit 10K -n 2 bash -c "$init; m=\$(sed 's/^.*) [^ ]* //; s/ .*//' /proc/\$PPID/stat); for i in \$(seq 1 20); do printf 'cmd=put kvsname=kvs_%s_0 key=k%s.%s value=%01000d\n' \$m \$PMI_RANK \$i 0 >&\$PMI_FD; done; printf 'cmd=finalize\n' >&\$PMI_FD; sleep 1" 2>&1)
rc=$?
echo "--- kvs limit (raw): rc=$rc: $out"
if [ "$(echo "$out" | grep -c "^mpiexec: rank [01]: PMI put of key 'k[01].[0-9]*' ([0-9]* bytes) refused: the job's key-value store holds [0-9]* of at most 10240 bytes (raise it with -kvs-limit)$")" -eq 1 ]; then
  pass "key-value store limit: one clear message"
else fail "key-value store limit: rc=$rc"; fi

MPIEXEC_ARGS=(-kvs-limit 40)
run_fault wait 2 20
if [ "$RC" -ne 0 ] && grep -q "key-value_store_full" "$ERR"; then pass "MPI_Init with a full key-value store fails saying so"
else fail "MPI_Init with a full key-value store: rc=$RC"; fi
check_no_leftovers kvs_full

out=$("$STMPI_MPIEXEC" -kvs-limit 0 -n 1 true 2>&1)
rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "kvs-limit"; then pass "-kvs-limit 0 is a usage error"
else fail "-kvs-limit 0: rc=$rc $out"; fi
finish
