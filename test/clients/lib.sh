# Shared steps of the benchmark clients (imb.sh, osu.sh): sourced, not run.
# The caller sets `prefix`, `workdir` and `timeout_s` (from its options), then
# calls these in order: client_prepare, client_fetch, (its own build),
# client_run per program and rank count, client_summary.

# usage: the caller's header comment (from line 2 to `set -u`).
usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "$(basename "$0"): $*" >&2; exit 2; }

# client_prepare NAME: checks the STMPI installation in $prefix, creates
# $workdir (a new directory under $TMPDIR when empty) and puts our wrappers
# first on PATH.
client_prepare() {
  [[ -x "$prefix/bin/mpicc" && -x "$prefix/bin/mpiexec" ]] ||
    die "no STMPI installation in $prefix (run maint/build.sh, or pass --prefix)"
  [[ -z "$workdir" ]] && workdir=$(mktemp -d "${TMPDIR:-/tmp}/stmpi-$1.XXXXXX")
  mkdir -p "$workdir" || die "cannot create $workdir"
  workdir=$(cd "$workdir" && pwd)
  export PATH="$prefix/bin:$PATH"
  client_failed=()
}

# client_fetch DEST SOURCE_DIR GIT_MODE URL_KIND URL: fills DEST (emptied
# first) with the sources. SOURCE_DIR, when set, is a git repository (bare or
# not), copied by GIT_MODE "clone" (the history, for a later checkout) or
# "archive" (the committed files with one time stamp, so make does not try to
# regenerate autotools output), or a plain tree, copied. Otherwise URL_KIND
# "git" clones URL and "tarball" downloads and unpacks it.
client_fetch() {
  local dest=$1 source_dir=$2 git_mode=$3 url_kind=$4 url=$5
  rm -rf "$dest"
  if [[ -n "$source_dir" ]]; then
    if git -C "$source_dir" rev-parse --git-dir >/dev/null 2>&1; then
      if [[ $git_mode == clone ]]; then
        git clone -q "$source_dir" "$dest" || die "cannot clone $source_dir"
      else
        mkdir -p "$dest" && git -C "$source_dir" archive HEAD | tar x -C "$dest" ||
          die "cannot export $source_dir"
      fi
    else
      cp -a "$source_dir" "$dest" || die "cannot copy $source_dir"
    fi
  elif [[ $url_kind == git ]]; then
    git clone -q "$url" "$dest" || die "git clone $url failed (no network? use --source DIR)"
  else
    mkdir -p "$dest" && curl -fsSL "$url" | tar xz -C "$dest" --strip-components=1 ||
      die "downloading $url failed (no network? use --source DIR)"
  fi
}

# client_build LOG WHAT COMMAND...: runs the build command, its output in LOG;
# on failure shows the end of the log and stops.
client_build() {
  local log=$1 what=$2
  shift 2
  if ! "$@" >"$log" 2>&1; then
    tail -20 "$log" >&2
    die "building $what failed (log: $log)"
  fi
}

# client_run LOG NP PROGRAM ARGS...: runs PROGRAM on NP ranks under our mpiexec
# with the time limit $timeout_s, output in LOG. Sets client_why to why the run
# failed (timed out, exit status), empty when it exited 0.
client_run() {
  local log=$1 np=$2
  shift 2
  timeout -k 10 "$timeout_s" "$prefix/bin/mpiexec" -n "$np" "$@" >"$log" 2>&1
  local rc=$?
  client_why=""
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then client_why="timed out after ${timeout_s}s"
  elif [[ $rc -ne 0 ]]; then client_why="exit status $rc"
  fi
}

# client_result NAME LOG DETAIL: prints PASS (with DETAIL) or FAIL (with
# $client_why and the end of LOG) and records the failure.
client_result() {
  local name=$1 log=$2 detail=$3
  if [[ -z "$client_why" ]]; then
    echo "PASS: $name ($detail)"
  else
    echo "FAIL: $name: $client_why; log: $log"
    tail -5 "$log" | sed 's/^/    | /'
    client_failed+=("$name")
  fi
}

# client_summary: the last line, and the exit status (0 when nothing failed).
client_summary() {
  echo "# ${#client_failed[@]} failed${client_failed[*]:+: ${client_failed[*]}}"
  [[ ${#client_failed[@]} -eq 0 ]]
}
