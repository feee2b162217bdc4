#!/usr/bin/env bash
# A defect only a logical restore reaches (tests/fixtures/restore/fuse-logical-stale.ini: a mutant whose
# shrinking truncate leaves stale bytes, and no operation that shrinks a file within a block) is
# found, and the target's real history reproduces it: the log holds the restore calls, the trace
# holds them, a replay without them does not reproduce, shrink keeps a few steps (calls among
# them), and the trace's replay, the triage's reproducer and emit-c's exit 1 on the target, 0 on
# the reference.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN R=$METIS_BIN/metis-replay
for b in metis metis-replay reffs reffs-mutant; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
need_tools cc
cfg=tests/fixtures/restore/fuse-logical-stale.ini
FAIL_LOG=$T/out

# 1. A keep-going run finds it; the log holds the target's fresh mount and its restores' calls.
"$B/metis" run "$cfg" --keep-going --ops 200 --out "$T/run" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "metis run exited $rc, want 1 (a discrepancy)"
id=$(run_id_of "$T/out")
grep -q '^fresh 0 fuse sid=0$' "$T/run/log.txt" || fail "no fresh record of the first mount"
grep -q '^call [0-9]* fuse ret=0 errno=0 truncate path=/f[01] size=[0-9]*$' "$T/run/log.txt" ||
    fail "the log holds no truncate of a logical restore"
grep -q '^call [0-9]* ref ' "$T/run/log.txt" && fail "the reference (snapshots) logged calls"
detail=$T/run/discrepancy-1.txt
head -1 "$detail" | grep -q '^operation [0-9]*: write_file ' || fail "the class is not a write's"

# 2. trace: the history, every operation since the mount (not only the path) and the calls.
"$R" trace "$detail" -o "$T/hist.trace" 2>"$T/out" || fail "trace failed"
grep -q 'restore calls of fs fuse.s history since its last fresh mount' "$T/out" || fail "trace did not say history"
ncalls=$(grep -c '^call ' "$T/hist.trace")
nops=$(grep -c '^op ' "$T/hist.trace")
seq=$(head -1 "$detail" | sed 's/^operation \([0-9]*\):.*/\1/')
[ "$ncalls" -gt 0 ] || fail "the history holds no calls"
[ "$nops" = "$seq" ] || fail "the history has $nops operations, the run $seq before the finding"
grep -q "^end ops=$nops calls=$ncalls\$" "$T/hist.trace" || fail "bad end record"

# 3. Its replay reproduces; without the calls (the search path's view) it does not.
"$R" run "$T/hist.trace" --config "$cfg" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the history's replay exited $rc, want 1"
grep -v '^call ' "$T/hist.trace" | sed "s/^end ops=$nops calls=$ncalls\$/end ops=$nops/" \
    >"$T/nocalls.trace"
"$R" run "$T/nocalls.trace" --config "$cfg" --tries 2 >"$T/out" 2>&1
rc=$?
[ $rc = 4 ] || fail "without its calls the history's replay exited $rc, want 4 (no match)"

# 4. shrink: a few steps, a restore call among them, that still reproduce.
"$R" shrink "$detail" --config "$cfg" -o "$T/min.trace" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "shrink exited $rc, want 1"
steps=$(grep -c '^\(op\|call\) ' "$T/min.trace")
[ "$steps" -le 10 ] || fail "shrink left $steps steps, want at most 10"
grep -q '^call ' "$T/min.trace" || fail "the shrunk trace holds no restore call"
grep -q "shrink: $((nops + ncalls)) -> $steps operations and restore calls in" "$T/out" ||
    fail "shrink did not count steps"
"$R" run "$T/min.trace" --config "$cfg" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the shrunk trace's replay exited $rc, want 1"

# 5. emit-c: the program runs the calls too, and bites.
"$R" emit-c "$T/min.trace" --config "$cfg" -o "$T/emit" >"$T/out" 2>&1 || fail "emit-c failed"
grep -q 'rcall_exec(root_fd(), &c)' "$T/emit/repro.c" || fail "the program runs no restore call"
"$T/emit/run.sh" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the reproducer on the mutant exited $rc, want 1"
grep -q 'restore call on fuse: truncate path=/f[01] size=' "$T/out" || fail "no call step shown"
grep -q 'repro: the defect shows: first difference: the final tree at /f[01]: content' "$T/out" ||
    fail "the reproducer does not name the stale content"
"$T/emit/run.sh" ref >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] || fail "the reproducer on the reference exited $rc, want 0"

# 6. The run's own triage did the same: a short trace and a reproducer that bites.
grep -q '^1 .* bites (1/0)$' "$T/run/classes.txt" || fail "the triage's reproducer does not bite"
FAIL_LOG=$T/run/summary.json
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json's class is not shrunk to <= 10 steps"
import json, sys
c = json.load(open(sys.argv[1]))["classes"][0]
assert 0 < c["trace_ops"] <= 10, c["trace_ops"]
assert c["repro_exit_target"] == 1 and c["repro_exit_reference"] == 0, c
PY
assert_no_leftovers "$id"
echo PASS
