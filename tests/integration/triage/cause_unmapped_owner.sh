#!/usr/bin/env bash
# An owner the kernel cannot map is one cause: a RefFS mutant that stores chown(f, -1, gid)'s -1 as the owner (as archivemount 0.8.7 does) makes many classes, EACCES, EPERM and EOVERFLOW of any operation below that owner; all of them and the owner difference are the group "unmapped-owner mut", and no refusal of theirs is taken for a feature the fs lacks.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
[ -x "$B/metis" ] || skip "$B/metis is not built"
[ -x "$B/reffs-mutant" ] || skip "$B/reffs-mutant is not built"
[ -w /dev/fuse ] || skip "no /dev/fuse"
export METIS_REFFS_BIN=$METIS_ROOT/tests/mutations/reffs-pick.sh
FAIL_LOG=$T/run.out
timeout -k 5 200 "$B/metis" run tests/fixtures/triage/mutant-chgrp-minus-one.ini --out "$T/r" \
    >"$T/run.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "metis run exited $rc, want 1 (discrepancies)"
assert_no_leftovers "$(run_id_of "$T/run.out")"
python3 - "$T/r/summary.json" <<'PY' || fail "summary.json: the unmapped owner's classes are not one group"
import json, re, sys
s = json.load(open(sys.argv[1]))
key = "unmapped-owner mut"
groups = {g["group"]: g for g in s["groups"]}
assert key in groups, list(groups)
ours = [c for c in s["classes"] if c["group"] == key]
# the owner difference the chgrp made, and refusals of several operations below it
assert any(re.search(r" state owner$", c["signature"]) for c in ours), [c["signature"] for c in ours]
refusals = [c for c in ours if re.search(r"errno (EACCES|EOVERFLOW|EPERM),", c["signature"])]
ops = {c["signature"].split()[0].split("/")[0] for c in refusals}
assert len(refusals) >= 10 and len(ops) >= 5, (len(refusals), ops)
# no such refusal is a group of its own or a lacks word's
for c in s["classes"]:
    if re.search(r"errno (EACCES|EOVERFLOW), reference", c["signature"]):
        assert c["group"] == key, c
    assert not (c["group"].startswith("lacks:") and "errno EPERM," in c["signature"]), c
    assert not (c.get("lacks") and "errno EPERM," in c["signature"]), c
print(f"{len(ours)} classes in {key} ({len(refusals)} refusals of {len(ops)} operations) "
      f"of {s['discrepancy_classes']} classes in {s['discrepancy_groups']} groups")
PY
grep -q "^g[0-9]* unmapped-owner mut: [0-9]* classes .*an owner the kernel cannot map" "$T/r/classes.txt" ||
    fail "classes.txt has no line for the group"
grep -q "hint: .*overflow id (65534:65534)" "$T/r"/search-*/discrepancy-*.txt "$T/r"/discrepancy-*.txt 2>/dev/null ||
    fail "no detail file gives the unmapped owner's hint"
grep -q "lacks = .*xattrs" "$T/r/classes.txt" && fail "classes.txt proposes declaring xattrs lacking"
echo PASS
