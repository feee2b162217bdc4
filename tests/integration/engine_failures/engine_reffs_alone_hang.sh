#!/usr/bin/env bash
# RefFS alone runs its steps on pan's own thread (no worker): a watchdog keeps its time limit.
# Its daemon stopped (SIGSTOP) mid-run, the run ends within the limit as an infrastructure
# failure (exit 3, "timed out after 2 s"), the daemon killed and nothing left mounted.
. "$(dirname "$0")/../../lib/common.sh"
cat >"$T/alone.ini" <<'INI'
[run]
seed = 2
seconds = 60

[fs ref]
type = reffs
size = 256K
op_timeout = 2
INI
run_and_find_daemon ref "$T/alone.ini"
# Mid-run: once the search is under way, however long the set-up took on this machine.
wait_for 120 eval 'lines_at_least "$T/run/log.txt" "^op " 100 || gone $metis_pid'
t0=$(date +%s)
signal_daemon ref STOP
on_exit "kill -CONT $victim 2>/dev/null"
wait "$metis_pid"
rc=$?
took=$(( $(date +%s) - t0 ))
cat "$T/err"
FAIL_LOG="$T/err"
[ $rc -eq 3 ] || fail "exit status $rc, expected 3 (the reference hung: Metis's own failure)"
grep -q "infrastructure failure: ref: .* timed out after 2 s" "$T/err" || fail "no time-out message"
# 3 s at a load average of 12 on 2 cores: the bound leaves room for a busier machine, and none
# for a run that goes on to its 60-s limit
[ "$took" -le 15 ] || fail "the run took $took s to end after the daemon stopped (limit 2 s)"
case "$(ps -o stat= -p "$victim" 2>/dev/null)" in ""|Z*) ;; *) fail "the stopped daemon $victim was not killed";; esac
assert_no_leftovers "$id"
echo "ok: exit 3 ${took} s after the daemon stopped"
