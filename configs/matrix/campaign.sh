#!/usr/bin/env bash
# Runs every feature-matrix config (configs/matrix/*.ini) in each mode it takes (plain, crash = fsync, fault steps, concurrent steps) and prints one table row per config and mode.
#
# usage: configs/matrix/campaign.sh [CONFIG...]   (default: every configs/matrix/*.ini)
# env:   MATRIX_S      seconds per config and mode (default 60)
#        MATRIX_MODES  the modes to run (default "plain crash faults together";
#                      also syncfs, any)
#        MATRIX_JOBS   runs at once (default 1)
#        MATRIX_OUT    where the runs go (default runs/matrix-<UTC time>)
# A mode is the config with a [run] section appended (a key given twice keeps its last value):
# crash = fsync (crash), crash = syncfs (syncfs), crash = any (any, not in the default list);
# faults = 0.2 (one step in five a fault step: more of them in a short run than
# the 0.05 of configs/faults-ext4.ini); together = 0.3 (as the campaign's concurrent run).
# keep_going is on and each class gets shrink_seconds = 10. The rows go to MATRIX_OUT/table.md.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
metis=${METIS_BIN:-$top/bin}/metis
secs=${MATRIX_S:-60}
modes=${MATRIX_MODES:-plain crash faults together}
jobs=${MATRIX_JOBS:-1}
out=${MATRIX_OUT:-$top/runs/matrix-$(date -u +%Y%m%d-%H%M%S)}
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "matrix: MATRIX_S must be a positive number of seconds, not '$secs'" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "matrix: MATRIX_JOBS must be a positive number, not '$jobs'" >&2; exit 2; }
[ -x "$metis" ] || { echo "matrix: $metis not built (run make)" >&2; exit 2; }
mkdir -p "$out" || exit 2

mode_keys() {   # $1 mode: the [run] keys it adds
  case $1 in
    plain) ;;
    crash) echo "crash = fsync" ;;
    syncfs) echo "crash = syncfs" ;;
    any) echo "crash = any" ;;
    faults) echo "faults = 0.2" ;;
    together) echo "together = 0.3" ;;
    *) echo "matrix: unknown mode '$1' (plain, crash, syncfs, any, faults, together)" >&2; return 1 ;;
  esac
}

run_one() {   # $1 config, $2 mode: writes the variant and runs it
  local ini=$1 mode=$2 name dir
  name=$(basename "$ini" .ini)-$2
  dir=$out/$name
  { cat "$ini"; printf '\n[run]\nkeep_going = 1\nshrink_seconds = 10\n'; mode_keys "$mode"; } > "$out/$name.ini" || return
  "$metis" run "$out/$name.ini" --seconds "$secs" --out "$dir" > "$out/$name.stdout" 2> "$out/$name.stderr"
  echo "exit $?" > "$out/$name.status"
  echo "matrix: $name: $(cat "$out/$name.status") $(grep -h '^ops=' "$out/$name.stderr" | tail -1)"
}

configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=("$top"/configs/matrix/*.ini)
for m in $modes; do mode_keys "$m" > /dev/null || exit 2; done
for ini in "${configs[@]}"; do
  [ -f "$ini" ] || { echo "matrix: no config $ini" >&2; exit 2; }
  for m in $modes; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    run_one "$ini" "$m" &
  done
done
wait
python3 "$top/configs/matrix/campaign_table.py" "$out" | tee "$out/table.md"
