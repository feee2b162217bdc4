#!/usr/bin/env bash
# Drawn input partitions and choices follow the configured weights (uniform and skewed) within 4 binomial standard deviations, and every weighted partition and item is drawn.
. "$(dirname "$0")/../../lib/common.sh"
ops=${COVERAGE_OPS:-8000}
# Writes get most branches so that write_size has well over a thousand draws. ext4 is left
# out: coverage counts the inputs drawn, which do not depend on the file systems compared.
config() {
  cat <<INI
[run]
max_depth = 12

[fs ref]
type = reffs
size = 1M

[pool]
dirs = 1
files = 2
depth = 1
xattr_names = 2

[ops]
write_file = 12
truncate = 3
fallocate_file = 3
setxattr = 3

[sizes]
write_size = $1
write_offset = uniform:12
trunc_size = uniform:13
falloc_offset = uniform:12
falloc_len = uniform:12
xattr_size = uniform:8
; copy_range's kinds take write's partitions unless given: given, so the skewed write_size does
; not leave copy_len's rarest partition to about one of its draws
copy_offset = uniform:12
copy_len = uniform:12
INI
}
# uniform: 0 and [1,2) .. [1024,2048), weight 1 each. skewed: 90% of the sizes in [1024,2048).
config 'uniform:11' >"$T/uniform.ini"
config '0:1 1:1 2:1 4:1 8:1 16:1 32:1 64:1 128:1 256:1 512:1 1024:99' >"$T/skewed.ini"
for w in uniform skewed; do
  "$METIS_BIN/metis" run "$T/$w.ini" --seed 7 --ops "$ops" --out "$T/$w" >"$T/$w.out" 2>&1 \
    || { cat "$T/$w.out"; fail "$w: metis run failed"; }
  assert_no_leftovers "$(run_id_of "$T/$w.out")"
done

python3 - "$T" <<'PY'
import json, math, sys
tmp = sys.argv[1]
problems = []

def check_kind(run, kind, arg, min_draws):
    parts = [p for p in arg['partitions'] if p['weight'] > 0]
    n = arg['draws']
    total_w = sum(p['weight'] for p in parts)
    if n < min_draws:
        problems.append(f'{run} {kind}: only {n} draws')
    if sum(p['drawn'] for p in arg['partitions']) != n:
        problems.append(f'{run} {kind}: partition counts do not add up to {n} draws')
    for p in arg['partitions']:
        if p['weight'] == 0 and p['drawn']:
            problems.append(f'{run} {kind}: partition {p["part"]} has weight 0 but was drawn {p["drawn"]} times')
    for p in parts:
        prob = p['weight'] / total_w
        if abs(p['expected'] - prob) > 1e-4:
            problems.append(f'{run} {kind}: partition {p["part"]} expected {p["expected"]}, weights say {prob:.6f}')
        # Tolerance: 4 standard deviations of the binomial count, plus 1 for rounding.
        tol = 4 * math.sqrt(n * prob * (1 - prob)) + 1
        if abs(p['drawn'] - n * prob) > tol:
            problems.append(f'{run} {kind}: partition {p["part"]} [{p["lo"]},{p["hi"]}) drawn {p["drawn"]} '
                            f'of {n}, expected {n * prob:.1f} +- {tol:.1f}')
        if p['drawn'] == 0:
            problems.append(f'{run} {kind}: partition {p["part"]} [{p["lo"]},{p["hi"]}) never drawn')
    return n

for run in ('uniform', 'skewed'):
    cov = json.load(open(f'{tmp}/{run}/summary.json'))['coverage']
    for kind, arg in cov['args'].items():
        n = check_kind(run, kind, arg, 1000 if kind == 'write_size' else 100)
    for name, ch in cov['choices'].items():
        n, total = ch['draws'], sum(i['weight'] for i in ch['items'])
        if n < 100:
            problems.append(f'{run} choice {name}: only {n} draws')
        for i in ch['items']:
            prob = i['weight'] / total
            tol = 4 * math.sqrt(n * prob * (1 - prob)) + 1
            if abs(i['drawn'] - n * prob) > tol or (prob > 0) != (i['drawn'] > 0):
                problems.append(f'{run} choice {name} item {i["name"]}: drawn {i["drawn"]} of {n}, '
                                f'expected {n * prob:.1f} +- {tol:.1f}')
    for name, bm in cov['bitmaps'].items():
        for b in bm['bits']:
            n, prob = bm['draws'], b['prob']
            tol = 4 * math.sqrt(n * prob * (1 - prob)) + 1
            if abs(b['set'] - n * prob) > tol:
                problems.append(f'{run} bitmap {name} bit {b["name"]}: set {b["set"]} of {n}, expected {n * prob:.1f} +- {tol:.1f}')
    ws = cov['args']['write_size']
    top = next(p for p in ws['partitions'] if p['lo'] == 1024)
    print(f'{run}: write_size {ws["draws"]} draws, [1024,2048) {top["drawn"]} = {top["drawn"] / ws["draws"]:.3f} '
          f'(weight share {top["expected"]:.3f})')
skew = json.load(open(f'{tmp}/skewed/summary.json'))['coverage']['args']['write_size']
top = next(p for p in skew['partitions'] if p['lo'] == 1024)
if abs(top['expected'] - 0.9) > 1e-4:
    problems.append(f'skewed: [1024,2048) should carry 90% of the weight, not {top["expected"]}')
for p in problems:
    print('FAIL:', p)
sys.exit(1 if problems else 0)
PY
[ $? -eq 0 ] || fail "drawn proportions do not match the weights"
echo PASS
