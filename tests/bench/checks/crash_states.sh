#!/usr/bin/env bash
# Crash states at length: the default crash config of each format (configs/crash-ext4.ini with crash_states = stream; xfs and btrfs at 16 MiB) run until N crash states are checked or a time limit, then states, distinct states, steps, time and any crash class.
# Usage: tests/bench/checks/crash_states.sh [N] [FORMAT...] (N default 100000; formats ext4 xfs
# btrfs, one at a time). CRASH_SECONDS (default 600) limits each format's run, CRASH_SEED (1)
# seeds it, CRASH_OUT (default /tmp/metis-crash-states) keeps the runs. A run is stopped by
# SIGINT once its log counts N checked states (the log is flushed once a second, so a run may
# pass N a little). Wanted: no class (the exit status is 1 otherwise).
. "$(dirname "$0")/../../lib/common.sh"
. tests/bench/checks/crash_config.sh
want=${1:-100000}
[ $# -gt 0 ] && shift
formats=${*:-ext4 xfs btrfs}
limit=${CRASH_SECONDS:-600}
seed=${CRASH_SEED:-1}
out=${CRASH_OUT:-/tmp/metis-crash-states}
case $want$limit$seed in *[!0-9]*) echo "crash_states.sh: N, CRASH_SECONDS and CRASH_SEED are numbers" >&2; exit 2 ;; esac
mkdir -p "$out"

# config FORMAT: the format's default crash config with crash_states = stream.
config() {
  crash_config "$1" "s/^crash = fsync$/crash = fsync\ncrash_states = stream\nshrink_seconds = 0/" \
    "s/^seconds = .*/seconds = $limit/"
}

# checked LOG: the crash states checked so far, as the log's states=CHECKED/ALL lines say.
checked() { sed -n 's/^crash .* states=\([0-9]*\)\/.*/\1/p' "$1" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

# watch PID LOG: SIGINT to the run once LOG counts $want checked states.
watch() {
  while kill -0 "$1" 2>/dev/null; do
    [ "$(checked "$2")" -ge "$want" ] && { kill -INT "$1"; return; }
    sleep 5
  done
}

status=0
printf '%-6s %5s %9s %9s %7s %8s %9s %11s %8s %s\n' fs exit states distinct steps seconds states/s distinct/s classes load
for f in $formats; do
  config "$f" > "$out/$f.ini" || exit 2
  rm -rf "${out:?}/$f"
  load0=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s.%N)
  "$METIS_BIN/metis" run "$out/$f.ini" --seed "$seed" --keep-going --out "$out/$f" > "$out/$f.err" 2>&1 &
  pid=$!
  sleep 2
  watch "$pid" "$out/$f/log.txt" &
  watcher=$!
  wait "$pid"
  rc=$?
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  log=$out/$f/log.txt
  states=$(checked "$log")
  distinct=$(sed -n 's/^crash .* distinct=\([0-9]*\).*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
  steps=$(grep -c '^crash ' "$log")
  classes=$(grep -c '^class .* new=1 ' "$log")
  printf '%-6s %5s %9d %9d %7d %8.0f %9.1f %11.1f %8d %s-%s\n' "$f" "$rc" "$states" "$distinct" "$steps" \
    "$secs" "$(echo "$states / $secs" | bc -l)" "$(echo "$distinct / $secs" | bc -l)" "$classes" \
    "$load0" "$(cut -d' ' -f1 /proc/loadavg)"
  grep '^crash .* recovered=[a-z]*' "$log" | grep -v ' recovered=same ' | head -n 3 | cut -c1-300 | sed 's/^/    /'
  [ "$classes" = 0 ] || status=1
  case $rc in 0|130) ;; *) status=1; echo "    $f: metis run exited $rc: $(tail -n 1 "$out/$f.err")" ;; esac
  [ "$states" -ge "$want" ] || echo "    $f: $states of the $want states wanted within $limit s"
done
exit $status
