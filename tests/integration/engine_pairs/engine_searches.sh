#!/usr/bin/env bash
# A run whose first search SPIN completes within a few operations (2 dirs x 2 files, depth 2, nothing prepopulated) warns with the cause and goes on with derived seeds for its whole --seconds.
. "$(dirname "$0")/../../lib/common.sh"
secs=${SEARCHES_SECONDS:-30}
# existing = 0: every path from the pool, as before issue 10, so that every draw from the
# empty initial state names a path below a directory that does not exist yet (on seed 1).
cat >"$T/tiny.ini" <<'INI'
[fs ref]
type = reffs
size = 1M

[fs ext4]
type = kernel
fstype = ext4
size = 1M

[pool]
dirs = 2
files = 2
depth = 2
existing = 0
INI
start=$(date +%s.%N)
"$METIS_BIN/metis" run "$T/tiny.ini" --seed 1 --seconds "$secs" --out "$T/run" 2>"$T/err"
rc=$?
wall=$(echo "$(date +%s.%N) - $start" | bc)
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc"
grep -q '^metis: warning: search 1 explored every state it could reach after only [0-9]* operations: all [0-9]* draws from the initial state failed (ENOENT' "$T/err" \
  || fail "no warning naming the cause of the early end"
[ "$(grep -c 'metis: warning: search' "$T/err")" -eq 1 ] || fail "the warning is not one line, once"
grep -q 'search 2 follows with seed' "$T/err" || fail "no second search announced"
n=$(json_field "$T/run/summary.json" searches)
[ "$n" -ge 2 ] || fail "summary.json: searches=$n, expected at least 2"
grep -q "ops=[0-9]* .* searches=$n last_complete=" "$T/err" || fail "the summary line does not say searches=$n"
[ "$(json_field "$T/run/summary.json" reason)" = "time limit" ] || fail "the run did not end at its time limit"
python3 - "$T/run/summary.json" "$secs" "$wall" <<'PY' || fail "the run did not use its whole budget"
import json, sys
s = json.load(open(sys.argv[1]))
secs, wall = float(sys.argv[2]), float(sys.argv[3])
assert s['seconds'] >= secs - 0.5 and wall >= secs, (s['seconds'], wall)
assert s['last_search_complete'] is False
PY
# Every finished search left its own run directory; the totals count them all.
[ -d "$T/run/search-1" ] && [ -f "$T/run/search-1/log.txt" ] || fail "search 1's log was not kept in search-1/"
total=0
for d in "$T"/run/search-*/ "$T/run/"; do
  ops=$(sed -n 's/^end status=[0-9]* reason=.* ops=\([0-9]*\)$/\1/p' "$d/log.txt" | tail -n1)
  total=$((total + ${ops:-0}))
done
[ "$total" -eq "$(json_field "$T/run/summary.json" ops)" ] || fail "summary ops do not add up the searches' ($total)"
seed2=$(sed -n 's/^run .* seed=\([0-9]*\) .*/\1/p' "$T/run/search-2/log.txt" 2>/dev/null || sed -n 's/^run .* seed=\([0-9]*\) .*/\1/p' "$T/run/log.txt")
[ -n "$seed2" ] && [ "$seed2" != 1 ] || fail "search 2 did not run with a derived seed"
assert_no_leftovers "$(run_id_of "$T/err")"

# max_searches = 1 keeps a single search, as before.
printf '[run]\nmax_searches = 1\n' >>"$T/tiny.ini"
"$METIS_BIN/metis" run "$T/tiny.ini" --seed 1 --seconds "$secs" --out "$T/one" 2>"$T/err1" || fail "max_searches=1 run failed"
[ "$(json_field "$T/one/summary.json" searches)" -eq 1 ] || fail "max_searches=1 made more than one search"
[ "$(json_field "$T/one/summary.json" reason)" = "search complete" ] || fail "max_searches=1 did not stop at the complete search"
assert_no_leftovers "$(run_id_of "$T/err1")"
