#!/usr/bin/env bash
# Concurrent steps without a planted defect: STEPS steps with every fitting step concurrent on RefFS against RefFS, RefFS against ext4 and ext4 against tmpfs must find nothing; then serial orders run per second, and what concurrent steps cost a run's throughput.
# usage: together.sh [STEPS]   (default 100000 per pair; BENCH_TOGETHER_PAIRS "ref-ref ref-ext4 ext4-tmpfs";
#        BENCH_TOGETHER_SECONDS for each throughput run, default 20; BENCH_TOGETHER_OUT keeps the runs)
. "$(dirname "$0")/../../lib/common.sh"
steps=${1:-100000}
secs=${BENCH_TOGETHER_SECONDS:-20}
out=$(from_caller "${BENCH_TOGETHER_OUT:-$T}")
mkdir -p "$out"

sizes='[pool]
dirs = 2
files = 2
depth = 1
prepopulate = 0.5
[ops]
open_unlink = 0
[sizes]
write_size = uniform:11
write_offset = uniform:11
falloc_offset = uniform:11
falloc_len = uniform:11
trunc_size = uniform:14
falloc_align = 1024:0.5'
reffs_fs() {  # NAME
  printf '[fs %s]\ntype = reffs\nsize = 256K\nreffs_opts = inodes=64\nunsupported = collapse,insert\n' "$1"
}
ext4_fs='[fs ext4]
type = kernel
fstype = ext4
size = 256K'
tmpfs_fs='[fs tmpfs]
type = kernel
fstype = tmpfs
size = 256K
inodes = 64
unsupported = zero_range,zero_range_keep,collapse,insert'

config() {  # PAIR TOGETHER
  printf '[run]\nseed = 1\nmax_depth = 40\nkeep_going = 1\nshrink_seconds = 0\n'
  printf 'together = %s\ntogether_max = 3\ntogether_tries = 2\n' "$2"
  case $1 in
    ref-ref) reffs_fs ref; reffs_fs other ;;
    ref-ext4) reffs_fs ref; echo "$ext4_fs" ;;
    ext4-tmpfs) echo "$ext4_fs"; echo "$tmpfs_fs" ;;
  esac
  echo "$sizes"
}

field() {  # RUN_DIR PYTHON-EXPRESSION over s (summary.json)
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1/summary.json" "$2"
}

bad=0
echo "together: $steps steps per pair, every one concurrent whose operation fits (2 to 3 calls, 2 tries)"
for pair in ${BENCH_TOGETHER_PAIRS:-ref-ref ref-ext4 ext4-tmpfs}; do
  config "$pair" 1 >"$out/$pair.ini"
  start=$(date +%s)
  "$METIS_BIN/metis" run "$out/$pair.ini" --ops "$steps" --out "$out/$pair" 2>"$out/$pair.err"
  rc=$?
  t=$(field "$out/$pair" 's["together"]')
  printf '  %-11s exit %d in %ds: %s steps, %s concurrent (%s tries, %s failed, %s leaves), %s serial orders in %ss (%s/s), classes %s\n' \
    "$pair" $rc $(( $(date +%s) - start )) "$(field "$out/$pair" 's["ops"]')" \
    "$(field "$out/$pair" 's["together"]["steps"]')" "$(field "$out/$pair" 's["together"]["tries"]')" \
    "$(field "$out/$pair" 's["together"]["failed"]')" "$(field "$out/$pair" 's["together"]["diverged"]')" \
    "$(field "$out/$pair" 's["together"]["orders_run"]')" "$(field "$out/$pair" 's["together"]["orders_seconds"]')" \
    "$(field "$out/$pair" 'round(s["together"]["orders_run"] / max(s["together"]["orders_seconds"], 1e-9))')" \
    "$(field "$out/$pair" '[c["signature"] for c in s["classes"]]')"
  [ "$rc" -eq 0 ] || bad=1
  : "$t"
done

echo "together: throughput, ${secs}s per run (wall time: other load on the machine counts)"
for pair in ref-ref ref-ext4; do
  for share in 0 0.1 0.3; do
    config "$pair" "$share" >"$out/$pair-$share.ini"
    "$METIS_BIN/metis" run "$out/$pair-$share.ini" --seconds "$secs" --out "$out/$pair-$share" \
      2>"$out/$pair-$share.err"
    printf '  %-9s together=%-4s %s ops/s (%s concurrent steps)\n' "$pair" "$share" \
      "$(field "$out/$pair-$share" 's["ops_per_s"]')" "$(field "$out/$pair-$share" 's["together"]["steps"]')"
  done
done
exit $bad
