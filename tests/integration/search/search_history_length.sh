#!/usr/bin/env bash
# On a FUSE target without snapshots, a search without [run] search_ops ends after 1,000 operations once it has run ten times its set-up, and says so once; with search_ops given, or with a target that has snapshots, a search runs on.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis reffs; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
ids=()

# run NAME CONFIG OPS: a run of OPS operations into $T/NAME, its stderr in $T/NAME.err.
run() {
  "$B/metis" run "$2" --ops "$3" --keep-going --out "$T/$1" >"$T/$1.out" 2>"$T/$1.err"
  echo $? >"$T/$1.rc"
  ids+=("$(run_id_of "$T/$1.err")")
}

# searches NAME: the run's searches (summary.json).
searches() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["searches"])' "$T/$1/summary.json"
}

# 1. Clean: RefFS against RefFS without snapshots (restored logically), 6,000 operations.
clean=tests/fixtures/restore/fuse-logical.ini
run auto "$clean" 6000
FAIL_LOG=$T/auto.err
[ "$(cat "$T/auto.rc")" = 0 ] || fail "the clean run exited $(cat "$T/auto.rc"), want 0"
n=$(searches auto)
[ "$n" -ge 2 ] || fail "6,000 operations made $n search(es) on a target without snapshots, want 2 or more"
[ "$(grep -c 'keep traces short to shrink' "$T/auto.err")" = 1 ] ||
  fail "the history length is not said exactly once"
grep -q '^metis: search 1 ends after [0-9]* operations: a target without snapshots has a class.s trace in what it ran since its last fresh mount' \
  "$T/auto.err" || fail "no line says why search 1 ended"

# 2. search_ops given: the config's length, said by nobody.
sed 's/^ops = 1500$/ops = 1500\nsearch_ops = 100000/' "$clean" >"$T/given.ini"
grep -q '^search_ops = 100000$' "$T/given.ini" || fail "could not write the config"
run given "$T/given.ini" 6000
FAIL_LOG=$T/given.err
[ "$(searches given)" = 1 ] || fail "search_ops = 100000 made $(searches given) searches"
grep -q 'keep traces short' "$T/given.err" && fail "search_ops given, the history length was said"

# 3. The same daemon answering the snapshot ioctls keeps no history: one search.
sed 's/noopen,nosnapshots,/noopen,/' "$clean" >"$T/snap.ini"
run snap "$T/snap.ini" 6000
FAIL_LOG=$T/snap.err
[ "$(searches snap)" = 1 ] || fail "a target with snapshots made $(searches snap) searches"

for id in "${ids[@]}"; do assert_no_leftovers "$id"; done
echo PASS
