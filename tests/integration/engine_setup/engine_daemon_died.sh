#!/usr/bin/env bash
# A target whose FUSE daemon is killed mid-run is a finding, not the end of the run: a
# `daemon-died` class, every fs set up afresh, a new search, exit 1 (not 3), nothing left over.
. "$(dirname "$0")/../../lib/common.sh"
secs=${DAEMON_DIED_SECONDS:-16}
run_and_find_daemon tgt tests/fixtures/fuse/fuse-daemon-dies.ini --seconds "$secs"
# Mid-run: once the search is under way, however long the set-up took on this machine.
wait_for 120 eval 'lines_at_least "$T/run/log.txt" "^op " 100 || gone $metis_pid'
signal_daemon tgt KILL
wait "$metis_pid"
rc=$?
cat "$T/err"
FAIL_LOG="$T/err"
[ $rc -eq 1 ] || fail "exit status $rc, expected 1 (a discrepancy), never 3"
grep -q "metis: target failure at operation [0-9]* (details in .*): class [0-9]*: daemon-died on tgt" \
  "$T/err" || fail "no daemon-died finding on stderr"
grep -q "search 2 follows with seed" "$T/err" || fail "no new search after the daemon died"
python3 - "$T/run" <<'PY' || fail "summary.json, classes.txt or the logs do not show the run going on"
import json, os, re, sys
run = sys.argv[1]
s = json.load(open(os.path.join(run, "summary.json")))
died = [c for c in s["classes"] if c["signature"] == "daemon-died tgt"]
assert died, [c["signature"] for c in s["classes"]]
c = died[0]
assert c["kinds"] == "daemon-died", c
# A request in flight when the daemon dies fails with ECONNABORTED, later ones with ENOTCONN.
assert any(w in c["entry"] for w in ("ENOTCONN", "not connected", "connection abort", "gone")), c
assert s["searches"] >= 2, s["searches"]
assert s["reason"] == "time limit", s["reason"]
first = open(os.path.join(run, "search-1", "log.txt")).read()
assert "\ntarget " in first and "failure=daemon-died" in first, "no target line in search 1's log"
detail = open(os.path.join(run, c["detail"])).read()
assert "target failure: fs tgt: daemon-died" in detail, detail
classes = open(os.path.join(run, "classes.txt")).read()
assert "daemon-died tgt" in classes, classes
PY
# The searches after the first (its failure's) went on: per search against per run.
tests/lib/search_ops.py "$T/run" 50 || fail "no searches after the first, or their operations do not add up"
assert_no_leftovers "$id"
pgrep -f -- "metis-$id/" >/dev/null && fail "a daemon of run $id is still running"
exit 0
