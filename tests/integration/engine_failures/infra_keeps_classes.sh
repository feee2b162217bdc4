#!/usr/bin/env bash
# Metis's own failure after classes were found (the reference's daemon killed mid-run, after
# tests/fixtures/defects/two-defects.ini's first planted class) ends the run with exit 3, and the
# classes found so far are triaged all the same: classes.txt, shrunk traces, report.html and
# JUnit (the class as a test case beside the run's error).
. "$(dirname "$0")/../../lib/common.sh"
[ -w /dev/fuse ] || skip "no /dev/fuse"
need_tools xmllint
FAIL_LOG=$T/err
run_and_find_daemon ref tests/fixtures/defects/two-defects.ini --seconds 120 --junit "$T/junit.xml"
wait_for 300 eval 'grep -q "^metis: discrepancy at operation" "$T/err" || gone $metis_pid'
grep -q '^metis: discrepancy at operation' "$T/err" || fail "no class was found"
signal_daemon ref KILL
wait "$metis_pid"
rc=$?
cat "$T/err" >&2
[ $rc -eq 3 ] || fail "exit status $rc, want 3 (the reference failed)"
grep -q 'infrastructure failure' "$T/err" || fail "not reported as an infrastructure failure"
grep -q '^metis: the run failed (exit 3) after finding [0-9]* class' "$T/err" ||
    fail "the front end did not say it triages the classes found"
[ -s "$T/run/classes.txt" ] || fail "no classes.txt"
grep -q '^class 1: .*: [0-9]* hits\?, first at operation' "$T/run/classes.txt" ||
    fail "classes.txt does not describe class 1"
grep -q '^  triage: shrunk ' "$T/run/classes.txt" || fail "no class was shrunk"
[ -s "$T/run/report.html" ] || fail "no report.html"
grep -q 'class 1' "$T/run/report.html" || fail "report.html does not show class 1"
xmllint --noout --schema tests/junit.xsd "$T/junit.xml" 2>"$T/xml" || { cat "$T/xml"; fail "junit.xml is not valid"; }
grep -q '<testcase .*name="[^"]*\(removexattr\|mkdir\)' "$T/junit.xml" || fail "JUnit has no class test case"
grep -q '<error type="run"' "$T/junit.xml" || fail "JUnit has no error for the failed run"
assert_no_leftovers "$id"
echo PASS
