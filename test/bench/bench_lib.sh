# Shell helpers shared by the benchmark drivers (run.sh, rma_run.sh,
# faces_run.sh); sourced, not run.

# CPU idle percentage over the next 2 seconds (idle + iowait, from /proc/stat).
idle_percent() {
  local a b total=0 i
  read -r -a a < <(grep '^cpu ' /proc/stat)
  sleep 2
  read -r -a b < <(grep '^cpu ' /proc/stat)
  for ((i = 1; i < ${#a[@]}; i++)); do total=$((total + b[i] - a[i])); done
  echo $((total > 0 ? (b[4] - a[4] + b[5] - a[5]) * 100 / total : 100))
}

# With $wait_idle set (a percentage), waits until the CPUs were that idle,
# at most $wait_max seconds (default 300); adds the wait to $waited_total.
waited_total=0
wait_for_idle() {
  [[ -z "${wait_idle:-}" ]] && return
  local start limit=${wait_max:-300} pct
  start=$(date +%s)
  while :; do
    pct=$(idle_percent)
    [[ $pct -ge $wait_idle ]] && break
    if (( $(date +%s) - start >= limit )); then
      echo "# wait-idle: CPUs only ${pct}% idle after ${limit} s; running anyway" >&2
      break
    fi
  done
  waited_total=$((waited_total + $(date +%s) - start))
}
