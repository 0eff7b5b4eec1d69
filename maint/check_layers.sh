#!/bin/sh
# Checks the layer order of src/: binding -> mpi -> device -> stream/pmi -> util.
# A file may include (with "folder/...") only headers of its own layer and of
# the layers below it:
#
#   src/binding   binding mpi device stream pmi util
#   src/mpi       mpi device stream pmi util            (never binding/)
#   src/device    device stream pmi util                (never mpi/, binding/)
#   src/stream    stream util
#   src/pmi       pmi util
#   src/util      util
#   src/tools     tools pmi util                        (programs, not in libmpi)
#
# <mpi.h> and <mpix.h> (the public headers) are allowed everywhere; an include
# of another folder by a relative path ("../mpi/x.h") is an error too.
# Run by `make check`; first it plants a violation in a scratch tree and
# fails if that goes unnoticed, so the check itself is checked.
#
# Usage: maint/check_layers.sh [SRCDIR]   (default: $SRCDIR, else this tree)
set -u

top=${1:-${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}}

allowed() {
  case "$1" in
    binding) echo "binding mpi device stream pmi util" ;;
    mpi) echo "mpi device stream pmi util" ;;
    device) echo "device stream pmi util" ;;
    stream) echo "stream util" ;;
    pmi) echo "pmi util" ;;
    util) echo "util" ;;
    tools) echo "tools pmi util" ;;
    *) echo "" ;;
  esac
}

# Prints every violation under $1/src; returns 1 if there is one.
check_tree() {
  status=0
  for dir in "$1"/src/*/; do
    layer=$(basename "$dir")
    ok=$(allowed "$layer")
    if [ -z "$ok" ]; then
      echo "check_layers: src/$layer is not in the layer table of maint/check_layers.sh"
      status=1
      continue
    fi
    # file:line:#include "x/y.h" for every quoted include of a folder
    hits=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]*/' "$dir" \
             --include='*.h' --include='*.cc' --include='*.c' --include='*.cu' \
             --include='*.hpp' --include='*.cpp' 2>/dev/null)
    [ -n "$hits" ] || continue
    bad=$(printf '%s\n' "$hits" | awk -v ok=" $ok " -v top="$1/" '{
      target = $0
      sub(/^[^"]*"/, "", target)
      first = target
      sub(/\/.*/, "", first)
      if (index(ok, " " first " ") == 0) print substr($0, length(top) + 1)
    }')
    if [ -n "$bad" ]; then
      printf '%s\n' "$bad" | sed "s|^|check_layers: src/$layer may include only $ok: |"
      status=1
    fi
  done
  return $status
}

if [ ! -d "$top/src" ]; then
  echo "check_layers: $top/src not found" >&2
  exit 2
fi

# The check must catch a planted violation.
scratch=$(mktemp -d) || exit 2
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src/device" "$scratch/src/mpi" "$scratch/src/util"
printf '#include "device/x.h"\n#include "util/y.h"\n' > "$scratch/src/device/ok.cc"
printf '#include "mpi/comm/comm.h"\n' > "$scratch/src/device/bad.cc"
printf '  #  include "binding/call.h"\n' > "$scratch/src/mpi/bad.h"
printf '#include "../mpi/z.h"\n' > "$scratch/src/util/bad.h"
planted=$(check_tree "$scratch")
if [ "$(printf '%s\n' "$planted" | grep -c 'check_layers:')" != 3 ]; then
  echo "check_layers: FAIL: the planted violations were not all found:"
  printf '%s\n' "$planted"
  exit 1
fi

if check_tree "$top"; then
  echo "check_layers: PASS (src/ follows binding -> mpi -> device -> stream/pmi -> util)"
  exit 0
fi
echo "check_layers: FAIL: a layer includes a header of a layer above it (see above)"
exit 1
