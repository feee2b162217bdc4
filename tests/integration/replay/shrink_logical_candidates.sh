#!/usr/bin/env bash
# A shrink of a target without snapshots restores its candidates' states logically and checks the shrunk trace on fresh mounts: on the stale-tail mutant (a defect a logical restore's truncate reaches) the check passes for seed 1's class, and for seed 4's it finds that the shortest trace showed only after the shrinker's own restores, so the shrink starts again on fresh mounts; every trace written reproduces on fresh mounts.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN R=$METIS_BIN/metis-replay
for b in metis metis-replay reffs reffs-mutant; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
cfg=tests/fixtures/restore/fuse-logical-stale.ini
FAIL_LOG=$T/out

# run_and_shrink SEED [SHRINK OPTIONS]: a keep-going run, then its first class shrunk into
# $T/SEED.trace, shrink's stderr in $T/SEED.shrink; the trace replayed on fresh mounts must
# reproduce.
run_and_shrink() {
  local seed=$1 rc
  shift
  "$B/metis" run "$cfg" --keep-going --ops 400 --seed "$seed" \
    --out "$T/run$seed" >"$T/out" 2>&1
  rc=$?
  [ $rc = 1 ] || fail "seed $seed: metis run exited $rc, want 1"
  ids+=("$(run_id_of "$T/out")")
  "$R" shrink "$T/run$seed/discrepancy-1.txt" --config "$cfg" "$@" -o "$T/$seed.trace" \
    >/dev/null 2>"$T/$seed.shrink"
  rc=$?
  FAIL_LOG=$T/$seed.shrink
  [ $rc = 1 ] || fail "seed $seed: shrink exited $rc, want 1"
  "$R" run "$T/$seed.trace" --config "$cfg" >"$T/out" 2>&1
  rc=$?
  FAIL_LOG=$T/out
  [ $rc = 1 ] || fail "seed $seed: the shrunk trace's replay on fresh mounts exited $rc, want 1"
}
ids=()

# 1. Seed 1: the logical candidates' result holds on fresh mounts, as short as without them.
run_and_shrink 1
grep -q 'shrink: the shrunk trace shows the discrepancy on fresh mounts too' "$T/1.shrink" ||
  fail "seed 1: no check on fresh mounts said"
grep -q 'does not show the discrepancy on fresh mounts' "$T/1.shrink" &&
  fail "seed 1: the check failed (it passed in every measured try)"
logical_steps=$(grep -c '^\(op\|call\) ' "$T/1.trace")
"$R" shrink "$T/run1/discrepancy-1.txt" --config "$cfg" --fresh-mounts -o "$T/fresh.trace" \
  >/dev/null 2>"$T/out"
[ $? = 1 ] || fail "shrink --fresh-mounts did not reproduce"
grep -q 'fresh mounts too' "$T/out" && fail "--fresh-mounts still restored logically"
fresh_steps=$(grep -c '^\(op\|call\) ' "$T/fresh.trace")
[ "$logical_steps" -le 10 ] || fail "seed 1: $logical_steps steps, want at most 10"
[ "$logical_steps" -le "$fresh_steps" ] ||
  fail "seed 1: $logical_steps steps with logical candidates, $fresh_steps without"

# 2. Seed 4: the shortest trace showed the class only after the shrinker's own truncates, so
#    the check refuses it and the shrink runs again on fresh mounts; what it writes reproduces.
run_and_shrink 4
FAIL_LOG=$T/4.shrink
grep -q 'shrink: the shrunk trace of [0-9]* operations does not show the discrepancy on fresh mounts (the logical restores between its candidates did): shrinking again, every candidate on fresh mounts' \
  "$T/4.shrink" || fail "seed 4: the check on fresh mounts did not refuse the trace"
steps=$(grep -c '^\(op\|call\) ' "$T/4.trace")
[ "$steps" -le 10 ] || fail "seed 4: $steps steps, want at most 10"

# 3. --fresh-mounts belongs to shrink: another command refuses it in one line.
"$R" run "$T/4.trace" --fresh-mounts >"$T/out" 2>&1
rc=$?
FAIL_LOG=$T/out
[ $rc = 2 ] || fail "run --fresh-mounts exited $rc, want 2"
grep -qx 'metis-replay run: --fresh-mounts is an option of shrink only' "$T/out" ||
  fail "no one-line refusal"
for id in "${ids[@]}"; do assert_no_leftovers "$id"; done
echo PASS
