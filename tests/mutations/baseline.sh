#!/usr/bin/env bash
# Runs one mutation config as it is (plain RefFS, no mutant) and prints whether it stayed free of discrepancies.
# usage: baseline.sh CONFIG SEED   (env: MUT_OUT, MUT_OPS as for one.sh)
# Result (tab-separated): "baseline" config seed status ops seconds what
. "$(dirname "$0")/../lib/common.sh"
root=$METIS_ROOT bin=$METIS_BIN
cfg=$1 seed=$2
case $cfg in
  */*) cfg=$(from_caller "$cfg") ;;
  general) cfg=$root/configs/general.ini ;;
  *) cfg=$root/configs/mutations/$cfg.ini ;;
esac
tag=$(basename "$cfg" .ini)
dir=${MUT_OUT:-$root/build/mutations}/baseline/$tag-s$seed
rm -rf "$dir" && mkdir -p "$(dirname "$dir")"
start=$(date +%s.%N)
METIS_REFFS_BIN=$root/tests/mutations/reffs-pick.sh timeout -k 5 900 \
  "$bin/metis" run "$cfg" --seed "$seed" --ops "${MUT_OPS:-4000}" --out "$dir" >"$dir.out" 2>&1
rc=$?
secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
ops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ops"])' "$dir/summary.json" 2>/dev/null)
case $rc in
  0) status=ok what="$(grep '^never succeeded' "$dir.out")" ;;
  1) status=DISCREPANCY
     seq=$(awk '$1 == "discrepancy" { print $2; exit }' "$dir/log.txt")
     what="op $seq: $(awk -v s="$seq" '$1 == "op" && $2 == s { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print; exit }' "$dir/log.txt")" ;;
  *) status=INFRA what="rc=$rc: $(tail -n1 "$dir.out")" ;;
esac
printf 'baseline\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$seed" "$status" "${ops:-0}" "$secs" "$what"
