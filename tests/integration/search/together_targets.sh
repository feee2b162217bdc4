#!/usr/bin/env bash
# A config with concurrent steps ([run] together) runs on RefFS, a kernel fs (ext4), tmpfs and a FUSE target at once: every fs issues the calls at once, no try is found unexplained by a serial order, metis check says what together does, and nothing is left behind.
. "$(dirname "$0")/../../lib/common.sh"
kernel_has_fs ext4 || fail "no ext4 in this kernel"
cfg=tests/fixtures/together/together-targets.ini
"$METIS_BIN/metis" check "$cfg" >"$T/check.out" || fail "metis check refused $cfg"
grep -q '^concurrent steps: 30% of the steps issue 2 to 3 operations at once' "$T/check.out" ||
    fail "metis check does not explain [run] together: $(cat "$T/check.out")"
FAIL_LOG=$T/err
# Counted in operations, not the fixture's 25 s: at a load average of 11 to 14 (shared-host.sh)
# 25 s made 333 operations and 77 concurrent steps; seed 5's 700 make well over 100 at any load.
"$METIS_BIN/metis" run "$cfg" --seconds 0 --ops 700 --out "$T/run" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc (a discrepancy or a failure)"
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json: too few concurrent steps, or one failed"
import json, sys
s = json.load(open(sys.argv[1]))
t = s["together"]
print({k: t[k] for k in t if k != "pairs"}, "of", s["ops"], "steps")
assert s["discrepancies"] == 0 and t["failed"] == 0
assert t["steps"] >= 100 and t["tries"] == 2 * 3 * t["steps"], t
assert t["passes"] == t["tries"] and t["orders_run"] >= 2 * t["steps"], t
assert len(t["pairs"]) >= 10, "few pairs of operations met"
PY
grep -q '^concurrent steps (\[run\] together)' "$T/run/reach.txt" || fail "reach.txt has no concurrent steps"
assert_no_leftovers "$(run_id_of "$T/err")"
echo PASS
