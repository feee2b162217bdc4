#!/usr/bin/env bash
# The shrink budget goes to every cause group before any group gets a second class: a RefFS
# mutant with one group of several classes (a new entry's mode, "delta:mode-bits-0001 mut")
# and a second cause found after that group's first class (removexattr's ENOENT), with
# shrink_seconds = 3 for four classes. Shrinking the shortest traces first, each with an equal
# share, left the second group without a shrunk trace (its share under a second); now the
# first pass shrinks one class of each group, and the second group's class gets a biting
# reproducer of a few operations.
. "$(dirname "$0")/../../lib/common.sh"
need_tools python3
B=$METIS_BIN
[ -x "$B/metis" ] || skip "$B/metis is not built"
[ -x "$B/reffs-mutant" ] || skip "$B/reffs-mutant is not built"
[ -w /dev/fuse ] || skip "no /dev/fuse"
export METIS_REFFS_BIN=$METIS_ROOT/tests/mutations/reffs-pick.sh
export REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"
sed 's/^shrink_seconds = 0$/shrink_seconds = 3/' "$METIS_ROOT/tests/fixtures/triage/group-first-shrink.ini" >"$T/cfg.ini"
FAIL_LOG=$T/run.out
timeout -k 5 200 "$B/metis" run "$T/cfg.ini" --out "$T/r" >"$T/run.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "metis run exited $rc, want 1"
assert_no_leftovers "$(run_id_of "$T/run.out")"

python3 - "$T/r/summary.json" <<'PY' || fail "a group was left without a shrunk, biting reproducer"
import json, sys
s = json.load(open(sys.argv[1]))
classes = s["classes"]
groups = {}
for c in classes:
    groups.setdefault(c["group"], []).append(c)
# what makes the old order bite: two groups, the second's first class found before the first
# group's last, and more classes than seconds of budget
assert len(groups) == 2 and len(classes) >= 4, [(c["class"], c["group"]) for c in classes]
first, second = sorted(groups.values(), key=lambda g: g[0]["class"])
assert len(first) >= 2 and second[0]["class"] < first[-1]["class"], (first, second)
def counts(c):
    return c["triage"].startswith("shrunk") and 0 < c["trace_ops"] <= 10 and c["repro_bites"] >= 1
for name, members in groups.items():
    assert any(counts(c) for c in members), (name, [(c["class"], c["triage"]) for c in members])
for c in classes:   # a class the budget missed says so in one line
    assert counts(c) or c["triage"].startswith("not shrunk: shrink_seconds (3) was spent"), c["triage"]
print(len(classes), "classes in", len(groups), "groups, each with a shrunk, biting reproducer")
PY

# pass 1 (one class a group) comes before pass 2 in what the triage says
passes=$(sed -n 's/^metis: shrinking class [0-9]* (.*, pass \([12]\), .*/\1/p' "$T/run.out" | tr -d '\n')
[[ $passes =~ ^112*$ ]] || fail "shrinking order by pass: '$passes', want 11, then 2s"
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "reproducer files left behind"
echo "ok: passes $passes"
