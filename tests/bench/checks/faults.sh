#!/usr/bin/env bash
# Fault steps at length: N fault steps (default 10000) on one config (default configs/faults-ext4.ini, ext4 with errors=remount-ro) with a fault at every step, then the classes found and what the device did.
# Usage: tests/bench/checks/faults.sh [N] [CONFIG] [FAULT_KINDS]; FAULTS_SECONDS=S runs S seconds instead of N steps
# Prints the fault steps per second (wall time: a loaded machine stretches it), how many hit a
# request, what each kind showed, and every class with its hits; the run directory is kept
# (FAULTS_OUT, default /tmp/metis-faults-bench) for its detail files and triage.
. "$(dirname "$0")/../../lib/common.sh"
n=${1:-10000}
cfg=$(from_caller "${2:-configs/faults-ext4.ini}")
kinds=${3:-eio_write,eio_read,lost_write}
out=${FAULTS_OUT:-/tmp/metis-faults-bench}
[ -f "$cfg" ] || { echo "faults.sh: no config $cfg" >&2; exit 2; }
rm -rf "$out"
# Every step a fault step; triage left to metis-replay (the classes' detail files suffice).
secs=${FAULTS_SECONDS:-0}
limit=(--ops "$n")
[ "$secs" = 0 ] || limit=()
sed -e 's/^faults = .*/faults = 1/' -e "s/^fault_kinds = .*/fault_kinds = $kinds/" \
    -e "s/^seconds = .*/seconds = $secs/" "$cfg" > "$T/bench.ini"
grep -q '^faults = 1' "$T/bench.ini" || sed -i 's/^\[run\]$/[run]\nfaults = 1/' "$T/bench.ini"
grep -q '^shrink_seconds' "$T/bench.ini" || sed -i 's/^\[run\]$/[run]\nshrink_seconds = 0/' "$T/bench.ini"
load0=$(cut -d' ' -f1 /proc/loadavg)
start=$(date +%s.%N)
"$METIS_BIN/metis" run "$T/bench.ini" "${limit[@]}" --keep-going --out "$out" >"$T/run.out" 2>&1
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
log=$out/log.txt
steps=$(grep -c '^faulted ' "$log")
echo "config $cfg, fault kinds $kinds: exit status $rc"
printf '%d fault steps in %.0f s of wall time: %.1f per second (load average %s at the start, %s at the end)\n' \
  "$steps" "$secs" "$(echo "$steps / $secs" | bc -l)" "$load0" "$(cut -d' ' -f1 /proc/loadavg)"
for k in eio_write eio_read lost_write; do
  armed=$([ $k = eio_read ] && echo "read eio" || ([ $k = eio_write ] && echo "write eio" || echo "write lost"))
  all=$(grep -c "^faulted .* armed=$armed " "$log")
  [ "$all" -gt 0 ] || continue
  hit=$(grep "^faulted .* armed=$armed " "$log" | grep -vc 'failed=0 lost=0')
  found=$(grep "^faulted .* armed=$armed " "$log" | grep -o 'found=[a-z,]*' | sort | uniq -c |
          sort -rn | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, substr($2, 7)}')
  echo "  $k: $all steps, $hit hit a request; found: $found"
done
echo "classes:"
grep '^class ' "$log" | grep ' new=1 ' | sed 's/.* id=\([0-9]*\) .*signature=/  \1 /' > "$T/classes"
while read -r id sig; do
  hits=$(grep -c "^class .* id=$id " "$log")
  echo "  class $id: $sig ($hits hits, details in $out/$(grep -l "^class $id: " "$out"/discrepancy-*.txt 2>/dev/null | head -n1 | xargs -r basename))"
done < "$T/classes"
[ -s "$T/classes" ] || echo "  none"
