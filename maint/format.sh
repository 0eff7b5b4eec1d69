#!/bin/bash
# Rewrites, in place, the C and C++ sources that `make lint` checks for
# formatting (the list is maint/lint.sh --list: tracked sources, without the
# generated ones and the hand-aligned include/mpi.h) with clang-format and the
# .clang-format files of the tree. Give paths to format only those of them.
set -eu
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
files=$(bash maint/lint.sh --list)
if [ $# -gt 0 ]; then
  files=$(for f in "$@"; do grep -x -- "${f#./}" <<<"$files" || echo "format: $f is not covered by the check; skipped" >&2; done)
fi
[ -n "$files" ] || exit 0
tr '\n' '\0' <<<"$files" | xargs -0 -n 16 -P "$(nproc)" "$CLANG_FORMAT" -i
echo "format: $(wc -l <<<"$files") files formatted with $("$CLANG_FORMAT" --version | sed 's/.*version //')"
