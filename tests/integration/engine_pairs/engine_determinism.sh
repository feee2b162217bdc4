#!/usr/bin/env bash
# The same seed and config give the same operations and arguments; another seed does not.
. "$(dirname "$0")/../../lib/common.sh"
for r in a b; do
  "$METIS_BIN/metis" run configs/smoke.ini --ops 500 --seed 7 --out "$T/$r" 2>/dev/null || fail "run $r failed"
done
"$METIS_BIN/metis" run configs/smoke.ini --ops 500 --seed 8 --out "$T/c" 2>/dev/null || fail "run c failed"
ops() { grep -E '^(op|res|restore) ' "$1/log.txt"; }
[ "$(ops "$T/a" | wc -l)" -gt 1000 ] || fail "too few log lines"
diff <(ops "$T/a") <(ops "$T/b") >/dev/null || fail "same seed, different operations"
if diff <(ops "$T/a") <(ops "$T/c") >/dev/null; then fail "different seeds, same operations"; fi
