#!/bin/sh
# Sets up (packages, build, install into ./_inst) and runs the demo on 4 ranks
# with the installed mpicc and mpiexec.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh maint/install-deps.sh
sh maint/build.sh
mkdir -p build/demo
_inst/bin/mpicc -O2 examples/halo.c -o build/demo/halo -lm
exec _inst/bin/mpiexec -n "${NP:-4}" -timeout 120 build/demo/halo
