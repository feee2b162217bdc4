#!/usr/bin/env bash
# type = fuse without an image, restore = replay: each restore remounts it fresh and replays the search path;
# a wrong replay would show as a discrepancy at the next operation.
. "$(dirname "$0")/../../lib/common.sh"
"$METIS_BIN/metis" run tests/fixtures/restore/fuse-replay.ini --ops 400 --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc"
[ "$(json_field "$T/run/summary.json" restores)" -gt 50 ] || fail "too few restores to tell"
[ "$(json_field "$T/run/summary.json" discrepancies)" -eq 0 ] || fail "discrepancies"
python3 -c 'import json, sys; b = json.load(open(sys.argv[1]))["backends"]["other"]
assert b["restore"] == "replay" and b["replays"] > 50, b' "$T/run/summary.json" ||
  fail "summary.json does not show replays"
assert_no_leftovers "$(run_id_of "$T/err")"
