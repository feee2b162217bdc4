#!/usr/bin/env bash
# `make search-pooled`: the search table measured on many searches per mutation instead of 5 runs: each run keeps going for a number of searches, and each search's first report is one sample.
# usage: search_pooled.sh [MUT_NAME...]
# env: ST_SEARCHES the overlays compared ("default random"), ST_SEEDS runs per mutation and
#      search (3), ST_PER searches per run (10), ST_JOBS parallel jobs (cores), ST_OUT work dir
#      (build/search-pooled).
# Exit 0 when every run ran; the verdict is in the table, followed by how likely the 5-seed
# table (make search-table) meets the issue's criterion with these searches.
. "$(dirname "$0")/../lib/common.sh"
root=$METIS_ROOT here=$root/tests/mutations
export ST_OUT=$(from_caller "${ST_OUT:-$root/build/search-pooled}")
seeds=${ST_SEEDS:-3} per=${ST_PER:-10}
. "$here/search_jobs.sh"
search_setup search-pooled "$@"
echo "search-pooled: ${#names[@]} mutations x ${#searches[@]} searches x $seeds runs of $per searches; work in $ST_OUT"
# Seeds from 101: apart from the 5-run table's seeds 1-5.
search_run search-pooled 101 "$seeds" "$here/search_cell.sh" "$per"
if [ ${#searches[@]} -lt 2 ]; then
  echo "search-pooled: one search (${searches[*]}): its samples are in $ST_OUT/results.tsv; a table compares two"
else
  python3 "$here/search_pooled.py" "$ST_OUT/results.tsv" "${searches[@]}" >"$ST_OUT/table.md"
  # What the pooled samples say of the 5-seed table's criterion, for these searches and for
  # the second against copies of itself made stronger.
  { echo; python3 "$here/search_criterion.py" "$ST_OUT/results.tsv" "${searches[@]}"; } >>"$ST_OUT/table.md"
  cat "$ST_OUT/table.md"
fi
! grep -qP '\tinfra\t' "$ST_OUT/results.tsv"
