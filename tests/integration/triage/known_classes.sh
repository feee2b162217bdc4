#!/usr/bin/env bash
# Known classes on a RefFS mutant with two planted defects (tests/fixtures/defects/two-defects.ini):
# metis known add; --known with neither, one and both classes known (exit 1 only for a new
# class; summary.json, the progress line, classes.txt and report.html show the split and the
# known classes not seen; a known class does not stop a run that does not keep going;
# --strict-known keeps exit 1); metis-replay recheck (both fixed on plain RefFS, both still
# failing on the mutant); the JUnit files validate against tests/junit.xsd with the expected
# failures and skips, and an infrastructure failure is the error of the test case "run".
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis metis-replay reffs reffs-mutant; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
need_tools cc python3 xmllint
S=${KNOWN_SECONDS:-5}
CFG=tests/fixtures/defects/two-defects.ini
MKDIR="mkdir bad state mode" RMX="removexattr bad errno ENOENT, reference ENODATA"
export REPRO_TMP=/dev/shm/metis-known-test.$$
mkdir -p "$REPRO_TMP"
on_exit 'rmdir "$REPRO_TMP" 2>/dev/null'

run() {  # NAME WANT_RC ARGS...: metis run of the fixture into $T/NAME
    local name=$1 want=$2; shift 2
    "$B/metis" run "$CFG" --seconds "$S" --out "$T/$name" "$@" >"$T/$name.out" 2>&1
    local rc=$?
    FAIL_LOG=$T/$name.out
    [ $rc = "$want" ] || fail "$name: metis run exited $rc, want $want"
    assert_no_leftovers "$(run_id_of "$T/$name.out")"
}
split() {  # RUN: "new known not_seen" of its summary.json, then each class as SIG=known|new
    python3 - "$1/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["new_classes"], s["known_classes"], len(s["known_not_seen"]),
      " ".join(sorted("%s=%s" % (c["signature"].replace(" ", "_"), "known" if c["known"] else "new")
                      for c in s["classes"])))
PY
}
junit() {  # FILE: validates, then "tests failures skipped errors" of its suites, summed
    xmllint --noout --schema tests/junit.xsd "$1" 2>"$T/xmllint.err" ||
        { cat "$T/xmllint.err"; fail "$1 does not validate against tests/junit.xsd"; }
    python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
t = [0, 0, 0, 0]
for s in ET.parse(sys.argv[1]).getroot().iter("testsuite"):
    for k, a in enumerate(("tests", "failures", "skipped", "errors")):
        t[k] += int(s.get(a))
    cases = s.findall("testcase")
    assert len(cases) == int(s.get("tests")), "tests= does not count the test cases"
    assert len([c for c in cases if c.find("failure") is not None]) == int(s.get("failures"))
    assert len([c for c in cases if c.find("skipped") is not None]) == int(s.get("skipped"))
print(*t)
PY
}

# A known file with a class no run finds: it is listed as not seen.
printf '# test\nclass: chmod bad state mode\nnote: an old one\n' >"$T/none.known"

# 1. Neither known: exit 1, two new classes, one known class not seen.
run r1 1 --known "$T/none.known" --junit "$T/r1.xml"
[ "$(split "$T/r1")" = "2 0 1 ${MKDIR// /_}=new ${RMX// /_}=new" ] || fail "r1: split $(split "$T/r1")"
grep -q 'classes=2 groups=2 new=2 known=0 not_seen=1$' "$T/r1.out" || fail "r1: the summary line has no new/known split"
grep -q '^  not seen: chmod bad state mode: an old one$' "$T/r1/classes.txt" || fail "r1: classes.txt lacks the class not seen"
[ "$(junit "$T/r1.xml")" = "3 2 0 0" ] || fail "r1: junit $(junit "$T/r1.xml")"

# metis known add: both classes of r1 (and none again); a malformed file is refused, exit 2.
"$B/metis" known add "$T/r1" --note "planted" --link "https://example.org/mutants" --to "$T/both.known" |
    grep -q '^metis known: 2 classes added' || fail "known add did not add two classes"
"$B/metis" known add "$T/r1" --to "$T/both.known" | grep -q ' 0 classes added.* 2 already there$' ||
    fail "known add added a class twice"
