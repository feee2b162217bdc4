#!/usr/bin/env bash
# `make bench` figure: total operations/s of a swarm of 1 VT and of 2 VTs on this machine.
. "$(dirname "$0")/../../lib/common.sh"
bin=$METIS_BIN
secs=${BENCH_SECONDS:-20}
cfg=${SWARM_BENCH_CONFIG:-configs/ref-vs-ext4.ini}
out=$T
if ! "$bin/metis" swarm --ping >/dev/null 2>&1; then
  echo "swarm scaling: $bin/metis has no swarm command"; exit 0
fi
# The same two VTs (0 and 1: their searches differ) once one after the other on one slot, once
# together on two: the speed-up compares like with like.
vt_rates() {  # SLOTS: the per-VT ops/s of VTs 0 and 1 run on SLOTS slots of this machine
  printf '%s/:\n' "$1" > "$out/hosts$1"
  "$bin/metis" swarm "$cfg" --hosts "$out/hosts$1" --vts 2 --seconds "$secs" --ops 0 \
    --swarm-seed 1 --out "$out/s$1" > "$out/s$1.log" 2>&1
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["vt"]; print(" ".join("%.1f" % x.get("ops_per_s", 0) for x in v))' \
    "$out/s$1/summary.json" 2>/dev/null || echo "0 0"
}
read -r a1 b1 < <(vt_rates 1)
read -r a2 b2 < <(vt_rates 2)
one=$(echo "($a1 + $b1) / 2" | bc -l)
two=$(echo "$a2 + $b2" | bc -l)
echo "swarm scaling ($(basename "$cfg" .ini), ${secs} s per VT, $(nproc) cores):"
printf '  1 VT at a time: %8.1f ops/s (VT 0 %.1f, VT 1 %.1f)\n' "$one" "$a1" "$b1"
printf '  2 VTs at once : %8.1f ops/s in total (VT 0 %.1f, VT 1 %.1f)  speed-up %.2fx\n' "$two" "$a2" "$b2" \
  "$(echo "if ($one > 0) $two / $one else 0" | bc -l)"
