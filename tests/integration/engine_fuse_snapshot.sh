#!/usr/bin/env bash
# type = fuse whose daemon answers the snapshot ioctls (RefFS through mount_cmd): every restore is
# the daemon's RESTORE, none is a replay, and it agrees with the reference throughout.
. tests/lib/common.sh
"$METIS_BIN/metis" run tests/fixtures/fuse-snapshot.ini --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json does not show snapshot restores"
import json, sys
s = json.load(open(sys.argv[1]))
b = s["backends"]["other"]
print(b)
assert s["discrepancies"] == 0
assert b["restore"] == "snapshot" and b["replays"] == 0, b
assert b["snapshot_restores"] == s["restores"] > 50, (b, s["restores"])
PY
assert_no_leftovers "$(run_id_of "$T/err")"
