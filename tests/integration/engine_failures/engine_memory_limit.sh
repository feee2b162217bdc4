#!/usr/bin/env bash
# A run whose resident memory passes [run] max_memory ends as at its time limit: one warning, summary.json's reason, its exit status, nothing left mounted.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
cfg=$T/mem.ini
sed -e 's/^seconds = .*/seconds = 60/' -e 's/^\[run\]$/[run]\nmax_memory = 8M/' configs/ref-vs-ext4.ini >"$cfg"
grep -q '^max_memory = 8M' "$cfg" || fail "no [run] section in configs/ref-vs-ext4.ini"
"$METIS_BIN/metis" run "$cfg" --seed 1 --out "$T/run" >"$T/out" 2>&1
rc=$?
FAIL_LOG=$T/out
[ $rc = 0 ] || fail "exit status $rc, want 0 (no discrepancy, the run just ended)"
[ "$(json_field "$T/run/summary.json" reason)" = "memory limit" ] ||
  fail "summary.json's reason is '$(json_field "$T/run/summary.json" reason)'"
# The run's own seconds (from its search's start; pan's build and the set-up before it take
# longer on a busy host and are no part of the budget).
took=$(json_field "$T/run/summary.json" seconds)
[ "$(echo "$took < 40" | bc)" = 1 ] || fail "the run took $took s of its 60: the limit did not end it"
n=$(grep -c 'passed max_memory (8 MiB) at operation [0-9]*, depth [0-9]*: the run ends here' "$T/out")
[ "$n" = 1 ] || fail "$n warnings about max_memory, want 1"
assert_no_leftovers "$(run_id_of "$T/out")"

# The key takes sizes, like every size key: a word is refused with its line.
printf '[run]\nmax_memory = plenty\n[fs a]\ntype = reffs\n' >"$T/bad.ini"
"$METIS_BIN/metis" run "$T/bad.ini" >"$T/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'bad.ini:2: ' "$T/out" && [ "$(wc -l <"$T/out")" = 1 ] ||
  fail "max_memory = plenty: exit $rc, $(cat "$T/out")"
echo "engine_memory_limit: OK"
