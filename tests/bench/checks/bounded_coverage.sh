#!/usr/bin/env bash
# Coverage against the walk: a bounded run's N states, and how many operations search = random on the same config needs to visit 50%, 90% and 100% of them (5 seeds, capped at 20x the bounded run's operations).
# usage: bounded_coverage.sh CONFIG [DEPTH]   (env BC_OUT work dir, BC_SEEDS seeds, BC_FIRST the first seed, BC_CAP the multiple)
# Prints the bounded run's states and operations, then one line per seed: the states the walk
# had met after as many operations as the bounded run made, and the operations the walk made
# when it had met 50%, 90% and 100% of those states ("-": not within the cap).
. "$(dirname "$0")/../../lib/common.sh"
cfg=$(from_caller "${1:?usage: bounded_coverage.sh CONFIG [DEPTH]}") depth=${2:-}
out=${BC_OUT:-$METIS_ROOT/build/bounded-coverage}
seeds=${BC_SEEDS:-5} first=${BC_FIRST:-1} cap=${BC_CAP:-20}
rm -rf "$out" && mkdir -p "$out"
"$METIS_BIN/metis" run "$cfg" ${depth:+--depth "$depth"} --seed 1 --out "$out/bounded" \
  2>"$out/bounded.err" || { tail -n3 "$out/bounded.err"; exit 1; }
tail -n1 "$out/bounded.err"
ops=$(json_field "$out/bounded/summary.json" ops)
sed 's/^search = bounded$/search = random/' "$cfg" >"$out/random.ini"
for ((s = first; s < first + seeds; s++)); do
  rm -f "$out/walk$s.bin"
  METIS_STATE_LOG=$out/walk$s.bin "$METIS_BIN/metis" run "$out/random.ini" --seed "$s" \
    --ops $((cap * ops)) --seconds 0 --out "$out/walk$s" 2>"$out/walk$s.err"
  python3 - "$out/bounded" "$out/walk$s.bin" "$s" "$ops" "$cap" <<'PY'
import json, sys
bounded, walk, seed, ops, cap = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
raw = open(bounded + '/bounded-states.bin', 'rb').read()
n = json.load(open(bounded + '/summary.json'))['bounded']['states']
k = len(raw) // n
want = {raw[i:i + k] for i in range(0, len(raw), k)}
seen, marks, steps, at_ops = set(), {}, 0, None
log = open(walk, 'rb').read()
# The walk starts at the initial state, which the bounded set holds too: met at operation 0.
seen_initial = 1
for i in range(0, len(log), k):
    steps += 1
    key = log[i:i + k]
    if key in want:
        seen.add(key)
    got = (len(seen) + seen_initial) / n
    if steps == ops:
        at_ops = len(seen) + seen_initial
    for pct in (50, 90, 100):
        if pct not in marks and got * 100 >= pct:
            marks[pct] = steps
print('seed %s: %d states of %d met in %d operations (cap %d x %d), %s in the first %d; '
      '50%%: %s, 90%%: %s, 100%%: %s' % (
    seed, len(seen) + seen_initial, n, steps, cap, ops, at_ops or '-', ops,
    *(marks.get(p, '-') for p in (50, 90, 100))))
PY
done
