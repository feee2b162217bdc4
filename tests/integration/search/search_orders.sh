#!/usr/bin/env bash
# Each search of a run tries the operations in an order of its own (SPIN's -RS derived per search; with the run's one seed every search began with the same operations, state after state), and the same seed gives the same orders again.
. "$(dirname "$0")/../../lib/common.sh"
cat >"$T/s.ini" <<'INI'
[fs ref]
type = reffs
size = 1M

[run]
search_ops = 40
INI
orders() {   # $1 run dir: one line per search, its first 8 operations' names
  local d
  for d in "$1"/search-1 "$1"/search-2 "$1"; do
    grep '^op ' "$d/log.txt" | head -8 | awk '{ printf "%s ", $5 } END { print "" }'
  done
}
for r in a b; do
  "$METIS_BIN/metis" run "$T/s.ini" --seed 7 --ops 120 --out "$T/$r" 2>"$T/err-$r" ||
    { cat "$T/err-$r"; fail "run $r failed"; }
  [ "$(json_field "$T/$r/summary.json" searches)" -eq 3 ] || fail "run $r: not 3 searches"
done
orders "$T/a" | tee "$T/orders"
[ "$(sort -u "$T/orders" | wc -l)" -eq 3 ] || fail "two searches began with the same 8 operations"
[ "$(orders "$T/b")" = "$(cat "$T/orders")" ] || fail "the same seed did not give the same orders"
echo PASS
