#!/usr/bin/env bash
# SIGINT during a run: the engine stops, writes its summary and log, and removes everything.
. "$(dirname "$0")/../../lib/common.sh"
"$METIS_BIN/metis" run configs/ext2-vs-ext4.ini --seconds 60 --out "$T/run" 2>"$T/err" &
pid=$!
# until the search is under way, however long its set-up takes on this machine
wait_for 300 eval 'lines_at_least "$T/run/log.txt" "^op " 201 || gone $pid'
kill -INT $pid
wait $pid
rc=$?
cat "$T/err"
[ $rc -eq 130 ] || fail "exit status $rc, want 130"
[ "$(json_field "$T/run/summary.json" status)" = interrupted ] || fail "summary does not say interrupted"
grep -q '^end status=' "$T/run/log.txt" || fail "log not flushed to its end"
[ "$(grep -c '^op ' "$T/run/log.txt")" -gt 100 ] || fail "log lost operations"
assert_no_leftovers "$(run_id_of "$T/err")"
