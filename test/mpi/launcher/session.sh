#!/bin/bash
# The job's session (src/tools/mpiexec/session.h): every rank is in one session of its own,
# apart from the caller's, and leads its own process group; mpiexec stays in the caller's
# session and process group, its child (the launcher) leads the job's session and is every
# rank's parent. In a terminal (a pty from script(1)): input reaches rank 0, Ctrl-C ends the
# job with status 130, and nothing is left behind.
n=${1:-4}
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-session.XXXXXX")
MARK="sleep 41.$$"
trap 'pkill -KILL -f "^$MARK" 2>/dev/null; rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
# ranks_gone: true once no rank of this check is left (up to 5 s: a loaded machine may take a
# while to schedule the dying ranks).
ranks_gone() {
  for _ in $(seq 1 50); do pgrep -f "^$MARK" > /dev/null || return 0; sleep 0.1; done
  return 1
}

# stat_of PID: "pid ppid pgrp session" from /proc/PID/stat (the fields after the name).
stat_of() {
  local rest
  rest=$(sed 's/^.*) //' "/proc/$1/stat") || return 1
  set -- $rest
  echo "$1 $2 $3 $4" | { read -r _ ppid pgrp sid; echo "$ppid $pgrp $sid"; }
}
read -r _ my_pgrp my_sid <<< "$(stat_of $$)"
# mpiexec's default layout is one session only where the job's group can be weighted (a nice
# value lowered: root or RLIMIT_NICE); elsewhere -session-nice 0 asks for it.
if setsid sh -c 'echo -1 > /proc/self/autogroup' 2> /dev/null; then PRIV=1; else PRIV=0; fi
LAYOUT=()
[ "$PRIV" -eq 1 ] || LAYOUT=(-session-nice 0)

# Each rank prints its pid, parent, process group and session, then waits for the check.
"$STMPI_MPIEXEC" "${LAYOUT[@]}" -n "$n" sh -c \
  'set -- $(sed "s/^.*) //" /proc/$$/stat); echo "$PMI_RANK $$ $2 $3 $4"; exec '"$MARK" \
  < /dev/null > "$WORK/layout.out" 2> "$WORK/layout.err" &
MPIEXEC_PID=$!
for _ in $(seq 1 100); do
  [ "$(wc -l < "$WORK/layout.out")" -ge "$n" ] && break
  sleep 0.1
done
cat "$WORK/layout.out"
read -r mpiexec_ppid mpiexec_pgrp mpiexec_sid <<< "$(stat_of "$MPIEXEC_PID")"
echo "caller: pid $$ pgrp $my_pgrp sid $my_sid; mpiexec: pid $MPIEXEC_PID ppid $mpiexec_ppid pgrp $mpiexec_pgrp sid $mpiexec_sid"
if [ "$mpiexec_sid" = "$my_sid" ] && [ "$mpiexec_pgrp" = "$my_pgrp" ]; then
  pass "mpiexec stays in the caller's session and process group"
else fail "mpiexec's session/group $mpiexec_sid/$mpiexec_pgrp, the caller's $my_sid/$my_pgrp"; fi
sids=$(awk '{print $5}' "$WORK/layout.out" | sort -u)
launchers=$(awk '{print $3}' "$WORK/layout.out" | sort -u)
if [ "$(wc -l < "$WORK/layout.out")" -eq "$n" ] && [ "$(wc -w <<< "$sids")" -eq 1 ]; then
  pass "all $n ranks share one session ($sids)"
else fail "ranks' sessions: $(echo $sids)"; fi
if [ "$sids" != "$my_sid" ]; then pass "the job's session differs from the caller's ($my_sid)"
else fail "the ranks run in the caller's session $my_sid"; fi
if [ "$(wc -w <<< "$launchers")" -eq 1 ] && [ "$launchers" = "$sids" ]; then
  pass "the ranks' parent $launchers leads the job's session"
