#!/usr/bin/env bash
# make bench's guard flags a step made 50 us slower (METIS_TEST_STEP_BUSY_US) and passes the same build without it.
# A benchmark check, not in make check: on a machine shared with other work one build's CPU time
# per operation moved by up to 46% between runs a minute apart (tests/bench/README.md).
# reffs-only for 8 s (3 s of CPU beyond the set-up are the least the guard measures): a baseline
# measured here first (the shipped one is for 20-s runs), then a run with the hook, which must
# FAIL, and one without, which must not; the hook adds 70-100% to a step's CPU time, so the
# limit here is 40% (make bench's is 20%).
. "$(dirname "$0")/../../lib/common.sh"
secs=${BENCH_GUARD_TEST_SECONDS:-8}
export BENCH_SECONDS=$secs BENCH_BASELINE=$T/baseline.tsv BENCH_GUARD_LIMIT=40
BENCH_ROUNDS=2 tests/bench/guard/guard.sh --write "$T/baseline.tsv" configs/reffs-only.ini ||
  fail "measuring the baseline failed"
grep -q "^reffs-only	$secs	[0-9]" "$T/baseline.tsv" || fail "no baseline row: $(cat "$T/baseline.tsv")"
FAIL_LOG=$T/hook.out
METIS_TEST_STEP_BUSY_US=50 tests/bench/guard/guard.sh configs/reffs-only.ini >"$T/hook.out" 2>&1 &&
  fail "the guard passed a step 50 us slower"
grep -q "^FAIL: reffs-only: .*more than 40% slower" "$T/hook.out" || fail "no FAIL line for reffs-only"
FAIL_LOG=$T/plain.out
tests/bench/guard/guard.sh configs/reffs-only.ini >"$T/plain.out" 2>&1 ||
  fail "the guard failed the build it measured the baseline of"
grep -q "^guard: reffs-only: .* ok$" "$T/plain.out" || fail "no ok line for reffs-only"
sed -n 's/^/  /p' "$T/hook.out" "$T/plain.out"
