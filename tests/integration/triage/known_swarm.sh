#!/usr/bin/env bash
# A swarm of 2 VTs (on this machine, ':') with a known file, on the RefFS mutant with two planted
# defects: with one of its classes known the merged classes split 1 new and 1 known (exit 1),
# as each VT's own summary does; with both known it exits 0; the JUnit file has one suite per
# VT, validates against tests/junit.xsd and has one failure and one skip per VT.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
[ -x "$METIS_BIN/reffs-mutant" ] || skip "no $METIS_BIN/reffs-mutant"
need_tools cc xmllint
printf '2/:\n' >"$SW/hosts"
CFG=$METIS_ROOT/tests/fixtures/defects/two-defects.ini
S=${KNOWN_SECONDS:-6}
printf 'class: removexattr bad errno ENOENT, reference ENODATA\nnote: ENOENT for ENODATA\n' >"$SW/one.known"
printf 'class: mkdir bad state mode\n' | cat - "$SW/one.known" >"$SW/both.known"

split() {  # SUMMARY: "new known" and the merged classes as SIG=known|new
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["new_classes"], s["known_classes"],
      " ".join(sorted("%s=%s" % (c["signature"].replace(" ", "_"), "known" if c["known"] else "new")
                      for c in s["classes"])))
PY
}

swarm one "$CFG" --hosts "$SW/hosts" --vts 2 --seconds "$S" --keep-going --swarm-seed 5 \
    --out "$SW/out1" --known "$SW/one.known" --junit "$SW/one.xml"
[ "$rc" = 1 ] || fail "one known: swarm exit $rc, want 1"
want="1 1 mkdir_bad_state_mode=new removexattr_bad_errno_ENOENT,_reference_ENODATA=known"
[ "$(split "$SW/out1/summary.json")" = "$want" ] || fail "one known: $(split "$SW/out1/summary.json")"
for v in 0 1; do
    [ "$(split "$SW/out1/vt-$v/summary.json")" = "$want" ] || fail "VT $v: $(split "$SW/out1/vt-$v/summary.json")"
done
grep -q '^known file .*one.known: 1 new, 1 known, 0 known not seen$' "$SW/out1/summary.txt" ||
    fail "summary.txt does not show the split"
xmllint --noout --schema tests/junit.xsd "$SW/one.xml" || fail "the swarm's JUnit file does not validate"
python3 - "$SW/one.xml" <<'PY' || fail "the swarm's JUnit file is not one suite per VT with a failure and a skip each"
import sys, xml.etree.ElementTree as ET
suites = list(ET.parse(sys.argv[1]).getroot().iter("testsuite"))
assert [s.get("name") for s in suites] == ["two-defects vt-0", "two-defects vt-1"], suites
for s in suites:
    assert (s.get("tests"), s.get("failures"), s.get("skipped"), s.get("errors")) == ("3", "1", "1", "0")
PY
assert_clean "$SW/out1"

swarm both "$CFG" --hosts "$SW/hosts" --vts 2 --seconds "$S" --keep-going --swarm-seed 5 \
    --out "$SW/out2" --known "$SW/both.known"
[ "$rc" = 0 ] || fail "both known: swarm exit $rc, want 0"
[ "$(split "$SW/out2/summary.json")" = "0 2 mkdir_bad_state_mode=known removexattr_bad_errno_ENOENT,_reference_ENODATA=known" ] ||
    fail "both known: $(split "$SW/out2/summary.json")"
[ "$(json_field "$SW/out2/summary.json" status)" = ok ] || fail "both known: the swarm's status is not ok"
assert_clean "$SW/out2"
echo "PASS: $(grep '^known file' "$SW/out1/summary.txt")"