else fail "ranks' parents $(echo $launchers), session $(echo $sids)"; fi
read -r launcher_ppid _ _ <<< "$(stat_of "$launchers" 2>/dev/null)"
if [ "${launcher_ppid:-}" = "$MPIEXEC_PID" ]; then pass "the launcher is mpiexec's child"
else fail "the launcher's parent is ${launcher_ppid:-unknown}, not mpiexec $MPIEXEC_PID"; fi
if awk '$2 != $4 || $2 == $5 { bad = 1 } END { exit bad }' "$WORK/layout.out"; then
  pass "each rank leads its own process group and no rank leads a session"
else fail "a rank is not the leader of its own process group (or leads a session)"; fi
# One scheduling group (autogroup) for the job, weighted as one group per rank where permitted.
# A kernel without autogroups (no /proc/self/autogroup: CONFIG_SCHED_AUTOGROUP off, or a
# sandboxed kernel) has nothing to check here; mpiexec then sets no nice value.
if [ -e /proc/self/autogroup ]; then
  groups=$(awk '{print $2}' "$WORK/layout.out" | while read -r pid; do cat "/proc/$pid/autogroup"; done | sort -u)
  echo "ranks' autogroups: $groups"
  want=$(awk -v n="$n" 'BEGIN { v = int(log(n) / log(1.25) + 0.5); if (v > 20) v = 20; print (n > 1 ? -v : 0) }')
  if [ "$(wc -l <<< "$groups")" -eq 1 ] && [ -n "$groups" ]; then pass "all ranks share one autogroup"
  else fail "the ranks are in several autogroups: $(echo $groups)"; fi
  if [ "$PRIV" -eq 1 ]; then
    if grep -q " nice $want\$" <<< "$groups"; then pass "the job's group has nice $want (the weight of $n groups)"
    else fail "the job's group: $groups, want nice $want"; fi
  fi
else
  echo "no /proc/self/autogroup: this kernel has no autogroups; group checks skipped"
fi
kill -TERM "$MPIEXEC_PID"
wait "$MPIEXEC_PID"
rc=$?
if [ "$rc" -eq 143 ] && grep -q "^mpiexec: received signal 15 (Terminated); killing $n ranks$" "$WORK/layout.err"; then
  pass "SIGTERM to mpiexec is forwarded: status 143, the signal named"
else fail "SIGTERM to mpiexec: status $rc, stderr: $(cat "$WORK/layout.err")"; fi
if ranks_gone; then pass "no rank left after SIGTERM"; else fail "ranks left after SIGTERM: $(pgrep -af "^$MARK")"; fi

# -session-nice sets the group's nice value (raising it needs no privilege).
got=$("$STMPI_MPIEXEC" -session-nice 3 -n 2 sh -c '[ "$PMI_RANK" = 0 ] && cat /proc/self/autogroup; true' < /dev/null 2>&1)
if [ ! -e /proc/self/autogroup ] || grep -q " nice 3$" <<< "$got"; then pass "-session-nice 3: $got"
else fail "-session-nice 3: $got"; fi