[ "$(grep -c '^class: ' "$T/both.known")" = 2 ] || fail "the known file does not hold two records"
# the removexattr record alone, its note and link kept
awk -v drop="class: $MKDIR" '$0 == drop { skip = 1; next } /^class: / { skip = 0 } !skip' \
    "$T/both.known" >"$T/one.known"
printf 'class: x\nbogus line\n' >"$T/bad.known"
"$B/metis" run "$CFG" --known "$T/bad.known" --out "$T/bad" >"$T/bad.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "bad.known:2: expected" "$T/bad.out" || fail "a malformed known file: exit $rc, $(cat "$T/bad.out")"

# 2. One known: exit 1, one new and one known, marked in classes.txt and report.html.
run r2 1 --known "$T/one.known" --junit "$T/r2.xml"
[ "$(split "$T/r2")" = "1 1 0 ${MKDIR// /_}=new ${RMX// /_}=known" ] || fail "r2: split $(split "$T/r2")"
grep -q "^class [12]: $RMX: .* \[known: planted\]$" "$T/r2/classes.txt" || fail "r2: classes.txt does not mark the known class"
grep -q "^class [12]: $MKDIR: .* \[new\]$" "$T/r2/classes.txt" || fail "r2: classes.txt does not mark the new class"
grep -q 'new: not in the known file' "$T/r2/report.html" && grep -q 'known: planted (https://example.org/mutants)' "$T/r2/report.html" ||
    fail "r2: report.html does not show the split"
[ "$(junit "$T/r2.xml")" = "3 1 1 0" ] || fail "r2: junit $(junit "$T/r2.xml")"
grep -q "<skipped message=\"planted\"/>" "$T/r2.xml" || fail "r2: the skipped case does not carry its note"

# 3. Both known, in a run that does not keep going: the known hits do not stop it; exit 0.
sed 's/^keep_going = 1/keep_going = 0/' "$CFG" >"$T/stop.ini"
CFG=$T/stop.ini run r3 0 --known "$T/both.known" --junit "$T/r3.xml"
[ "$(split "$T/r3")" = "0 2 0 ${MKDIR// /_}=known ${RMX// /_}=known" ] || fail "r3: split $(split "$T/r3")"
[ "$(json_field "$T/r3/summary.json" reason)" = "time limit" ] || fail "r3: a known class stopped the run"
[ "$(junit "$T/r3.xml")" = "3 0 2 0" ] || fail "r3: junit $(junit "$T/r3.xml")"
S=2 CFG=$T/stop.ini run r4 1 --known "$T/both.known" --strict-known

# An infrastructure failure is the error of the test case "run", with the last lines of its log.
printf '[run]\nseconds = 5\n[fs ref]\ntype = reffs\nsize = 256K\n[fs bad]\ntype = fuse\nmount_cmd = /bin/false {mnt}\nrestore = logical\n' >"$T/infra.ini"
"$B/metis" run "$T/infra.ini" --out "$T/infra" --junit "$T/infra.xml" >"$T/infra.out" 2>&1
rc=$?
[ $rc = 3 ] || { cat "$T/infra.out"; fail "the failing mount: exit $rc, want 3"; }
[ "$(junit "$T/infra.xml")" = "1 0 0 1" ] || fail "infra: junit $(junit "$T/infra.xml")"
grep -q '^infra fs bad: setup: first mount: .*did not mount' "$T/infra.xml" || fail "infra: the error does not carry the log's last lines"

# 4. recheck with r1's reproducers: fixed on plain RefFS, still failing on the mutant.
"$B/metis-replay" recheck "$T/both.known" "$T/r1" --target ref >"$T/fixed.out" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(grep -c '^fixed: ' "$T/fixed.out")" = 2 ] || { cat "$T/fixed.out"; fail "recheck on plain RefFS: exit $rc"; }
"$B/metis-replay" recheck "$T/both.known" "$T/r1" >"$T/fails.out" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(grep -c '^still fails: ' "$T/fails.out")" = 2 ] || { cat "$T/fails.out"; fail "recheck on the mutant: exit $rc"; }
"$B/metis-replay" recheck "$T/none.known" "$T/r1" >"$T/cannot.out" 2>&1
rc=$?
[ $rc = 3 ] && grep -q '^cannot run: chmod bad state mode: no reproducer' "$T/cannot.out" || { cat "$T/cannot.out"; fail "recheck without a reproducer: exit $rc"; }
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "reproducer files left behind"
echo "PASS: $(tr '\n' ' ' <"$T/fixed.out")"
