#!/usr/bin/env bash
# One cell of the pooled search table: one run of configs/general.ini with a search overlay against one RefFS mutation, keep_going on, for a number of searches; prints, per search, the operations up to and with its first report.
# usage: search_cell.sh NAME SEARCH SEED SEARCHES   (SEARCH: an overlay in tests/mutations/searches/)
# env: ST_OUT work dir (build/search-pooled), ST_CFG the base config (configs/general.ini)
# Result (tab-separated): "cell" name search seed status then one field per search: the operations
#   of that search up to and with its first report on the mutant, or "-N" (no report in its N).
#   status: ok | infra (the run failed)
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/mutant_config.sh"
root=$METIS_ROOT bin=$METIS_BIN here=$root/tests/mutations
name=$1 search=$2 seed=$3 searches=$4
overlay=$here/searches/$search.ini
[ -f "$overlay" ] || { echo "search_cell: no search overlay $overlay" >&2; exit 2; }
out=${ST_OUT:-$root/build/search-pooled}/$name/$search-s$seed
rm -rf "$out" && mkdir -p "$out"
# keep_going: a report does not end the run, so that every search gives its own first report;
# shrink_seconds 0: its classes are not shrunk, as a run that stops at its first report.
{ cat "${ST_CFG:-$root/configs/general.ini}" "$overlay"; printf '[run]\nkeep_going = 1\nshrink_seconds = 0\n'; } >"$out/base.ini"
mutant_config "$out/base.ini" "$out/run.ini" "$name"
per=$(sed -n 's/^search_ops *= *//p' "$out/run.ini" | tail -1)
METIS_REFFS_BIN=$here/reffs-pick.sh timeout -k 5 900 "$bin/metis" run "$out/run.ini" \
  --seed "$seed" --ops $((searches * ${per:-1000})) --out "$out/run" >"$out/run.out" 2>&1
rc=$?
status=ok
[ $rc -le 1 ] || status=infra
logs=()   # the searches' logs in order: search-1/, search-2/, ..., the last one's in run/
for ((k = 1; ; k++)); do
  [ -f "$out/run/search-$k/log.txt" ] || break
  logs+=("$out/run/search-$k/log.txt")
done
logs+=("$out/run/log.txt")
firsts=$(awk '
  FNR == 1 { if (NR > 1) print (hit ? hit : -ops); ops = 0; hit = 0 }
  /^op / { ops++ }
  /^discrepancy .* fs=mut / && !hit { hit = ops }
  END { print (hit ? hit : -ops) }' "${logs[@]}" | paste -sd'\t')
printf 'cell\t%s\t%s\t%s\t%s\t%s\n' "$name" "$search" "$seed" "$status" "$firsts"
