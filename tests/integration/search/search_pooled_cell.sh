#!/usr/bin/env bash
# make check's part of the pooled search table: a cell's first search reports at the same operation as the 5-run table's run of that seed (a kept-going run is the same run up to its first report), every later search gives a sample of its own, and the table has the row and its verdict.
. "$(dirname "$0")/../../lib/common.sh"
command -v parallel >/dev/null || fail "GNU parallel is not installed (make deps)"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
m=MUT_TRUNC_STALE_TAIL
ST_OUT=$T/sp ST_SEEDS=1 ST_PER=3 ST_JOBS=2 \
  run_grouped "$METIS_ROOT/tests/mutations/search_pooled.sh" "$m"
rc=$?
[ $rc -eq 0 ] || fail "search_pooled.sh exited with $rc"
for s in default random; do
  row=$(grep -P "^cell\t$m\t$s\t101\tok\t" "$T/sp/results.tsv") || fail "$s: no cell: $(cat "$T/sp/results.tsv")"
  n=$(printf '%s\n' "$row" | awk -F'\t' '{ print NF - 5 }')
  [ "$n" -ge 3 ] || fail "$s: $n searches sampled, want 3 or more: $row"
  first=$(printf '%s\n' "$row" | cut -f6)
  one=$(ST_OUT=$T/st ST_OPS=5000 "$METIS_ROOT/tests/mutations/first_report.sh" "$m" "$s" 101)
  want=$(printf '%s\n' "$one" | cut -f6)
  status=$(printf '%s\n' "$one" | cut -f5)
  if [ "$first" -gt 0 ]; then
    [ "$status" = caught ] && [ "$want" = "$first" ] ||
      fail "$s: the cell's first search reported at $first, the run alone: $status at $want"
  else   # no report in the first search's -first operations: the run alone reports later or not
    [ "$status" = missed ] || { [ "$status" = caught ] && [ "$want" -gt $((-first)) ]; } ||
      fail "$s: the cell's first search ran $((-first)) without a report, the run alone: $status at $want"
  fi
done
grep -q "^| $m | " "$T/out" || fail "no table row for $m"
grep -q '^default at or below random: [0-9]* of 1; ' "$T/out" || fail "no verdict line"
grep -q "^| as measured | " "$T/out" || fail "no line of the criterion's bootstrap"
echo PASS
