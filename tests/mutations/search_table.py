#!/usr/bin/env python3
"""The search table: per mutation, the median operations to the first report of each search
over its seeds, and the ratio of the first search's median to the second's. A seed that did not
report within the cap counts as the cap and above it; a median that is such a seed is shown as
>CAP. The last lines say on how many mutations the first search is at or below the second,
and on how many it is worse than twice it."""
import statistics
import sys


def read(path):
    runs = {}
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if len(f) < 8 or f[0] != 'first':
            continue
        _, name, search, seed, status, ops, secs, what = f[:8]
        runs.setdefault(name, {}).setdefault(search, []).append((status, int(ops), what))
    return runs


def median(results):
    """(value, censored): the median of the seeds' operations, a miss counted above the cap."""
    keyed = sorted((ops if st == 'caught' else ops + 1e12, st) for st, ops, _ in results)
    mid = keyed[(len(keyed) - 1) // 2] if len(keyed) % 2 else None
    if mid is None:
        a, b = keyed[len(keyed) // 2 - 1], keyed[len(keyed) // 2]
        if a[0] >= 1e12 or b[0] >= 1e12:
            return (min(a[0], b[0]) % 1e12, True)
        return ((a[0] + b[0]) / 2, False)
    return (mid[0] % 1e12, mid[0] >= 1e12)


def cell(m):
    value, censored = m
    return f'>{value:.0f}' if censored else f'{value:.0f}'


def main():
    path, first, second = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = read(path)
    rows, at_or_below, worse2, rated, all_caught, neither = [], 0, 0, 0, 0, []
    for name in sorted(runs):
        r = runs[name]
        if first not in r or second not in r:
            continue
        a, b = median(r[first]), median(r[second])
        caught = sum(st == 'caught' for st, _, _ in r[first])
        all_caught += caught == len(r[first])
        bad = [st for st, _, _ in r[first] + r[second] if st in ('baseline', 'infra')]
        if a[1] and b[1]:
            ratio, verdict = '-', 'neither'
        elif a[1]:
            ratio, verdict = '>' + (f'{a[0] / b[0]:.2f}' if b[0] else 'inf'), 'worse'
        elif b[1]:
            ratio, verdict = '<' + (f'{a[0] / b[0]:.2f}' if b[0] else '0'), 'better'
        else:
            q = a[0] / b[0] if b[0] else (1.0 if a[0] == 0 else float('inf'))
            ratio, verdict = f'{q:.2f}', 'better' if q <= 1 else 'worse'
        if verdict == 'neither':
            neither.append(name)    # no seed of either search reported: nothing to judge
        rated += verdict != 'neither'
        all_caught -= verdict == 'neither' and caught == len(r[first])
        at_or_below += verdict == 'better'
        worse2 += verdict == 'worse' and (a[1] or a[0] > 2 * b[0])
        seeds_a = ' '.join(str(o) if st == 'caught' else '-' for st, o, _ in r[first])
        rows.append(f'| {name} | {cell(a)} | {cell(b)} | {ratio} | {caught}/{len(r[first])} | '
                    f'{seeds_a} |' + (' ' + ', '.join(sorted(set(bad))) if bad else ''))
    print(f'| mutation | {first} (median ops) | {second} (median ops) | ratio | {first} caught | '
          f'{first} per seed |')
    print('|---|---:|---:|---:|---:|---|')
    print('\n'.join(rows))
    print()
    print(f'{first} at or below {second}: {at_or_below} of {rated} '
          f'({100.0 * at_or_below / max(rated, 1):.0f}%); worse than 2x: {worse2}; '
          f'every seed caught by {first}: {all_caught} of {rated}' +
          (f'; reported by neither: {" ".join(neither)}' if neither else ''))


if __name__ == '__main__':
    main()
