#!/usr/bin/env bash
# A target's daemon that dies while its tree is read back (a step's read-back, or the one
# within a restore) is a `daemon-died` class and the run goes on: exit 1, never 3 (exit 3 is
# for Metis's own failures). The death comes from the test hook METIS_TEST_KILL_DAEMON, so it
# falls inside the read-back every time, whatever the machine's speed.
. "$(dirname "$0")/../../lib/common.sh"
# died_at STEP N WHERE: the daemon killed at its Nth read named STEP; the class's entry names WHERE.
died_at() {
  local step=$1 n=$2 where=$3 out="$T/run-${1%%:*}"
  FAIL_LOG="$T/err-$1"
  METIS_TEST_KILL_DAEMON="tgt:$step:$n" "$METIS_BIN/metis" run tests/fixtures/fuse/fuse-daemon-dies.ini --ops 400 \
    --out "$out" 2>"$FAIL_LOG"
  local rc=$?
  [ $rc -eq 1 ] || fail "$step: exit status $rc, expected 1 (a discrepancy), never 3"
  grep -q "test hook: killing fs tgt's daemon at its $step number $n" "$FAIL_LOG" ||
    fail "$step: the hook never fired"
  grep -q "infrastructure failure" "$FAIL_LOG" && fail "$step: taken for Metis's own failure"
  python3 - "$out" "$where" <<'PY' || fail "$step: no daemon-died class naming the $where"
import json, os, sys
run, where = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(run, "summary.json")))
died = [c for c in s["classes"] if c["signature"] == "daemon-died tgt"]
assert died, [c["signature"] for c in s["classes"]]
assert where in died[0]["entry"], died[0]["entry"]
assert s["searches"] >= 2, s["searches"]
PY
  id=$(run_id_of "$FAIL_LOG")
  assert_no_leftovers "$id"
}
died_at read-back 20 "read-back: reading the tree"
died_at restore 1 "restore: reading the tree"
exit 0
