#!/usr/bin/env bash
# type = fuse without an image or the snapshot ioctls: every restore is logical (the difference
# between recorded trees), verified by its digest, with no fallback to replay and no discrepancy.
# (The fallback and its failure are driven in backend_fuse.sh.)
. "$(dirname "$0")/../../lib/common.sh"
"$METIS_BIN/metis" run tests/fixtures/restore/fuse-logical.ini --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json does not show verified logical restores"
import json, sys
s = json.load(open(sys.argv[1]))
b = s["backends"]["other"]
print(b)
assert s["discrepancies"] == 0
assert b["restore"] == "logical", b["restore"]
assert b["logical_restores"] > 100, "too few restores to tell"
assert b["verified"] == b["logical_restores"], "a restore was not verified"
assert b["fallbacks"] == 0 and b["replays"] == 0, "a restore fell back to replay"
assert b["logical_restores"] - b["already_there"] > 20, "too few restores changed anything"
calls = b["logical_calls"]
assert calls["created"] > 0 and calls["removed"] > 0 and calls["rewritten"] > 0, calls
PY
assert_no_leftovers "$(run_id_of "$T/err")"
