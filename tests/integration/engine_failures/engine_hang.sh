#!/usr/bin/env bash
# A target whose daemon stops answering (SIGSTOP) mid-run is a finding: after its own op_timeout
# (2 s; the reference keeps the default 10) a `hang` class, the daemon killed and its mount
# torn down, a new search, exit 1 (not 3).
. "$(dirname "$0")/../../lib/common.sh"
secs=${HANG_SECONDS:-16}
cat >"$T/hang.ini" <<'INI'
[run]
seed = 4
keep_going = 1
shrink_seconds = 0

[fs ref]
type = reffs
size = 1M

[fs tgt]
type = fuse
mount_cmd = {bin}/reffs -o noopen,nosnapshots,capacity=1M {mnt}
restore = logical
op_timeout = 2

[ops]
open_unlink = 0
INI
run_and_find_daemon tgt "$T/hang.ini" --seconds "$secs"
# Mid-run: once the search is under way, however long the set-up took on this machine.
wait_for 120 eval 'lines_at_least "$T/run/log.txt" "^op " 100 || gone $metis_pid'
signal_daemon tgt STOP
on_exit "kill -CONT $victim 2>/dev/null"
wait "$metis_pid"
rc=$?
cat "$T/err"
FAIL_LOG="$T/err"
[ $rc -eq 1 ] || fail "exit status $rc, expected 1 (a discrepancy), never 3"
grep -q "class [0-9]*: hang on tgt" "$T/err" || fail "no hang finding on stderr"
grep -q "search 2 follows with seed" "$T/err" || fail "no new search after the hang"
# Gone, or a zombie its new parent has not reaped yet: killed either way.
case "$(ps -o stat= -p "$victim" 2>/dev/null)" in ""|Z*) ;; *) fail "the stopped daemon $victim was not killed";; esac
python3 - "$T/run" <<'PY' || fail "summary.json does not show the hang and the run going on"
import json, os, re, sys
run = sys.argv[1]
s = json.load(open(os.path.join(run, "summary.json")))
hang = [c for c in s["classes"] if c["signature"] == "hang tgt"]
assert hang, [c["signature"] for c in s["classes"]]
assert "timed out after 2 s" in hang[0]["entry"], hang[0]
assert s["searches"] >= 2 and s["reason"] == "time limit", (s["searches"], s["reason"])
PY
# The searches after the first (its failure's) went on: per search against per run.
tests/lib/search_ops.py "$T/run" 50 || fail "no searches after the first, or their operations do not add up"
assert_no_leftovers "$id"
pgrep -f -- "metis-$id/" >/dev/null && fail "a daemon of run $id is still running"
exit 0
