#!/usr/bin/env bash
# The cost of recording a step's block stream on its own: the same operations of the default crash config with crash = fsync copied (the fs on a plain loop device) and recorded (crash_states = flushes: on the recording device, every write logged), the crash states' own parts taken off.
# Usage: tests/bench/checks/crash_record_cost.sh [ROUNDS] [FORMAT...] (default 3; ext4 xfs btrfs).
# CRASH_COST_OPS (default 40) operations per run, seed CRASH_COST_SEED (1): both runs of a
# round make the same operations. Per run it prints, in microseconds per operation, the step
# outside the crash check (restore and mount, operation, read-back, unmount and save:
# summary.json's time_per_op_us) and the crash check's time outside its parts (crash_parts_s:
# the copy or the states' build, store, recovery, checker and oracle), i.e. the syncs and, when
# recording, the marks and the block log read back; then the medians per mode and the cost of
# recording as their difference. Runs alternate, so both modes see the same load.
. "$(dirname "$0")/../../lib/common.sh"
. tests/bench/checks/crash_config.sh
rounds=${1:-3}
[ $# -gt 0 ] && shift
formats=${*:-ext4 xfs btrfs}
ops=${CRASH_COST_OPS:-40}
seed=${CRASH_COST_SEED:-1}
case $rounds$ops$seed in *[!0-9]*) echo "crash_record_cost.sh: ROUNDS, CRASH_COST_OPS and CRASH_COST_SEED are numbers" >&2; exit 2 ;; esac

# config FORMAT MODE: the format's default crash config, copied (MODE copy) or recorded (MODE
# flushes).
config() {
  local rec=
  [ "$2" = flushes ] && rec="s/^crash = fsync$/crash = fsync\ncrash_states = flushes/"
  crash_config "$1" "s/^seconds = .*/seconds = 0/" ${rec:+"$rec"}
}

# measure FORMAT MODE ROUND: one run; appends "FORMAT MODE STEP_US CRASH_OTHER_US" to $T/rows.
measure() {
  local out=$T/$1-$2-$3
  config "$1" "$2" > "$out.ini" || exit 2
  "$METIS_BIN/metis" run "$out.ini" --ops "$ops" --seed "$seed" --out "$out" > "$out.err" 2>&1 ||
    { echo "$1 $2: metis run failed: $(tail -n 1 "$out.err")" >&2; return 1; }
  python3 - "$out/summary.json" "$1" "$2" "$3" <<'PY' | tee -a "$T/rows"
import json, sys
s = json.load(open(sys.argv[1]))
fs = sys.argv[2]
t = s["time_per_op_us"][fs]
p = s["crash_parts_s"][fs]
ops = s["ops"] or 1
parts = sum(p[k] for k in ("copy", "build", "store", "mount", "read", "umount", "fsck_wait", "judge"))
step = t["restore_mount"] + t["operation"] + t["abstract"] + t["unmount_save"]
other = t["crash"] - parts / ops * 1e6
print("%s %s %.0f %.0f round=%s ops=%d states=%d distinct=%d" % (fs, sys.argv[3], step, other,
      sys.argv[4], s["ops"], p["states"], p["distinct"]))
PY
}

echo "fs mode step_us/op crash_other_us/op (load average $(cut -d' ' -f1 /proc/loadavg))"
for f in $formats; do
  for r in $(seq "$rounds"); do
    measure "$f" copy "$r" && measure "$f" flushes "$r" || exit 1
  done
done
echo "medians (load average $(cut -d' ' -f1 /proc/loadavg)):"
python3 - "$T/rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f, mode, step, other = line.split()[:4]
    rows.setdefault((f, mode), []).append((float(step), float(other)))
for f in dict.fromkeys(k[0] for k in rows):
    c, r = rows.get((f, "copy"), []), rows.get((f, "flushes"), [])
    if not c or not r:
        continue
    med = lambda v, i: statistics.median(x[i] for x in v)
    print("%-6s step %6.0f us copied, %6.0f recorded (%+.0f); crash check outside its parts %6.0f, %6.0f (%+.0f); recording costs %+.0f us per operation"
          % (f, med(c, 0), med(r, 0), med(r, 0) - med(c, 0), med(c, 1), med(r, 1),
             med(r, 1) - med(c, 1), med(r, 0) - med(c, 0) + med(r, 1) - med(c, 1)))
PY
