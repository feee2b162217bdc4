#!/usr/bin/env bash
# [run] symmetry = names: a bounded search of tests/fixtures/bounded/bounded-symmetry.ini (two file names per directory) visits exactly the states tests/lib/bounded_enum.py counts up to renaming file names within a directory, and without it the unreduced count; its verdict says so; the planted RefFS defect MUT_RMDIR_NONEMPTY is still found on seeds 1 to 3; configs the reduction cannot rename are refused in one line.
. "$(dirname "$0")/../../lib/common.sh"
cfg=tests/fixtures/bounded/bounded-symmetry.ini
depth=4
want_all=$(python3 tests/lib/bounded_enum.py "$depth" 2) || fail "the enumerator failed"
want_sym=$(python3 tests/lib/bounded_enum.py "$depth" 2 symmetry) || fail "the enumerator failed"
[ "$want_sym" -lt "$want_all" ] || fail "the enumerator merges nothing: $want_sym of $want_all"
sed 's/^search = bounded$/search = bounded\nsymmetry = names/' "$cfg" >"$T/sym.ini"
"$METIS_BIN/metis" check "$T/sym.ini" >"$T/check" || fail "metis check refused symmetry = names"
grep -q "^bounded: .*; states matched up to renaming pool names of one kind" "$T/check" \
  || fail "metis check does not say the reduction is on: $(cat "$T/check")"
states_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bounded"]["states"])' "$1"; }
FAIL_LOG=$T/err_all
"$METIS_BIN/metis" run "$cfg" --seed 1 --out "$T/all" 2>"$T/err_all" || fail "without: exit status $?"
echo "without: $(tail -n1 "$T/err_all")"
[[ $(tail -n1 "$T/err_all") == "metis: verified: $want_all states, "*": no discrepancy" ]] \
  || fail "without the reduction the verdict is not $want_all states"
for seed in 1 2 3; do
  FAIL_LOG=$T/err$seed
  "$METIS_BIN/metis" run "$T/sym.ini" --seed "$seed" --out "$T/run$seed" 2>"$T/err$seed" \
    || fail "seed $seed: exit status $?"
  last=$(tail -n1 "$T/err$seed")
  echo "seed $seed: $last"
  [[ $last == "metis: verified: $want_sym states up to renaming pool names of one kind, "*", depth <= $depth, "*": no discrepancy" ]] \
    || fail "seed $seed: the verdict is not $want_sym states up to renaming: $last"
  [ "$(states_of "$T/run$seed/summary.json")" = "$want_sym" ] || fail "seed $seed: summary.json's states"
  assert_no_leftovers "$(run_id_of "$T/err$seed")"
done
# The planted defect (rmdir removes a directory that holds a file, three operations deep) is
# found with the reduction on: the comparison is over the real trees.
sed 's/^\[fs other\]$/[fs mut]\nreffs_opts = mutation=MUT_RMDIR_NONEMPTY/' "$T/sym.ini" >"$T/mut.ini"
for seed in 1 2 3; do
  rm -rf "$T/run"
  run_mutant "$T/mut.ini" "$seed"
  rc=$?
  last=$(tail -n1 "$T/out")
  echo "mutant, seed $seed: $last"
  [ $rc -eq 1 ] || fail "mutant, seed $seed: exit status $rc, not 1"
  [[ $last == "metis: not verified: 1 discrepancy class within depth <= 3 "* ]] \
    || fail "mutant, seed $seed: not the defect's verdict: $last"
  assert_no_leftovers "$(run_id_of "$T/out")"
done
# What the reduction cannot rename, and where it means nothing: refused in one line.
refused() {   # refused FILE WHAT: metis check exits 2 with one line naming the option
  "$METIS_BIN/metis" check "$1" >"$T/refused" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "$2: exit status $rc, not 2: $(cat "$T/refused")"
  [ "$(wc -l <"$T/refused")" -eq 1 ] && grep -q "symmetry" "$T/refused" \
    || fail "$2: not one line naming symmetry: $(cat "$T/refused")"
}
sed 's/^symlink = 0$/symlink = 1/' "$T/sym.ini" >"$T/symlink.ini"
refused "$T/symlink.ini" "with symlink"
sed 's/^search = bounded$/search = dfs/' "$T/sym.ini" >"$T/dfs.ini"
refused "$T/dfs.ini" "with search = dfs"
sed 's/^symmetry = names$/symmetry = pools/' "$T/sym.ini" >"$T/bad.ini"
refused "$T/bad.ini" "an unknown value"
exit 0
