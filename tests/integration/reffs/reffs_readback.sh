#!/usr/bin/env bash
# RefFS read back by dump: the dump and the walk of the mount agree on every state of a run,
# and a RefFS whose kernel view differs from its own tree stops the run with a clear message.
. "$(dirname "$0")/../../lib/common.sh"

"$METIS_BIN/metis" run tests/fixtures/readback/readback-check.ini --ops 1500 --out "$T/ok" 2>"$T/ok.err"
rc=$?
tail -n 3 "$T/ok.err"
[ $rc -eq 0 ] || fail "checked run: exit status $rc, want 0"
[ "$(json_field "$T/ok/summary.json" ops)" -ge 1500 ] || fail "checked run stopped early"
assert_no_leftovers "$(run_id_of "$T/ok.err")"

"$METIS_BIN/metis" run tests/fixtures/readback/readback-stale.ini --ops 3000 --out "$T/bad" 2>"$T/bad.err"
rc=$?
tail -n 3 "$T/bad.err"
[ $rc -eq 3 ] || fail "stale view: exit status $rc, want 3 (an infrastructure failure)"
grep -q "RefFS's own tree and the kernel's view of it differ" "$T/bad.err" ||
  fail "stale view: the cross-check did not name the problem"
assert_no_leftovers "$(run_id_of "$T/bad.err")"
