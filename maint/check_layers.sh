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
#
# Inside the device, file by file (the network-module interface,
# src/device/netmod/netmod.h):
#   - src/mpi and src/binding include only the device headers listed in
#     DEVICE_API below (the device API; no transport's header);
#   - nothing outside src/device/<module>/ includes a network module's headers
#     (device/ofi/, device/ucx/) except the selection point,
#     src/device/netmod/modules.h, which only src/device/device.cc and
#     src/device/netmod/*.cc include;
#   - following includes from src/mpi and src/binding, no transport header
#     (device/shm/, device/ofi/, device/ucx/, the selection point) is reached.
# Run by `make check`; first it plants violations in a scratch tree and
# fails if one goes unnoticed, so the check itself is checked.
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

# The device headers src/mpi and src/binding may include.
DEVICE_API="device/device.h device/progress.h device/request_dev.h device/match/key.h
  device/rma/rma.h device/rma/region.h device/rma/window.h device/rma/window_segment.h
  device/rma/lock/passive_lock.h device/rma/st/stream_window.h device/rma/st/settings.h
  device/rma/st/persistent_epoch.h"
# Network modules (folders under src/device) and the one file that names them.
NETMODS="ofi ucx"
SELECTION=device/netmod/modules.h

# "file<TAB>included" for every quoted include of a folder under $1/src
# (file relative to $1/src).
include_edges() {
  grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]*/' "$1/src" \
      --include='*.h' --include='*.cc' --include='*.c' --include='*.cu' \
      --include='*.hpp' --include='*.cpp' 2>/dev/null |
    awk -v top="$1/src/" '{
      file = substr($0, length(top) + 1)
      sub(/:.*/, "", file)
      inc = $0
      sub(/^[^"]*"/, "", inc)
      sub(/".*/, "", inc)
      print file "\t" inc
    }'
}

# Prints every violation of the device rules under $1/src; returns 1 if any.
check_device() {
  edges=$(include_edges "$1")
  [ -n "$edges" ] || return 0
  bad=$(printf '%s\n' "$edges" | awk -F '\t' -v api=" $(printf '%s' "$DEVICE_API" | tr -s ' \n' '  ') " \
      -v mods=" $NETMODS " -v sel="$SELECTION" '
    function module_of(path,   parts) {
      split(path, parts, "/")
      if (parts[1] == "device" && index(mods, " " parts[2] " ") > 0) return parts[2]
      return ""
    }
    function transport(path,   parts) {
      split(path, parts, "/")
      return path == sel || (parts[1] == "device" &&
             (parts[2] == "shm" || index(mods, " " parts[2] " ") > 0))
    }
    {
      file = $1; inc = $2
      edge[file] = edge[file] " " inc
      split(file, f, "/")
      top = f[1]
      if ((top == "mpi" || top == "binding") && inc ~ /^device\// && index(api, " " inc " ") == 0)
        print "src/" file ": includes " inc ", not a device API header (DEVICE_API)"
      m = module_of(inc)
      if (m != "" && !(f[1] == "device" && f[2] == m) && "src/" file != "src/" sel)
        print "src/" file ": includes " inc " of network module " m " (only " sel " may)"
      if (inc == sel && file != "device/device.cc" && file !~ /^device\/netmod\/[^\/]*\.cc$/)
        print "src/" file ": includes the selection point " sel " (only device/device.cc and device/netmod/*.cc may)"
      if (top == "mpi" || top == "binding") roots[file] = 1
    }
    END {
      # Breadth-first from every file of src/mpi and src/binding.
      for (r in roots) {
        delete seen; delete from
        n = 0; queue[n++] = r; seen[r] = 1
        for (i = 0; i < n; i++) {
          k = split(edge[queue[i]], incs, " ")
          for (j = 1; j <= k; j++) {
            h = incs[j]
            if (h in seen) continue
            seen[h] = 1; from[h] = queue[i]; queue[n++] = h
            if (transport(h)) {
              chain = h
              for (x = queue[i]; x != r; x = from[x]) chain = x " -> " chain
              print "src/" r ": reaches transport header " h " (" r " -> " chain ")"
            }
          }
        }
      }
    }' | sort -u)
  if [ -n "$bad" ]; then
    printf '%s\n' "$bad" | sed 's|^|check_layers: |'
    return 1
  fi
  return 0
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
# Device rules: a transport header from src/mpi (not API, reached: 2), a
# module header from src/mpi (not API, a module's, reached: 3), module
# headers from generic device code (2), the selection point from a file that
# may not (1), and a transport header reached through allowed headers (1).
scratch2=$scratch/device
mkdir -p "$scratch2/src/mpi" "$scratch2/src/device/rma" "$scratch2/src/device/ofi" \
  "$scratch2/src/device/netmod"
printf '#include "device/shm/ring.h"\n' > "$scratch2/src/mpi/internal.cc"
printf '#include "device/ofi/ofi.h"\n' > "$scratch2/src/mpi/module.cc"
printf '#include "device/ofi/ofi.h"\n' > "$scratch2/src/device/rma/names.cc"
printf '#include "device/netmod/modules.h"\n' > "$scratch2/src/device/rma/picks.cc"
printf '#include "device/ofi/ofi.h"\n' > "$scratch2/src/device/netmod/modules.h"
printf '#include "device/netmod/modules.h"\n' > "$scratch2/src/device/netmod/modules.cc"
printf '#include "device/rma/rma.h"\n' > "$scratch2/src/mpi/ok.cc"
printf '#include "device/rma/net_rma.h"\n' > "$scratch2/src/device/rma/rma.h"
printf '#include "device/netmod/net_api.h"\n' > "$scratch2/src/device/rma/net_rma.h"
printf '#include "device/ofi/ofi_rma.h"\n' > "$scratch2/src/device/netmod/net_api.h"
planted=$(check_device "$scratch2")
want=9
if [ "$(printf '%s\n' "$planted" | grep -c 'check_layers:')" != $want ]; then
  echo "check_layers: FAIL: the planted device violations were not all found ($want expected):"
  printf '%s\n' "$planted"
  exit 1
fi

status=0
check_device "$top" || status=1
if check_tree "$top" && [ $status -eq 0 ]; then
  echo "check_layers: PASS (src/ follows binding -> mpi -> device -> stream/pmi -> util; src/mpi" \
    "includes only the device API and reaches no transport header; only the selection point" \
    "names a network module)"
  exit 0
fi
echo "check_layers: FAIL: a layer includes a header of a layer above it, or a device internal it may not (see above)"
exit 1
