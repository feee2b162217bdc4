#!/usr/bin/env bash
# A root chown that fails ENOSYS (a planted RefFS mutant whose root starts owned by 1:1 and refuses every chown): under lacks = owners set-up never sets the root's owner and the run runs clean; without it, set-up names lacks = owners, gives the reference the target's owner, makes that a class of its own and goes on.
. "$(dirname "$0")/../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
config() {
  cat <<INI
[run]
keep_going = 1
shrink_seconds = 0

[fs ref]
type = reffs
size = 256K

[fs ch]
type = reffs
size = 256K
reffs_opts = mutation=MUT_ROOT_CHOWN_ENOSYS
$1
INI
}
config "lacks = owners" >"$T/lacks.ini"
run_mutant "$T/lacks.ini" 1 --ops 200
rc=$?
[ $rc -eq 0 ] || fail "under lacks = owners metis run exited with $rc, not 0"
! grep -q "setting its root's owner" "$T/out" || fail "set-up set a root owner the config lacks"
assert_no_leftovers "$(run_id_of "$T/out")"

config "" >"$T/plain.ini"
run_mutant "$T/plain.ini" 1 --ops 200
rc=$?
[ $rc -eq 1 ] || fail "without lacks metis run exited with $rc, not 1"
grep -q "ch: setting its root's owner 0:0 (the reference's) failed: Function not implemented; no \[fs\] lacks declares it (lacks = owners would" "$T/out" ||
  fail "set-up did not name lacks = owners for the refused chown"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json lacks the set-up's class, or the run stopped"
import json, sys
s = json.load(open(sys.argv[1]))
c = {x["signature"]: x for x in s["classes"]}
assert s["ops"] >= 200, s["ops"]
k = c["setup ch root owner refused ENOSYS"]
assert k["first_op"] == 0 and k["reference_value"] == "0:0" and k["value"] == "1:1", k
PY
assert_no_leftovers "$(run_id_of "$T/out")"
echo PASS
