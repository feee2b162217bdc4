#!/usr/bin/env bash
# `make bench` figure: the wall time of a bounded config verified by one `metis run` and by a 2-VT `metis swarm` on this host (claim table on), round after round.
. "$(dirname "$0")/../../lib/common.sh"
cfg=$(from_caller "${1:-configs/ci-bounded.ini}")
rounds=${2:-3}
[ -r "$cfg" ] || { echo "bounded swarm: cannot read config '$cfg'" >&2; exit 2; }
case $rounds in '' | *[!0-9]*) echo "bounded swarm: '$rounds' is not a count" >&2; exit 2 ;; esac
bin=$METIS_BIN

# seconds CMD...: CMD's wall time in seconds, its output in $T/last.out; 0 and a note if it
# did not end verified.
seconds() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >"$T/last.out" 2>&1
  t1=$(date +%s.%N)
  grep -q 'verified\( together\)\?: ' "$T/last.out" && ! grep -q 'not verified' "$T/last.out" ||
    { echo "bounded swarm: a run did not verify: $(tail -n 1 "$T/last.out")" >&2; echo 0; return; }
  echo "$t1 - $t0" | bc
}

# median FILE: the median of the numbers in FILE, one a line.
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '2/:\n' >"$T/hosts"
: >"$T/ones"; : >"$T/twos"
echo "bounded swarm ($(basename "$cfg" .ini), $(nproc) cores, $rounds round(s)): wall seconds"
for r in $(seq "$rounds"); do
  one=$(seconds "$bin/metis" run "$cfg" --seed 1 --out "$T/one-$r")
  one_line=$(grep -m1 '^metis: verified' "$T/last.out")
  two=$(seconds "$bin/metis" swarm "$cfg" --hosts "$T/hosts" --vts 2 --swarm-seed 1 --out "$T/two-$r")
  two_line=$(grep -m1 'verified together' "$T/last.out")
  printf '  round %d, load %s: one VT %6.1f s, 2-VT swarm %6.1f s, ratio %.2f\n' "$r" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$one" "$two" "$(echo "if ($one > 0) $two / $one else 0" | bc -l)"
  echo "    one: ${one_line#metis: }"
  echo "    two: ${two_line#metis swarm: }"
  rm -rf --one-file-system "$T/one-$r" "$T/two-$r"
  echo "$one" >>"$T/ones"; echo "$two" >>"$T/twos"
done
# The host's own noise moves single rounds by half (one VT took 22.0 to 37.5 s on an idle host):
# the ratio of the medians is the figure.
one=$(median "$T/ones") two=$(median "$T/twos")
printf '  medians: one VT %.1f s, 2-VT swarm %.1f s, ratio %.2f\n' "$one" "$two" \
  "$(echo "if ($one > 0) $two / $one else 0" | bc -l)"
