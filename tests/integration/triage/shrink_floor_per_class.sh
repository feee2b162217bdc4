#!/usr/bin/env bash
# Every class gets a floor of its own, not what is left of one shared pool: the RefFS mutant of
# shrink_groups_first.sh (four classes or more in two cause groups) with shrink_seconds = 1.
# One shared pool of 1 s shrank its first class and left every other one "not shrunk"; now each
# class gets at least 3 s, the triage says its bound when it starts, and every class comes with
# a shrunk trace of a few operations whose reproducer bites. Then the same run with
# shrink_max_seconds = 2: the bound cuts the triage short, and each class it did not reach says
# so in one line naming the bound.
. "$(dirname "$0")/../../lib/common.sh"
need_tools python3
[ -w /dev/fuse ] || skip "no /dev/fuse"
B=$METIS_BIN
for prog in metis reffs-mutant; do
  [ -x "$B/$prog" ] || skip "$B/$prog is not built"
done
# the mutant's RefFS for [fs mut], and where the reproducers keep their files
export METIS_REFFS_BIN=$METIS_ROOT/tests/mutations/reffs-pick.sh REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"

# run NAME MAX: the fixture with shrink_seconds = 1 and shrink_max_seconds = MAX into $T/NAME.
run() {
  sed "s/^shrink_seconds = 0\$/shrink_seconds = 1\nshrink_max_seconds = $2/" \
    "$METIS_ROOT/tests/fixtures/triage/group-first-shrink.ini" >"$T/$1.ini"
  FAIL_LOG=$T/$1.out
  timeout -k 5 300 "$B/metis" run "$T/$1.ini" --out "$T/$1" >"$T/$1.out" 2>&1
  local rc=$?
  [ $rc = 1 ] || fail "$1: metis run exited $rc, want 1"
  assert_no_leftovers "$(run_id_of "$T/$1.out")"
}

run floor 120
grep -q '^metis: triage: shrinking [0-9]* classes, shrink_seconds (1) shared and each class at least 3 s .*at most 120 s in all (shrink_max_seconds)' "$T/floor.out" ||
  fail "the triage did not say its floor and bound when it started"
python3 - "$T/floor/summary.json" <<'PY' || fail "a class was left without a shrunk, biting reproducer"
import json, sys
classes = json.load(open(sys.argv[1]))["classes"]
# more classes than one pool of 1 s shrank: it had a share for the first one only
assert len(classes) >= 4, [c["class"] for c in classes]
for c in classes:
    ok = c["triage"].startswith("shrunk") and 0 < c["trace_ops"] <= 10 and c["repro_bites"] >= 1
    assert ok, (c["class"], c["triage"], c["trace_ops"], c["repro_bites"])
print(len(classes), "classes, each shrunk to at most 10 operations with a biting reproducer")
PY

run bound 2
python3 - "$T/bound/summary.json" <<'PY' || fail "a class the bound cut off did not say why in one line"
import json, sys
classes = json.load(open(sys.argv[1]))["classes"]
cut = [c for c in classes if c["triage"].startswith("not shrunk: the triage's bound (2 s, shrink_max_seconds) came first")]
assert cut, [c["triage"] for c in classes]
for c in classes:
    assert "\n" not in c["triage"], c["triage"]
    assert c["triage"].startswith("shrunk") or c in cut, (c["class"], c["triage"])
print(len(cut), "of", len(classes), "classes cut off by the bound, each saying so")
PY
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "reproducer files left behind"
echo "ok: a floor per class, and the bound said"
