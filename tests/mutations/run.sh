#!/usr/bin/env bash
# `make mutations`: runs Metis against every RefFS mutation (or those named) and the plain-RefFS baselines, in parallel, and prints the table.
# usage: run.sh [MUT_NAME...]
# env: MUT_JOBS parallel jobs (default: cores), MUT_OUT work dir (build/mutations), MUT_OPS ops per
#      seed (4000), MUT_SEEDS seeds per mutation (5), MUT_DSEEDS of them on the directed config (3),
#      MUT_BASELINE=0 skips the baselines, MUT_GENERAL=0 the general column (configs/general.ini
#      alone, MUT_SEEDS seeds; at least MUT_GENERAL_MIN percent (90) of the mutations must fall).
# Cap per mutation: MUT_SEEDS x MUT_OPS operations (20,000). Exit 0 only if every mutation
# expected to be caught was, no baseline run had a discrepancy, and nothing failed to run.
. "$(dirname "$0")/../lib/common.sh"
root=$METIS_ROOT here=$root/tests/mutations bin=$METIS_BIN
export METIS_BIN=$bin
export MUT_OUT=$(from_caller "${MUT_OUT:-$root/build/mutations}")
export MUT_OPS=${MUT_OPS:-4000} MUT_SEEDS=${MUT_SEEDS:-5} MUT_DSEEDS=${MUT_DSEEDS:-3}
jobs=${MUT_JOBS:-$(nproc)}
tsv=$here/mutations.tsv

for f in "$bin/metis" "$bin/reffs" "$bin/reffs-mutant"; do
  [ -x "$f" ] || { echo "mutations: $f is missing (run make)" >&2; exit 2; }
done
command -v parallel >/dev/null || { echo "mutations: GNU parallel is not installed" >&2; exit 2; }

# The planted list and mutations.tsv must name the same mutations.
listed=$("$bin/reffs-mutant" -o mutation=list | cut -f1 | sort)
known=$(grep -v '^#' "$tsv" | cut -f1 | sort)
if [ "$listed" != "$known" ]; then
  echo "mutations: $tsv and 'reffs-mutant -o mutation=list' disagree:" >&2
  diff <(echo "$known") <(echo "$listed") | sed 's/^/    /' >&2
  exit 2
fi

names=("$@")
[ ${#names[@]} -eq 0 ] && mapfile -t names < <(grep -v '^#' "$tsv" | cut -f1)
mkdir -p "$MUT_OUT"
jobfile=$MUT_OUT/jobs.txt
: >"$jobfile"
declare -A configs=()
for n in "${names[@]}"; do
  line=$(grep -P "^\Q$n\E\t" "$tsv") || { echo "mutations: unknown mutation '$n' (see $tsv)" >&2; exit 2; }
  directed=$(cut -f3 <<<"$line")
  echo "$here/one.sh $n $directed" >>"$jobfile"
  [ "${MUT_GENERAL:-1}" != 0 ] && echo "$here/general.sh $n" >>"$jobfile"
  [ "$directed" != - ] && configs[$directed]=1
done
if [ "${MUT_BASELINE:-1}" != 0 ]; then
  for c in "${!configs[@]}"; do
    for ((s = 1; s <= MUT_DSEEDS; s++)); do echo "$here/baseline.sh $c $s" >>"$jobfile"; done
  done
  for ((s = 1; s <= MUT_SEEDS; s++)); do echo "$here/baseline.sh random $s" >>"$jobfile"; done
  if [ "${MUT_GENERAL:-1}" != 0 ]; then
    for ((s = 1; s <= MUT_SEEDS; s++)); do echo "$here/baseline.sh general $s" >>"$jobfile"; done
  fi
fi

echo "mutations: ${#names[@]} mutations, $(grep -c baseline.sh "$jobfile") baseline runs, $jobs in parallel, cap $((MUT_SEEDS * MUT_OPS)) operations each; work in $MUT_OUT"
start=$(date +%s)
# One progress line per finished job (a shell loop: awk would buffer its input from the pipe).
show() {
  while IFS=$'\t' read -r a b c d e f g h i j; do
    if [ "$a" = baseline ]; then
      printf '  baseline %-12s seed %s: %s (%s ops, %ss) %s\n' "$b" "$c" "$d" "$e" "$f" "$g"
    elif [ "$a" = general ]; then
      if [ "$c" = caught ]; then
        printf '  %-28s general: caught (seed %s, op %s; %s ops, %ss)\n' "$b" "$f" "$g" "$h" "$i"
      else
        printf '  %-28s general: %s\n' "$b" "$c"
      fi
    elif [ "$b" = caught ]; then
      printf '  %-28s caught by %s (%s seed %s, op %s; %s ops, %ss)\n' "$a" "$c" "$d" "$e" "$f" "$g" "$h"
    else
      printf '  %-28s %s: %s\n' "$a" "$b" "$i"
    fi
  done
}
parallel -j "$jobs" --line-buffer <"$jobfile" | tee "$MUT_OUT/results.tsv" | show
echo "mutations: finished in $(( $(date +%s) - start ))s"
python3 "$here/table.py" "$tsv" "$MUT_OUT/results.tsv" "$bin/reffs-mutant" "$MUT_OUT/table.md"