out=$("$STMPI_MPIEXEC" -session-nice -21 -n 1 true 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "^mpiexec: '-session-nice -21': expected auto or a nice value from -20 to 19" <<< "$out"; then
  pass "-session-nice -21: usage error"
else fail "-session-nice -21: status $rc, $out"; fi

# Without the privilege to weight the job's group (root without CAP_SYS_NICE here), each rank
# gets a session of its own instead, unless -session-nice asks for one group anyway.
NOPRIV=(setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice)
if [ "$(id -u)" -eq 0 ] && "${NOPRIV[@]}" true 2> /dev/null && [ -e /proc/self/autogroup ]; then
  show='set -- $(sed "s/^.*) //" /proc/$$/stat); echo "$$ $4 $(cat /proc/$$/autogroup)"'
  out=$("${NOPRIV[@]}" "$STMPI_MPIEXEC" -n 3 sh -c "$show" < /dev/null 2>&1)
  echo "$out"
  if [ "$(wc -l <<< "$out")" -eq 3 ] && awk '$1 != $2 || $NF != 0 { bad = 1 } END { exit bad }' <<< "$out"; then
    pass "no privilege: each rank leads a session of its own (nice 0)"
  else fail "no privilege: $out"; fi
  out=$("${NOPRIV[@]}" "$STMPI_MPIEXEC" -session-nice 0 -n 3 sh -c "$show" < /dev/null 2>&1)
  if [ "$(awk '{print $2}' <<< "$out" | sort -u | wc -l)" -eq 1 ] && awk '$1 == $2 { bad = 1 } END { exit bad }' <<< "$out"; then
    pass "no privilege, -session-nice 0: one session for the job"
  else fail "no privilege, -session-nice 0: $out"; fi
fi

# SIGKILL to the launcher: mpiexec reports it, exits 137, and the ranks die with it.
"$STMPI_MPIEXEC" -n 2 sh -c "echo \$PPID; exec $MARK" < /dev/null > "$WORK/kill.out" 2> "$WORK/kill.err" &
MPIEXEC_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/kill.out" ] && break; sleep 0.1; done
touch "/dev/shm/stmpi-kvs_${MPIEXEC_PID}_0-session$$"
kill -KILL "$(head -1 "$WORK/kill.out")"
wait "$MPIEXEC_PID"
rc=$?
if [ "$rc" -eq 137 ] && grep -q "^mpiexec: the launcher (pid [0-9]*) was killed by signal 9" "$WORK/kill.err" \
    && ranks_gone && [ ! -e "/dev/shm/stmpi-kvs_${MPIEXEC_PID}_0-session$$" ]; then
  pass "launcher killed: status 137, reported, no rank and no segment left"
else fail "launcher killed: status $rc, stderr $(cat "$WORK/kill.err"), left: $(pgrep -f "^$MARK" | tr '\n' ' ')"; fi
rm -f "/dev/shm/stmpi-kvs_${MPIEXEC_PID}_0-session$$"

# In a terminal: what is typed reaches rank 0; Ctrl-C (sent by the terminal to its foreground
# group, which holds mpiexec, not the ranks) ends the job with status 130. script(1) runs the
# line with $SHELL: bash, because a non-interactive dash (CI's /bin/sh) dies of the same
# SIGINT instead of waiting for mpiexec, and the status line would never be printed.
export SHELL=/bin/bash
if script -qfec true /dev/null > /dev/null 2>&1 < /dev/null; then
  { sleep 1.5; printf 'typed line\n'; sleep 2; printf '\003'; sleep 3; } |
    timeout -k 2 30 script -qfec "$STMPI_MPIEXEC -n $n sh -c 'if [ \$PMI_RANK = 0 ]; then read -r l; echo \"rank 0 read: \$l\"; fi; exec $MARK'; echo \"status \$?\"" \
      /dev/null > "$WORK/tty.out" 2>&1
  tr -d '\r' < "$WORK/tty.out" > "$WORK/tty.txt"
  cat "$WORK/tty.txt"
  if grep -q "^rank 0 read: typed line$" "$WORK/tty.txt"; then pass "terminal input reaches rank 0"
  else fail "terminal input did not reach rank 0"; fi
  if grep -q "^status 130$" "$WORK/tty.txt" && grep -qE "^(\^C)?mpiexec: received signal 2 \(Interrupt\); killing $n ranks$" "$WORK/tty.txt"; then
    pass "Ctrl-C in a terminal: status 130, the signal named"
  else fail "Ctrl-C in a terminal did not end the job with status 130"; fi
  if ranks_gone; then pass "no rank left after Ctrl-C"; else fail "ranks left after Ctrl-C: $(pgrep -af "^$MARK")"; fi
else
  echo "script(1) cannot open a terminal here: terminal checks skipped"
fi
if [ "$FAILS" -eq 0 ]; then echo "No Errors"; exit 0; fi
echo "Found $FAILS errors"
exit 1
