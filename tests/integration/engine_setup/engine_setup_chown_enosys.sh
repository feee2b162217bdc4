#!/usr/bin/env bash
# A root chown that fails ENOSYS (a planted RefFS mutant whose root starts owned by 1:1 and refuses every chown): under lacks = owners set-up never sets the root's owner and the run runs clean; without it, set-up names lacks = owners, gives the reference the target's owner, makes that a class of its own and goes on.
. "$(dirname "$0")/../../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
reffs_pair_ini ch MUT_ROOT_CHOWN_ENOSYS "lacks = owners" >"$T/lacks.ini"
run_mutant "$T/lacks.ini" 1 --ops 200
rc=$?
[ $rc -eq 0 ] || fail "under lacks = owners metis run exited with $rc, not 0"
! grep -q "setting its root's owner" "$T/out" || fail "set-up set a root owner the config lacks"
assert_no_leftovers "$(run_id_of "$T/out")"

reffs_pair_ini ch MUT_ROOT_CHOWN_ENOSYS >"$T/plain.ini"
run_mutant "$T/plain.ini" 1 --ops 200
rc=$?
[ $rc -eq 1 ] || fail "without lacks metis run exited with $rc, not 1"
grep -q "ch: setting its root's owner 0:0 (the reference's) failed: Function not implemented; no \[fs\] lacks declares it (lacks = owners would" "$T/out" ||
  fail "set-up did not name lacks = owners for the refused chown"
setup_class_of "$T/run/summary.json" "setup ch root owner refused ENOSYS" 200 0:0 1:1 ||
  fail "summary.json lacks the set-up's class, or the run stopped"
assert_no_leftovers "$(run_id_of "$T/out")"
echo PASS
