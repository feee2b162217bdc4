#!/usr/bin/env bash
# RefFS against ext4 for 20,000 operations: no discrepancy, and nothing left behind.
. "$(dirname "$0")/../../lib/common.sh"
"$METIS_BIN/metis" run configs/ref-vs-ext4.ini --ops 20000 --seconds 0 --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc"
[ "$(json_field "$T/run/summary.json" ops)" -eq 20000 ] || fail "did not run 20000 operations"
[ "$(json_field "$T/run/summary.json" discrepancies)" -eq 0 ] || fail "discrepancies"
grep -q '^restore sid=' "$T/run/log.txt" || fail "no restore logged"
assert_no_leftovers "$(run_id_of "$T/err")"
