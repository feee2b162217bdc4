#!/usr/bin/env bash
# `make bench` figure: total operations/s of a swarm of 1 VT and of 2 VTs on this machine.
set -u
cd "$(dirname "$0")/../.."
bin=${METIS_BIN:-bin}
secs=${BENCH_SECONDS:-20}
cfg=${SWARM_BENCH_CONFIG:-configs/ref-vs-ext4.ini}
out=$(mktemp -d /tmp/metis-swarmbench.XXXXXX)
trap 'rm -rf "$out"' EXIT
if ! "$bin/metis" swarm --ping >/dev/null 2>&1; then
  echo "swarm scaling: $bin/metis has no swarm command"; exit 0
fi
total() {  # N: ops/s of a swarm of N VTs, N at once on this machine
  printf '%s/:\n' "$1" > "$out/hosts$1"
  "$bin/metis" swarm "$cfg" --hosts "$out/hosts$1" --vts "$1" --seconds "$secs" --ops 0 \
    --swarm-seed 1 --out "$out/s$1" > "$out/s$1.log" 2>&1
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print("%.1f %d" % (t["ops_per_s"], t["ops"]))' \
    "$out/s$1/summary.json" 2>/dev/null || echo "0 0"
}
read -r one ops1 < <(total 1)
read -r two ops2 < <(total 2)
echo "swarm scaling ($(basename "$cfg" .ini), ${secs} s per VT, $(nproc) cores):"
printf '  1 VT : %8.1f ops/s  (%d ops)\n' "$one" "$ops1"
printf '  2 VTs: %8.1f ops/s  (%d ops)  speed-up %.2fx\n' "$two" "$ops2" \
  "$(echo "if ($one > 0) $two / $one else 0" | bc -l)"
