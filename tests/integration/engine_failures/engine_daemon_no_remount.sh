#!/usr/bin/env bash
# A target's daemon that mounted once and does not come back when it is mounted afresh (a
# restore by replay, a checkpoint) has died as far as the run goes: a `daemon-died` class
# naming the mount that failed, every fs set up afresh, exit 1. It was exit 3, Metis's own
# failure. The mount command fails on its second start only (a counter file of the test's).
. "$(dirname "$0")/../../lib/common.sh"
cat >"$T/remount.ini" <<INI
[run]
seed = 3
keep_going = 1
shrink_seconds = 0
[fs ref]
type = reffs
size = 1M
[fs tgt]
type = fuse
mount_cmd = n=\$(cat $T/starts 2>/dev/null || echo 0); n=\$((n+1)); echo \$n >$T/starts;
  test \$n = 2 && exit 1; exec {bin}/reffs -o noopen,nosnapshots,capacity=1M {mnt}
restore = replay
[ops]
open_unlink = 0
INI
FAIL_LOG=$T/err
"$METIS_BIN/metis" run "$T/remount.ini" --ops 300 --out "$T/run" 2>"$FAIL_LOG"
rc=$?
[ $rc -eq 1 ] || fail "exit status $rc, expected 1 (a discrepancy), never 3"
[ "$(cat "$T/starts")" -ge 3 ] || fail "the daemon was not started again after it failed"
grep -q "infrastructure failure" "$FAIL_LOG" && fail "taken for Metis's own failure"
python3 - "$T/run" <<'PY' || fail "no daemon-died class naming the mount that failed"
import json, os, sys
s = json.load(open(os.path.join(sys.argv[1], "summary.json")))
died = [c for c in s["classes"] if c["signature"] == "daemon-died tgt"]
assert died and "did not mount" in died[0]["entry"], s["classes"]
assert s["searches"] >= 2, s["searches"]
PY
assert_no_leftovers "$(run_id_of "$FAIL_LOG")"
exit 0
