#!/usr/bin/env bash
# The streak rule: a target that dies again each time it is set up afresh, before any operation
# is done, does not make a run spin through searches: the third `daemon-died` in a row ends the
# run with exit 1 (not 3), long before its time budget.
. "$(dirname "$0")/../../lib/common.sh"
# The mount command kills its own daemon as soon as the mount is there.
cat >"$T/dies.ini" <<'INI'
[run]
seed = 1
keep_going = 1
shrink_seconds = 0

[fs ref]
type = reffs
size = 1M

[fs tgt]
type = fuse
mount_cmd = {bin}/reffs -f -o noopen,nosnapshots,capacity=1M {mnt} & p=$!;
  while ! mountpoint -q {mnt}; do sleep 0.01; done; kill -9 $p
restore = logical
INI
"$METIS_BIN/metis" run "$T/dies.ini" --seconds 120 --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
FAIL_LOG="$T/err"
[ $rc -eq 1 ] || fail "exit status $rc, expected 1"
grep -q "metis: fs tgt: daemon-died 3 times in a row, set up afresh each time and failing again before any operation was done: the run stops" \
  "$T/err" || fail "the streak rule did not stop the run"
# The run's own seconds, which its budget counts (pan's build, slow on a busy host, is no part).
took=$(json_field "$T/run/summary.json" seconds)
[ "$(echo "$took < 60" | bc)" = 1 ] || fail "the run took $took s of its 120"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json does not show three failures in three searches"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["reason"] == "the target keeps failing", s["reason"]
assert s["searches"] == 3, s["searches"]
c = [c for c in s["classes"] if c["signature"] == "daemon-died tgt"]
assert c and c[0]["hits"] == 3, s["classes"]
PY
assert_no_leftovers "$(run_id_of "$T/err")"
