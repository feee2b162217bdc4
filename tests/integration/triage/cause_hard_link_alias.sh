#!/usr/bin/env bash
# Two names of one file are two inodes to the kernel on a path-based FUSE daemon (disorderfs): the classes this makes on several operations (another name's stale size or link count, copy_file_range between two names that tmpfs refuses as an overlapping copy) are one group, "fuse-hard-link-alias disorderfs", each with the hint that says why.
. "$(dirname "$0")/../../lib/common.sh"
need_tools python3
B=$METIS_BIN
[ -x "$B/metis" ] || skip "$B/metis is not built"
command -v disorderfs >/dev/null || skip "disorderfs is not installed (scripts/deps.sh --targets)"
[ -w /dev/fuse ] || skip "no /dev/fuse"
FAIL_LOG=$T/run.out
timeout -k 5 300 "$B/metis" run tests/fixtures/triage/disorderfs-hard-links.ini --out "$T/r" \
    >"$T/run.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "metis run exited $rc, want 1 (discrepancies)"
assert_no_leftovers "$(run_id_of "$T/run.out")"
python3 - "$T/r/summary.json" <<'PY' || fail "summary.json: the hard-link aliasing's classes are not one group"
import json, re, sys
s = json.load(open(sys.argv[1]))
key = "fuse-hard-link-alias disorderfs"
ours = [c for c in s["classes"] if c["group"] == key]
ops = {c["signature"].split()[0] for c in ours}
print(f"{len(ours)} classes in {key} ({sorted(ops)}) of {s['discrepancy_classes']} classes "
      f"in {s['discrepancy_groups']} groups")
assert len(ours) >= 2 and len(ops) >= 2, [c["signature"] for c in s["classes"]]
# no class of another name's size or link count is left a group of its own
for c in s["classes"]:
    assert not re.search(r" state (size|nlink)$", c["signature"]) or c["group"] == key, c
assert all("inode per name" in c["hint"] or "node of its own" in c["hint"] for c in ours), ours
PY
grep -q "^g[0-9]* fuse-hard-link-alias disorderfs: [0-9]* classes" "$T/r/classes.txt" ||
    fail "classes.txt has no line for the group"
echo PASS
