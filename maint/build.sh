#!/bin/sh
# Configures and builds STMPI in ./build and installs it into ./_inst
# (the prefix the README's commands use). Re-running rebuilds incrementally.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -x configure ] || ./autogen.sh >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure --prefix="$top/_inst" -q
make -j"$(nproc)" -s
make -s install >/dev/null
