#!/usr/bin/env bash
# A target's history is replayed as the run made it, so its class shrinks: the reference (tmpfs,
# restored by calls of its own) logs its restores' calls too, and a replay makes each fs's calls
# on that fs. tests/fixtures/triage/reference-own-calls.ini: a RefFS mutant without snapshots
# whose rename onto an existing name fails (the reference alone renames; the restore after that
# leaf undoes it on the reference alone) and whose removexattr of a missing name says ENOENT.
# Before, a replay gave the reference the target's calls only, so the reference kept the
# rename: the removexattr class's history replayed with results the run never had, and its
# shrink said "nondeterministic"; now its history replays result for result, and it shrinks to
# a few steps whose reproducer bites.
. "$(dirname "$0")/../../lib/common.sh"
need_tools python3
B=$METIS_BIN
for b in metis metis-replay reffs-mutant; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
export REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"
FAIL_LOG=$T/run.out
timeout -k 5 300 "$B/metis" run "$METIS_ROOT/tests/fixtures/triage/reference-own-calls.ini" \
  --out "$T/r" >"$T/run.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "metis run exited $rc, want 1"
assert_no_leftovers "$(run_id_of "$T/run.out")"
grep -q '^call [0-9]* ref ret=' "$T/r/log.txt" || fail "the reference logged no restore calls"

# The removexattr class's whole history (the unshrunk trace) replays as the run recorded it.
detail=$(grep -l '^class [0-9]*: removexattr on mut' "$T"/r/discrepancy-*.txt | head -n1)
[ -n "$detail" ] || fail "no removexattr class"
"$B/metis-replay" trace "$detail" --fs mut -o "$T/hist.trace" >"$T/trace.out" 2>&1 ||
  fail "metis-replay trace failed: $(tail -n1 "$T/trace.out")"
grep -q '^call [0-9]* ref ' "$T/hist.trace" || fail "the history holds no call of the reference"
FAIL_LOG=$T/replay.out
"$B/metis-replay" run "$T/hist.trace" --config "$T/r/config.ini" --tries 1 >"$T/replay.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the history's replay exited $rc, want 1 (it reproduces)"
grep -q '^mismatch ' "$T/replay.out" && fail "the history's replay gave results the run did not"

FAIL_LOG=$T/run.out
python3 - "$T/r/summary.json" <<'PY' || fail "a class was not shrunk to a few steps that bite"
import json, sys
classes = json.load(open(sys.argv[1]))["classes"]
assert len(classes) >= 2, [c["signature"] for c in classes]
for c in classes:
    print(c["class"], c["signature"], "|", c["triage"], "|", c["repro_exit_target"], c["repro_exit_reference"])
    assert c["triage"].startswith("shrunk") and 0 < c["trace_ops"] <= 10, c["triage"]
    assert c["repro_bites"] >= 1 and c["repro_exit_reference"] == 0, c
PY
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "reproducer files left behind"
echo "ok: the history replays result for result; every class shrunk and biting"
