#!/usr/bin/env bash
# A target whose root reports link count 0 (a planted RefFS mutant: the FUSE convention of a file system that does not count directory links) runs past operation 0: set-up names lacks = dir_nlink, takes it as declared, makes it a class of its own, and the run's 300 operations find nothing else. With a second planted defect (rmdir of a non-empty directory succeeds) beside it, that class is shrunk and its reproducer bites, since the replay and the reproducer take dir_nlink as set-up did.
. "$(dirname "$0")/../../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
reffs_pair_ini nl MUT_ROOT_NLINK_0 >"$T/nl.ini"
run_mutant "$T/nl.ini" 1 --ops 300
rc=$?
[ $rc -eq 1 ] || fail "metis run exited with $rc, not 1 (the set-up's class)"
grep -q "nl: its root's link count is 0 (the reference's [0-9]*): it does not count directory links, which lacks = dir_nlink declares; the run goes on as if it were declared" "$T/out" ||
  fail "set-up did not name lacks = dir_nlink"
! grep -q "the initial states differ" "$T/out" || fail "the run stopped at operation 0"
setup_class_of "$T/run/summary.json" "setup nl root nlink not counted" 300 ||
  fail "summary.json lacks the set-up's class, or the run stopped"
[ "$(json_field "$T/run/summary.json" classes | grep -o "'signature'" | wc -l)" -eq 1 ] ||
  fail "the run found more than the set-up's class"
assert_no_leftovers "$(run_id_of "$T/out")"

sed 's/mutation=MUT_ROOT_NLINK_0/mutation=MUT_ROOT_NLINK_0+MUT_RMDIR_NONEMPTY/; s/^shrink_seconds = 0$/shrink_seconds = 30/' \
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
