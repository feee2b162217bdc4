#!/usr/bin/env bash
# Compares the throughput of two Metis builds on the shipped configs, interleaved so both see the same load.
# Usage: tests/bench/speed/compare.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS] [SECONDS] [CONFIG...]
# Prints, per config, each build's median ops/s over ROUNDS runs and the change in percent, then
# the median CPU time per operation (user + sys of the run and the processes it waited for, in
# ms; less sensitive to other load than ops/s) and the load average around the config's runs.
# OLD_CONFIGS=DIR runs the old build on DIR/<same name>.ini: its own shipped configs, which may
# lack keys the new build added.
. "$(dirname "$0")/../../lib/common.sh"
if [ $# -lt 2 ]; then
  echo "usage: tests/bench/speed/compare.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS] [SECONDS] [CONFIG...]" >&2
  exit 2
fi
old=$1 new=$2 rounds=${3:-3} secs=${4:-10}
shift $(( $# < 4 ? $# : 4 ))
cfgs=("$@")
[ ${#cfgs[@]} -eq 0 ] && cfgs=(configs/*.ini)
for b in "$old" "$new"; do
  [ -x "$b/metis" ] || { echo "compare: $b/metis is not an executable" >&2; exit 2; }
done
out=$T

ops_per_s() {   # BIN_DIR CONFIG TAG: prints "OPS_PER_S CPU_MS_PER_OP"
  local dir="$out/$3" cfg=$2 TIMEFORMAT='%U %S'
  [ "$1" = "$old" ] && [ -n "${OLD_CONFIGS:-}" ] && cfg=$OLD_CONFIGS/$(basename "$2")
  { time METIS_BIN="$1" "$1/metis" run "$cfg" --seconds "$secs" --out "$dir" >"$dir.log" 2>&1; } \
    2>"$dir.cpu"
  python3 -c 'import json,sys
s = json.load(open(sys.argv[1])); u, k = map(float, open(sys.argv[2]).read().split())
print(s["ops_per_s"], "%.3f" % ((u + k) * 1000 / max(s["ops"], 1)))' \
    "$dir/summary.json" "$dir.cpu" 2>/dev/null || echo nan nan
}

median() { python3 -c 'import statistics,sys; v=[float(x) for x in sys.argv[2:] if x!="nan"]; print("%.*f" % (int(sys.argv[1]), statistics.median(v)) if v else "nan")' "${DIGITS:-1}" "$@"; }

printf '%-22s %12s %12s %8s\n' config old_ops/s new_ops/s change
for cfg in "${cfgs[@]}"; do
  name=$(basename "$cfg" .ini)
  a=() b=() ca=() cb=()
  load0=$(cut -d' ' -f1 /proc/loadavg)
  for r in $(seq 1 "$rounds"); do
    read -r x y <<<"$(ops_per_s "$old" "$cfg" "$name-old-$r")"; a+=("$x"); ca+=("$y")
    read -r x y <<<"$(ops_per_s "$new" "$cfg" "$name-new-$r")"; b+=("$x"); cb+=("$y")
  done
  ma=$(median "${a[@]}") mb=$(median "${b[@]}")
  ch=$(python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print("%+.1f%%" % ((b-a)/a*100) if a==a and b==b and a>0 else "nan")' "$ma" "$mb")
  printf '%-22s %12s %12s %8s   (old: %s; new: %s)\n' "$name" "$ma" "$mb" "$ch" "${a[*]}" "${b[*]}"
  printf '%-22s %12s %12s %8s   cpu ms/op (old: %s; new: %s); load %s -> %s\n' "" \
    "$(DIGITS=3 median "${ca[@]}")" "$(DIGITS=3 median "${cb[@]}")" "" "${ca[*]}" "${cb[*]}" "$load0" \
    "$(cut -d' ' -f1 /proc/loadavg)"
done
