#!/usr/bin/env bash
# `make search-pooled`: the search table measured on many searches per mutation instead of 5 runs: each run keeps going for a number of searches, and each search's first report is one sample.
# usage: search_pooled.sh [MUT_NAME...]
# env: ST_SEARCHES the overlays compared ("default random"), ST_SEEDS runs per mutation and
#      search (3), ST_PER searches per run (10), ST_JOBS parallel jobs (cores), ST_OUT work dir
#      (build/search-pooled).
# Exit 0 when every run ran; the verdict is in the table.
. "$(dirname "$0")/../lib/common.sh"
root=$METIS_ROOT here=$root/tests/mutations
export ST_OUT=$(from_caller "${ST_OUT:-$root/build/search-pooled}")
read -r -a searches <<<"${ST_SEARCHES:-default random}"
seeds=${ST_SEEDS:-3} per=${ST_PER:-10}
command -v parallel >/dev/null || { echo "search-pooled: GNU parallel is not installed" >&2; exit 2; }
for s in "${searches[@]}"; do
  [ -f "$here/searches/$s.ini" ] || { echo "search-pooled: no search overlay searches/$s.ini" >&2; exit 2; }
done
names=("$@")
[ ${#names[@]} -eq 0 ] && mapfile -t names < <(awk -F'\t' '!/^#/ && $4 == "catch" { print $1 }' "$here/mutations.tsv")
mkdir -p "$ST_OUT"
jobs=$ST_OUT/jobs.txt
: >"$jobs"
for n in "${names[@]}"; do
  grep -qP "^\Q$n\E\t" "$here/mutations.tsv" || { echo "search-pooled: unknown mutation '$n'" >&2; exit 2; }
  for s in "${searches[@]}"; do
    # Seeds from 101: apart from the 5-run table's seeds 1-5.
    for ((k = 101; k < 101 + seeds; k++)); do echo "$here/search_cell.sh $n $s $k $per" >>"$jobs"; done
  done
done
echo "search-pooled: ${#names[@]} mutations x ${#searches[@]} searches x $seeds runs of $per searches; work in $ST_OUT"
start=$(date +%s)
parallel -j "${ST_JOBS:-$(nproc)}" --line-buffer <"$jobs" >"$ST_OUT/results.tsv"
echo "search-pooled: finished in $(( $(date +%s) - start ))s"
python3 "$here/search_pooled.py" "$ST_OUT/results.tsv" "${searches[@]}" >"$ST_OUT/table.md"
cat "$ST_OUT/table.md"
! grep -qP '\tinfra\t' "$ST_OUT/results.tsv"
