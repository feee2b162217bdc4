#!/usr/bin/env bash
# Runs Metis against one RefFS mutation until it is caught or its operation cap is spent; prints one result line.
# usage: one.sh NAME [DIRECTED]   (DIRECTED: a name in configs/mutations/, a path, or -)   (env: MUT_OUT work dir, MUT_OPS ops per seed, MUT_SEEDS, MUT_DSEEDS)
# Result (tab-separated): name status by_op config seed seq ops_total seconds what
#   status: caught | MISSED | BASELINE (plain RefFS differed from ext4) | INFRA (run failed)
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/mutant_config.sh"
root=$METIS_ROOT bin=$METIS_BIN
name=$1 directed=${2:-}
cfgdir=$root/configs/mutations
case $directed in ""|-) directed= ;; */*) directed=$(from_caller "$directed") ;; *) directed=$cfgdir/$directed.ini ;; esac
out=${MUT_OUT:-$root/build/mutations}/$name
per_seed=${MUT_OPS:-4000}
random_cfg=${MUT_RANDOM:-$cfgdir/random.ini}
# A directed config gets the first seeds; the random search is the backstop with the rest.
nseeds=${MUT_SEEDS:-5}
ndirected=${MUT_DSEEDS:-3}
rm -rf "$out" && mkdir -p "$out"

total=0 start=$(date +%s.%N)
report() {
  local secs
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$1" "$2" "$3" "$4" "$5" "$total" "$secs" "$6"
  exit 0
}

# One run; sets caught_* on a discrepancy of the mutant. Returns 0 to go on, 1 when decided.
attempt() {
  local tmpl=$1 seed=$2 tag
  tag=$(basename "$tmpl" .ini)
  local dir=$out/$tag-s$seed
  mutant_config "$tmpl" "$out/$tag.ini" "$name"
  METIS_REFFS_BIN=$root/tests/mutations/reffs-pick.sh timeout -k 5 600 \
    "$bin/metis" run "$out/$tag.ini" --seed "$seed" --ops "$per_seed" --out "$dir" \
    >"$dir.out" 2>&1
  local rc=$?
  local ops
  # summary.json counts the operations of every search of the run (log.txt: the last one's).
  ops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ops"])' "$dir/summary.json" 2>/dev/null)
  total=$((total + ${ops:-0}))
  case $rc in
    0) return 0 ;;
    1) ;;
    *) report INFRA - "$tag" "$seed" - "rc=$rc: $(tail -n1 "$dir.out")" ;;
  esac
  local seq fss what opline
  # A class of set-up's (what it adapted to before operation 1) is a `setup` record; the
  # mutant failing as a target (a tree its read-back cannot walk) is a `target` record.
  seq=$(awk '$1 == "discrepancy" || $1 == "setup" || $1 == "target" { print $2; exit }' "$dir/log.txt")
  fss=$(awk -v s="$seq" '($1 == "discrepancy" || $1 == "setup" || $1 == "target") && $2 == s { sub(/^fs=/, "", $3); printf "%s ", $3 }' "$dir/log.txt")
  what=$(awk -v s="$seq" '$1 == "discrepancy" && $2 == s && $3 == "fs=mut" {
           for (i = 4; i <= NF; i++) if ($i ~ /differs/) { sub(/=differs/, "", $i); w = w (w ? "+" : "") $i }
           print w }
         $1 == "target" && $2 == s && $3 == "fs=mut" { sub(/^failure=/, "", $4); print "target-" $4 }' "$dir/log.txt")
  opline=$(awk -v s="$seq" '$1 == "op" && $2 == s { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print; exit }' "$dir/log.txt")
  [ -n "$opline" ] || opline=$(awk -v s="$seq" '$1 == "setup" && $2 == s && $3 == "fs=mut" {
           sub(/^attr=/, "", $4); print "setup root " $4; exit }' "$dir/log.txt")
  [ -n "$opline" ] || opline=$(awk -v s="$seq" '$1 == "target" && $2 == s && $3 == "fs=mut" {
           for (i = 4; i <= NF; i++) if ($i ~ /^op=/) { sub(/^op=/, "", $i); print $i; exit } }' "$dir/log.txt")
  [ -n "$what" ] || what=setup
  case " $fss" in
    *" reffs "*) report BASELINE "${opline%% *}" "$tag" "$seed" "$seq" "plain RefFS differs: $opline" ;;
    *" mut "*) report caught "${opline%% *}" "$tag" "$seed" "$seq" "$what: $opline" ;;
    *) report INFRA - "$tag" "$seed" "$seq" "discrepancy without fs=mut: $fss" ;;
  esac
}

seed=1
if [ -n "$directed" ]; then
  for ((; seed <= ndirected; seed++)); do attempt "$directed" "$seed"; done
fi
for ((; seed <= nseeds; seed++)); do attempt "$random_cfg" "$seed"; done
report MISSED - - - - "not caught in $total operations"
