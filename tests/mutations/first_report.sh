#!/usr/bin/env bash
# One cell of the search table: runs configs/general.ini with a search overlay against one RefFS mutation, one seed, until its first report or the operation cap; prints one result line.
# usage: first_report.sh NAME SEARCH SEED   (SEARCH: an overlay in tests/mutations/searches/, e.g. default, random)
# env: ST_OUT work dir (build/search-table), ST_OPS the cap per seed (50000), ST_CFG the base config (configs/general.ini)
# Result (tab-separated): "first" name search seed status ops seconds what
#   status: caught (ops: the run's operations up to and with the first report) | missed (ops: the cap)
#           | baseline (plain RefFS differed) | infra (the run failed)
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/mutant_config.sh"
root=$METIS_ROOT bin=$METIS_BIN here=$root/tests/mutations
name=$1 search=$2 seed=$3
overlay=$here/searches/$search.ini
[ -f "$overlay" ] || { echo "first_report: no search overlay $overlay" >&2; exit 2; }
cap=${ST_OPS:-50000}
out=${ST_OUT:-$root/build/search-table}/$name/$search-s$seed
rm -rf "$out" && mkdir -p "$out"
cat "${ST_CFG:-$root/configs/general.ini}" "$overlay" >"$out/base.ini"
mutant_config "$out/base.ini" "$out/run.ini" "$name"
start=$(date +%s.%N)
METIS_REFFS_BIN=$here/reffs-pick.sh timeout -k 5 900 \
  "$bin/metis" run "$out/run.ini" --seed "$seed" --ops "$cap" --out "$out/run" >"$out/run.out" 2>&1
rc=$?
secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
ops=$(json_field "$out/run/summary.json" ops 2>/dev/null)
first_class() {
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["classes"][0]; print(c["fs"], c["signature"])' \
    "$out/run/summary.json" 2>/dev/null
}
case $rc in
  0) status=missed what="not reported in $cap operations" ;;
  1) what=$(first_class)
     case $what in
       "mut "*) status=caught ;;
       *) status=baseline ;;
     esac
     what=${what#* } ;;
  *) status=infra what="rc=$rc: $(tail -n1 "$out/run.out")" ;;
esac
printf 'first\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$search" "$seed" "$status" "${ops:-0}" "$secs" "$what"
