#!/usr/bin/env bash
# First runs of tests/bench/targets/first_runs/*.ini (file systems as a new user first meets them: no declarations), two at a time, and one table row per target from what each run left.
# usage: first_runs.sh [--bin DIR] [--out DIR] [--seconds N] [--table-only] [NAMES...]
#   NAMES: config names without .ini (default: every config); --bin: the Metis binaries to run
#   (default bin/); --out: where the runs go (default build/first-runs, emptied of NAMES' runs
#   first); --table-only: print the table from the runs already in --out, run nothing.
. "$(dirname "$0")/../../lib/common.sh"
cfg_dir=tests/bench/targets/first_runs
bin=$METIS_BIN
out=$METIS_ROOT/build/first-runs
secs=120
table_only=0
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$(from_caller "${2:?--bin needs a directory}"); shift 2 ;;
    --out) out=$(from_caller "${2:?--out needs a directory}"); shift 2 ;;
    --seconds) secs=${2:?--seconds needs a number}; shift 2 ;;
    --table-only) table_only=1; shift ;;
    -*) echo "first_runs.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
case $secs in '' | *[!0-9]*) echo "first_runs.sh: --seconds $secs: not a number" >&2; exit 2 ;; esac
[ -x "$bin/metis" ] || { echo "first_runs.sh: --bin $bin: no metis there (make -C its tree first)" >&2; exit 2; }
if [ ${#names[@]} -eq 0 ]; then
  for f in "$cfg_dir"/*.ini; do names+=("$(basename "$f" .ini)"); done
fi
for n in "${names[@]}"; do
  [ -f "$cfg_dir/$n.ini" ] || { echo "first_runs.sh: $n: no $cfg_dir/$n.ini" >&2; exit 2; }
done
mkdir -p "$out"

# missing_tools NAME: the tools of NAME's "; needs:" line that are not on the PATH.
missing_tools() {
  local t miss=()
  for t in $(sed -n 's/^; needs: //p' "$cfg_dir/$1.ini"); do
    command -v "$t" >/dev/null || miss+=("$t")
  done
  echo "${miss[*]}"
}

# run_one NAME: NAME's first run into $out/NAME; its exit status into $out/NAME.rc.
run_one() {
  local n=$1
  rm -rf --one-file-system "${out:?}/$n" "$out/$n.rc" "$out/$n.out"
  # the bound only catches a hung Metis: search, triage and clean-up fit well inside it
  timeout -k 30 $((secs + 1800)) "$bin/metis" run "$cfg_dir/$n.ini" --seed 1 --seconds "$secs" \
    --keep-going --out "$out/$n" >"$out/$n.out" 2>&1
  echo $? >"$out/$n.rc"
}

running=()
# stop_runs: SIGTERM to the runs still going (timeout passes it to its Metis, which unmounts and
# removes what it made), then wait for them.
stop_runs() {
  local p
  for p in "${running[@]}"; do pkill -TERM -P "$p" 2>/dev/null; done
  wait
}
on_exit stop_runs
trap 'exit 130' INT TERM

if [ $table_only -eq 0 ]; then
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  for n in "${names[@]}"; do
    miss=$(missing_tools "$n")
    if [ -n "$miss" ]; then
      echo "skip $n: $miss missing (apt-get install $(sed -n 's/^; package: //p' "$cfg_dir/$n.ini"))"
      rm -rf --one-file-system "${out:?}/$n" "$out/$n.rc"
      echo "skip: $miss missing" >"$out/$n.out"
      continue
    fi
    while [ ${#running[@]} -ge 2 ]; do
      wait -n
      alive=()
      for p in "${running[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
      running=("${alive[@]}")
    done
    echo "$(date -u +%H:%M:%S) start $n"
    run_one "$n" &
    running+=($!)
  done
  wait
  running=()
  echo "$(date -u '+%Y-%m-%d %H:%M') UTC; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
python3 "$cfg_dir/table.py" "$out" "${names[@]}"
