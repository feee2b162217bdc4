#!/usr/bin/env bash
# Set-up that checks itself: a target whose root keeps mode 0700 and answers a chmod of it with success (a planted RefFS mutant, as cryfs does) is read back after the set-up's chmod; the run says the root was kept, gives the reference the target's root instead of claiming it set it, makes that a class of its own (set-up, operation 0, not shrunk) and goes on: its 300 operations find nothing else. A reproducer emit-c makes of a trace of that pair starts the reference from the same root, so it runs clean on the reference (it started it from 0755 and reported the root as the defect).
. "$(dirname "$0")/../../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
cat >"$T/root.ini" <<'INI'
[run]
keep_going = 1

[fs ref]
type = reffs
size = 256K

[fs kept]
type = reffs
size = 256K
reffs_opts = mutation=MUT_ROOT_KEEPS_0700
INI
run_mutant "$T/root.ini" 1 --ops 300
rc=$?
[ $rc -eq 1 ] || fail "metis run exited with $rc, not 1 (the set-up's class)"
grep -q "kept: its root kept mode 0700 after it was set to the reference's mode 0755 (the fs ignores it): the reference's root gets the fs's instead; a class of its own, and the run goes on" "$T/out" ||
  fail "the run did not say that the target kept its root"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json does not hold the set-up's class alone, run to 300 operations"
import json, sys
s = json.load(open(sys.argv[1]))
c = s["classes"]
assert s["ops"] >= 300, s["ops"]
assert [x["signature"] for x in c] == ["setup kept root mode kept"], c
assert c[0]["first_op"] == 0 and c[0]["reference_value"] == "0755" and c[0]["value"] == "0700", c[0]
assert "lacks = modes" in c[0]["hint"], c[0]["hint"]
assert c[0]["triage"].startswith("not shrunk: set-up adapted to it"), c[0]["triage"]
PY
grep -q "^setup 0 fs=kept attr=mode reference=0755 value=0700$" "$T/run/log.txt" ||
  fail "log.txt has no set-up record of fs kept"
! grep -q "kept: root set to the reference's" "$T/out" || fail "the run claimed it set the root"
assert_no_leftovers "$(run_id_of "$T/out")"
export METIS_REFFS_BIN=$METIS_ROOT/tests/mutations/reffs-pick.sh
"$METIS_BIN/metis-replay" record "$T/root.ini" --ops 6 --seed 3 -o "$T/six.trace" >"$T/rec" 2>&1 ||
  { cat "$T/rec"; fail "metis-replay record failed"; }
"$METIS_BIN/metis-replay" emit-c "$T/six.trace" --config "$T/root.ini" -o "$T/repro" >"$T/emit" 2>&1 ||
  { cat "$T/emit"; fail "emit-c failed"; }
grep -q '^root_mode=0700 root_owner=0:0$' "$T/repro/run.sh" || fail "run.sh does not start roots at 0700 0:0"
REPRO_TMP=$T REFFS_BIN=$METIS_BIN/reffs "$T/repro/run.sh" ref >"$T/rep" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$T/rep"; fail "the reproducer exited $rc on the reference, want 0"; }
echo PASS
