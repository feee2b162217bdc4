#!/usr/bin/env bash
# type = fuse whose daemon answers the snapshot ioctls (RefFS through mount_cmd): every restore is
# the daemon's RESTORE, none is a replay, it is read back by its dump, and it agrees with the
# reference throughout; a daemon whose dump and kernel view differ stops the run.
. "$(dirname "$0")/../../lib/common.sh"
"$METIS_BIN/metis" run tests/fixtures/restore/fuse-snapshot.ini --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json does not show snapshot restores"
import json, sys
s = json.load(open(sys.argv[1]))
b = s["backends"]["other"]
print(b)
assert s["discrepancies"] == 0
assert b["restore"] == "snapshot" and b["replays"] == 0 and b["readback"] == "dump", b
assert b["snapshot_restores"] == s["restores"] > 50, (b, s["restores"])
PY
assert_no_leftovers "$(run_id_of "$T/err")"

"$METIS_BIN/metis" run tests/fixtures/restore/fuse-dump-stale.ini --ops 3000 --out "$T/bad" 2>"$T/bad.err"
rc=$?
tail -n 3 "$T/bad.err"
[ $rc -eq 3 ] || fail "stale view: exit status $rc, want 3 (infrastructure failure)"
grep -q "the daemon's own tree and the kernel's view of it differ" "$T/bad.err" ||
  fail "stale view: the cross-check did not name the problem"
assert_no_leftovers "$(run_id_of "$T/bad.err")"
