#!/bin/sh
# Sets up (packages, build, install into ./_inst) and runs the demos on 4 ranks
# with the installed mpicc and mpiexec.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh maint/install-deps.sh
sh maint/build.sh
mkdir -p build/demo
# The stream-triggered demo: a halo exchange on a ring where every step is
# an ST epoch on a host stream (examples/st_ring.c), then the classic
# point-to-point halo demo.
_inst/bin/mpicc -O2 examples/st_ring.c -o build/demo/st_ring -lm
_inst/bin/mpicc -O2 examples/halo.c -o build/demo/halo -lm
_inst/bin/mpiexec -n "${NP:-4}" -timeout 120 build/demo/st_ring
exec _inst/bin/mpiexec -n "${NP:-4}" -timeout 120 build/demo/halo
