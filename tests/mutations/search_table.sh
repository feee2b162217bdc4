#!/usr/bin/env bash
# `make search-table`: operations to the first report of every observable RefFS mutation, per search (configs/general.ini plus an overlay of tests/mutations/searches/), several seeds each, as a table.
# usage: search_table.sh [MUT_NAME...]
# env: ST_SEARCHES the overlays compared ("default random": the first is judged against the
#      second), ST_SEEDS seeds per mutation and search (5), ST_OPS the cap per seed (50000),
#      ST_JOBS parallel jobs (cores), ST_OUT work dir (build/search-table).
# Exit 0 when every run ran (a miss is a result, not a failure); the verdict is in the table.
. "$(dirname "$0")/../lib/common.sh"
root=$METIS_ROOT here=$root/tests/mutations
export ST_OUT=$(from_caller "${ST_OUT:-$root/build/search-table}") ST_OPS=${ST_OPS:-50000}
seeds=${ST_SEEDS:-5}
. "$here/search_jobs.sh"
search_setup search-table "$@"
echo "search-table: ${#names[@]} mutations x ${#searches[@]} searches x $seeds seeds, cap $ST_OPS operations each; work in $ST_OUT"
search_run search-table 1 "$seeds" "$here/first_report.sh"
python3 "$here/search_table.py" "$ST_OUT/results.tsv" "${searches[@]}" >"$ST_OUT/table.md"
cat "$ST_OUT/table.md"
! grep -qP '\tinfra\t' "$ST_OUT/results.tsv"
