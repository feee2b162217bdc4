#!/usr/bin/env bash
# The bounded search against RefFS mutations: for each observable one (mutations.tsv, expect catch), the least depth within configs/mutations/bounded.ini's bounds that holds a trigger, whether the bounded run finds it there on each of 5 seeds, and how often search = random finds it within the same number of operations (5 seeds).
# usage: bounded_table.sh [NAME...]   (none: every observable mutation; env BT_OUT work dir, BT_SEEDS seeds, BT_CONFIG another template)
# Prints one TSV row per mutation: name kind depth bounded_found ops_to_find random_found
#   depth: the least depth of a trigger (seed 1), or - with none within the bounds
#   bounded_found: seeds of BT_SEEDS whose bounded run found it (at that depth)
#   ops_to_find: the bounded runs' operations up to the finding, min-max over the seeds
#   random_found: seeds whose random walk found it within as many operations as the bounded
#     run of the same seed made
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/mutant_config.sh"
root=$METIS_ROOT bin=$METIS_BIN
out=${BT_OUT:-$root/build/bounded-mutations}
seeds=${BT_SEEDS:-5}
tmpl=${BT_CONFIG:-$root/configs/mutations/bounded.ini}
mkdir -p "$out"

# run CONFIG SEED DIR [ARGS]: sets rc, ops (summary.json) and found (1: a class of fs mut).
run() {
  local cfg=$1 seed=$2 dir=$3
  shift 3
  rm -rf "$dir"
  METIS_REFFS_BIN=$root/tests/mutations/reffs-pick.sh timeout -k 5 300 \
    "$bin/metis" run "$cfg" --seed "$seed" --out "$dir" "$@" >"$dir.err" 2>&1
  rc=$?
  ops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ops"])' "$dir/summary.json" 2>/dev/null)
  found=0
  [ $rc -eq 1 ] && grep -q '^discrepancy .* fs=mut ' "$dir/log.txt" 2>/dev/null && found=1
}

# The depth the bounded run's verdict names: "not verified: ... within depth <= K".
depth_of() { sed -n 's/^metis: not verified: .* within depth <= \([0-9]*\) .*/\1/p' "$1" | tail -n1; }

one() {
  local name=$1 kind=$2 m=$out/$name
  mkdir -p "$m"
  mutant_config "$tmpl" "$m/bounded.ini" "$name"
  sed 's/^search = bounded$/search = random/' "$m/bounded.ini" >"$m/random.ini"
  local depth=- hits=0 rhits=0 lo= hi= s
  for ((s = 1; s <= seeds; s++)); do
    run "$m/bounded.ini" "$s" "$m/b$s"
    [ $found = 1 ] || { [ $s = 1 ] && break; continue; }
    local d
    d=$(depth_of "$m/b$s.err")
    [ $s = 1 ] && depth=$d
    [ "$d" = "$depth" ] && hits=$((hits + 1))
    lo=$(( ${lo:-ops} < ops ? ${lo:-ops} : ops )) hi=$(( ${hi:-0} > ops ? ${hi:-0} : ops ))
    run "$m/random.ini" "$s" "$m/r$s" --ops "$ops"
    rhits=$((rhits + found))
  done
  printf '%s\t%s\t%s\t%s/%s\t%s\t%s/%s\n' "$name" "$kind" "$depth" "$hits" "$seeds" \
    "${lo:--}${hi:+-$hi}" "$rhits" "$seeds"
}

names=("$@")
while IFS=$'\t' read -r name kind directed expect; do
  case $name in ''|'#'*) continue ;; esac
  [ "$expect" = catch ] || continue
  if [ ${#names[@]} -gt 0 ]; then
    printf '%s\n' "${names[@]}" | grep -qx "$name" || continue
  fi
  one "$name" "$kind"
done <"$root/tests/mutations/mutations.tsv"
