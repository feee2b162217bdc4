#!/usr/bin/env bash
# configs/general.ini as its header says to use it, unedited, plus one file system under test: RefFS mounted as a plain FUSE file system over a large store (16 GiB, a million inodes, no snapshot ioctls, so restored logically); every class such a run reports is a false one. Prints per seed the operations, searches and classes.
# usage: general_any_target.sh [SECONDS] [SEEDS...]   (default 600 s, seeds 1 2 3; env BENCH_OUT)
. "$(dirname "$0")/../../lib/common.sh"
secs=${1:-600}
shift || true
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3)
out=$(from_caller "${BENCH_OUT:-$METIS_ROOT/build/bench-any-target}")
mkdir -p "$out"
cfg=$out/general-any.ini
cp configs/general.ini "$cfg"
cat >>"$cfg" <<'INI'

[fs target]
type = fuse
mount_cmd = {bin}/reffs -o nosnapshots,capacity=16G,inodes=1000000 {mnt}
INI
pids=()
for s in "${seeds[@]}"; do
  timeout -k 10 $((secs + 300)) "$METIS_BIN/metis" run "$cfg" --seed "$s" --seconds "$secs" \
    --keep-going --out "$out/s$s" >"$out/s$s.out" 2>&1 &
  pids+=($!)
done
rc=0
for k in "${!pids[@]}"; do
  wait "${pids[$k]}"
  r=$?
  s=${seeds[$k]}
  [ $r -le 1 ] || rc=$r
  python3 - "$out/s$s/summary.json" "$s" "$r" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
cls = [c['signature'] for c in j.get('classes', [])]
print(f"seed {sys.argv[2]}: exit {sys.argv[3]}, {j['ops']} operations, {j['searches']} searches, "
      f"{j['ops_per_s']:.0f} ops/s, {len(cls)} classes" + (': ' + '; '.join(cls) if cls else ''))
PY
done
exit $rc
