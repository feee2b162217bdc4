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
read -r -a searches <<<"${ST_SEARCHES:-default random}"
seeds=${ST_SEEDS:-5}
command -v parallel >/dev/null || { echo "search-table: GNU parallel is not installed" >&2; exit 2; }
for s in "${searches[@]}"; do
  [ -f "$here/searches/$s.ini" ] || { echo "search-table: no search overlay searches/$s.ini" >&2; exit 2; }
done
names=("$@")
# Observable: what mutations.tsv expects to be caught (blind ones no operation reaches).
[ ${#names[@]} -eq 0 ] && mapfile -t names < <(awk -F'\t' '!/^#/ && $4 == "catch" { print $1 }' "$here/mutations.tsv")
mkdir -p "$ST_OUT"
jobs=$ST_OUT/jobs.txt
: >"$jobs"
for n in "${names[@]}"; do
  grep -qP "^\Q$n\E\t" "$here/mutations.tsv" || { echo "search-table: unknown mutation '$n'" >&2; exit 2; }
  for s in "${searches[@]}"; do
    for ((k = 1; k <= seeds; k++)); do echo "$here/first_report.sh $n $s $k" >>"$jobs"; done
  done
done
echo "search-table: ${#names[@]} mutations x ${#searches[@]} searches x $seeds seeds, cap $ST_OPS operations each; work in $ST_OUT"
start=$(date +%s)
parallel -j "${ST_JOBS:-$(nproc)}" --line-buffer <"$jobs" >"$ST_OUT/results.tsv"
echo "search-table: finished in $(( $(date +%s) - start ))s"
python3 "$here/search_table.py" "$ST_OUT/results.tsv" "${searches[@]}" >"$ST_OUT/table.md"
cat "$ST_OUT/table.md"
! grep -qP '\tinfra\t' "$ST_OUT/results.tsv"
