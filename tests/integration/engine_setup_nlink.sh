#!/usr/bin/env bash
# A target whose root reports link count 0 (a planted RefFS mutant: the FUSE convention of a file system that does not count directory links) runs past operation 0: set-up names lacks = dir_nlink, takes it as declared, makes it a class of its own, and the run's 300 operations find nothing else. With a second planted defect (rmdir of a non-empty directory succeeds) beside it, that class is shrunk and its reproducer bites, since the replay and the reproducer take dir_nlink as set-up did.
. "$(dirname "$0")/../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
cat >"$T/nl.ini" <<'INI'
[run]
keep_going = 1

[fs ref]
type = reffs
size = 256K

[fs nl]
type = reffs
size = 256K
reffs_opts = mutation=MUT_ROOT_NLINK_0
INI
run_mutant "$T/nl.ini" 1 --ops 300
rc=$?
[ $rc -eq 1 ] || fail "metis run exited with $rc, not 1 (the set-up's class)"
grep -q "nl: its root's link count is 0 (the reference's [0-9]*): it does not count directory links, which lacks = dir_nlink declares; the run goes on as if it were declared" "$T/out" ||
  fail "set-up did not name lacks = dir_nlink"
! grep -q "the initial states differ" "$T/out" || fail "the run stopped at operation 0"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json does not hold the set-up's class alone, run to 300 operations"
import json, sys
s = json.load(open(sys.argv[1]))
c = s["classes"]
assert s["ops"] >= 300, s["ops"]
assert [x["signature"] for x in c] == ["setup nl root nlink not counted"], c
assert c[0]["first_op"] == 0 and c[0]["value"] == "0", c[0]
assert "lacks = dir_nlink" in c[0]["hint"], c[0]["hint"]
PY
assert_no_leftovers "$(run_id_of "$T/out")"

sed 's/mutation=MUT_ROOT_NLINK_0/mutation=MUT_ROOT_NLINK_0+MUT_RMDIR_NONEMPTY/; s/^keep_going = 1$/keep_going = 1\nshrink_seconds = 30/' \
  "$T/nl.ini" >"$T/two.ini"
run_mutant "$T/two.ini" 1 --ops 1000
rc=$?
[ $rc -eq 1 ] || fail "with a second defect metis run exited with $rc, not 1"
python3 - "$T/run/summary.json" <<'PY' || fail "the second defect's class was not shrunk to a reproducer that bites"
import json, sys
s = json.load(open(sys.argv[1]))
c = {x["signature"]: x for x in s["classes"]}
assert "setup nl root nlink not counted" in c, list(c)
k = c["rmdir nl errno 0, reference ENOTEMPTY"]
assert k["triage"].startswith("shrunk") and k["trace_ops"] <= 10, k["triage"]
assert k["repro_exit_target"] == 1 and k["repro_exit_reference"] == 0, k
PY
assert_no_leftovers "$(run_id_of "$T/out")"
echo PASS
