#!/usr/bin/env bash
# A bounded search whose operation budget ends before its depth says how far it got ("not complete: depth k of D completed, N states, F on the frontier"), exits 0 with complete false; with --require-complete it exits 6, and a complete one still exits 0.
. "$(dirname "$0")/../../lib/common.sh"
cfg=tests/fixtures/bounded/bounded-small.ini
check_incomplete() {
  local out=$1 err=$2 last
  last=$(tail -n1 "$err")
  echo "$last"
  [[ $last =~ ^metis:\ not\ complete:\ depth\ ([0-9]+)\ of\ 5\ completed,\ ([0-9]+)\ states,\ ([0-9]+)\ on\ the\ frontier$ ]] \
    || fail "the last line does not say how far the search got: $last"
  local k=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
  [ "$k" -ge 1 ] && [ "$k" -lt 5 ] || fail "depth $k completed of 5 with 60 operations"
  [ "$n" -eq "$(python3 tests/lib/bounded_enum.py "$k")" ] || fail "$n states at depth $k: not the enumerator's"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["complete"] is False and s["bounded"]["verified"] is False' \
    "$out/summary.json" || fail "summary.json does not say complete: false"
}
"$METIS_BIN/metis" run "$cfg" --ops 60 --out "$T/short" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "an incomplete run exited $rc, not 0"
check_incomplete "$T/short" "$T/err"
"$METIS_BIN/metis" run "$cfg" --ops 60 --require-complete --out "$T/req" --junit "$T/req.xml" 2>"$T/err2"
rc=$?
[ $rc -eq 6 ] || fail "--require-complete on an incomplete run exited $rc, not 6"
check_incomplete "$T/req" "$T/err2"
grep -q 'bounded search not complete' "$T/req.xml" || fail "the JUnit file does not fail the run"
"$METIS_BIN/metis" run "$cfg" --depth 2 --require-complete --out "$T/full" 2>"$T/err3" \
  || fail "a complete run with --require-complete exited $?"
tail -n1 "$T/err3" | grep -q '^metis: verified: 8 states, .*depth <= 2' || fail "depth 2: $(tail -n1 "$T/err3")"
assert_no_leftovers "$(run_id_of "$T/err")"
