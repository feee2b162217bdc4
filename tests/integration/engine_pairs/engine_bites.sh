#!/usr/bin/env bash
# The checker bites: a RefFS with a planted defect is reported (exit 1), and the log and the
# discrepancy report name the operation that diverged.
. "$(dirname "$0")/../../lib/common.sh"
"$METIS_BIN/metis" run tests/fixtures/defects/defective.ini --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 1 ] || fail "exit status $rc, want 1"
[ "$(json_field "$T/run/summary.json" discrepancies)" -eq 1 ] || fail "summary does not count it"
seq=$(sed -n 's/^discrepancy \([0-9]*\) fs=bad .*/\1/p' "$T/run/log.txt" | head -n1)
[ -n "$seq" ] || fail "no discrepancy line for fs bad in the log"
grep -q "^op $seq .* rmdir " "$T/run/log.txt" || fail "the diverging operation $seq is not the rmdir"
grep -q "^operation $seq: rmdir " "$T/run/discrepancy-1.txt" || fail "report does not name the rmdir"
grep -q "^## tree of bad" "$T/run/discrepancy-1.txt" || fail "report lacks the trees"
assert_no_leftovers "$(run_id_of "$T/err")"
