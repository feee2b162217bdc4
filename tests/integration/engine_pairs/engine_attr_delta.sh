#!/usr/bin/env bash
# The search goes on below a difference in attributes alone: a RefFS mutant that gives every new entry another mode and also counts a link twice is reported for both in one keep-going run (the link needs a created file, and before the known delta every path to it was cut at the creation); the link class shrinks to a short trace of its own class.
. "$(dirname "$0")/../../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
cat >"$T/two.ini" <<'INI'
[run]
keep_going = 1
shrink_seconds = 20

[fs reffs]
type = reffs
size = 1M

[fs mut]
type = reffs
size = 1M
reffs_opts = mutation=MUT_NEW_MODE_OX+MUT_LINK_NLINK_TWICE

[pool]
dirs = 2
files = 3
depth = 1

; Symlinks keep mode 0777 on both sides: linking one would reach the link defect without
; passing a difference of modes. Without them every linkable name was made with a mode.
[ops]
symlink = 0
INI
run_mutant "$T/two.ini" 1 --ops 3000
rc=$?
[ $rc -eq 1 ] || fail "metis run exited with $rc, not 1"
sigs=$(python3 -c 'import json,sys; [print(c["signature"]) for c in json.load(open(sys.argv[1]))["classes"]]' "$T/run/summary.json")
echo "$sigs"
grep -qE '^(create_file|mkdir|mknod/[a-z]+) mut state mode$' <<<"$sigs" || fail "no class of the new entries' mode"
grep -qx 'link mut state nlink' <<<"$sigs" || fail "the link's nlink class below the mode delta was not reported"
k=$(python3 -c 'import json,sys; print([c["class"] for c in json.load(open(sys.argv[1]))["classes"] if c["signature"] == "link mut state nlink"][0])' "$T/run/summary.json")
grep -q "^below a known delta: " "$T/run/discrepancy-$k.txt" || fail "the link's detail file does not say it was below a known delta"
ops=$(grep -c '^op ' "$T/run/class-$k.trace")
[ "$ops" -ge 2 ] && [ "$ops" -le 5 ] || fail "the link class shrank to $ops operations, not 2..5"
grep '^op ' "$T/run/class-$k.trace" | tail -n1 | grep -q ' link ' || fail "the shrunk trace does not end in the link"
assert_no_leftovers "$(run_id_of "$T/out")"
echo PASS
