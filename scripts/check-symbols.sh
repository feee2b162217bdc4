#!/usr/bin/env bash
# Fails unless every global a RefFS archive defines is reffs_-prefixed, so programs linking RefFS meet no stray names.
# usage: check-symbols.sh [ARCHIVE...]   (default: build/libreffs.a)
set -euo pipefail
[ $# -gt 0 ] || set -- "$(dirname "$0")/../build/libreffs.a"
status=0
for a in "$@"; do
  if [ ! -f "$a" ]; then
    echo "check-symbols: $a is missing (make $a)" >&2
    status=1
    continue
  fi
  # nm prints "value type name" for each symbol and a header line per member; keep symbol lines only.
  bad=$(nm -g --defined-only "$a" | awk 'NF == 3 && $3 !~ /^reffs_/ { print $3 }' | sort -u | tr '\n' ' ')
  if [ -n "$bad" ]; then
    echo "check-symbols: $a defines globals without the reffs_ prefix: ${bad% }" >&2
    status=1
  fi
done
exit $status
