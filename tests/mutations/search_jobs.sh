# Sourced by search_table.sh and search_pooled.sh: the checks of the searches and mutations asked for, and their jobs (every mutation x search x seed) run by GNU parallel.
# search_setup TOOL [MUT_NAME...]: sets searches (ST_SEARCHES, "default random") and names (the
#   observable mutations when none is named); exits 2 naming what is missing or unknown.
search_setup() {
  local tool=$1 s n
  shift
  read -r -a searches <<<"${ST_SEARCHES:-default random}"
  command -v parallel >/dev/null || { echo "$tool: GNU parallel is not installed" >&2; exit 2; }
  for s in "${searches[@]}"; do
    [ -f "$here/searches/$s.ini" ] || { echo "$tool: no search overlay searches/$s.ini" >&2; exit 2; }
  done
  names=("$@")
  # Observable: what mutations.tsv expects to be caught (blind ones no operation reaches).
  [ ${#names[@]} -eq 0 ] && mapfile -t names < <(awk -F'\t' '!/^#/ && $4 == "catch" { print $1 }' "$here/mutations.tsv")
  for n in "${names[@]}"; do
    grep -qP "^\Q$n\E\t" "$here/mutations.tsv" || { echo "$tool: unknown mutation '$n'" >&2; exit 2; }
  done
}

# search_run TOOL FIRST_SEED SEEDS CELL [ARG...]: runs "CELL name search seed ARG..." for every
# mutation, search and seed, into $ST_OUT/results.tsv.
search_run() {
  local tool=$1 first=$2 seeds=$3 cell=$4 n s k start
  shift 4
  mkdir -p "$ST_OUT"
  : >"$ST_OUT/jobs.txt"
  for n in "${names[@]}"; do
    for s in "${searches[@]}"; do
      for ((k = first; k < first + seeds; k++)); do echo "$cell $n $s $k $*" >>"$ST_OUT/jobs.txt"; done
    done
  done
  start=$(date +%s)
  parallel -j "${ST_JOBS:-$(nproc)}" --line-buffer <"$ST_OUT/jobs.txt" >"$ST_OUT/results.tsv"
  echo "$tool: finished in $(( $(date +%s) - start ))s"
}
