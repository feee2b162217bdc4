#!/usr/bin/env bash
# Integration test: the file exerciser passes on RefFS with punch and zero-range required, and fails on RefFS mutants that break them.
. "$(dirname "$0")/../../lib/reffs-mount.sh" fsx
FSX=${METIS_FSX:-}
[ -x "$FSX" ] || skip "the exerciser is not built (make build/tests/fsx/fsx)"
[ -x "$BIN/reffs-mutant" ] || skip "reffs-mutant not built"
OUT=$WORK/out

"$BIN/reffs" "$MNT" || fail "RefFS did not mount"
"$FSX" -r -N 30000 -S 7 "$MNT/f" >"$OUT" 2>&1 || { cat "$OUT" >&2; fail "fsx failed on RefFS"; }
grep -q '^fsx: 30000 operations A-OK' "$OUT" || fail "no A-OK line: $(head -n 3 "$OUT")"
for op in punch zero zero_keep mapwrite; do
  n=$(sed -n "s/.* $op \([0-9]*\)\( \|$\).*/\1/p" "$OUT" | tail -n 1)
  [ "${n:-0}" -gt 100 ] || fail "fsx ran $op ${n:-0} times on RefFS"
done
fusermount3 -u "$MNT"

# A planted bug in each fallocate mode fsx requires, and one in truncate: each must fail it,
# with the operation log a user needs to see what went wrong.
for m in MUT_PUNCH_PARTIAL_KEEPS_DATA MUT_ZERO_RANGE_KEEPS_DATA MUT_TRUNC_STALE_TAIL; do
  "$BIN/reffs-mutant" -o "mutation=$m" "$MNT" || fail "$m: RefFS mutant did not mount"
  rc=0; "$FSX" -r -N 30000 -S 7 "$MNT/f" >"$OUT" 2>&1 || rc=$?
  fusermount3 -u "$MNT"
  [ $rc = 1 ] || fail "$m: fsx exited $rc, not 1"
  grep -q 'differ; first: file' "$OUT" || fail "$m: no mismatch reported: $(head -n 2 "$OUT")"
  grep -q 'the last [0-9]* operations (seed 7)' "$OUT" || fail "$m: no operation log"
  grep -q 'expected contents are in .*/f.fsxgood' "$OUT" || fail "$m: the expected contents were not saved"
done

# Bad usage is one line and exit 2.
rc=0; "$FSX" -N 0 "$WORK/x" 2>"$OUT" || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$OUT")" = 1 ] && grep -q 'option -N' "$OUT" || fail "-N 0: exit $rc, $(cat "$OUT")"
rc=0; "$FSX" -x bogus "$WORK/x" 2>"$OUT" || rc=$?
[ $rc = 2 ] && grep -q "no operation 'bogus'" "$OUT" || fail "-x bogus: exit $rc, $(cat "$OUT")"
echo "fsx_reffs: OK"
