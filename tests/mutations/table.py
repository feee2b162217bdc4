#!/usr/bin/env python3
"""Mutation table writer: joins mutations.tsv, the run results and the mutant's rule list into
a Markdown table, prints the verdict, and exits 1 if a mutation or baseline failed or the
general config caught fewer than MUT_GENERAL_MIN percent (90) of the mutations."""
import os
import subprocess
import sys


def read_meta(path):
    meta = {}
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        name, kind, directed, expect = line.rstrip('\n').split('\t')
        meta[name] = {'kind': kind, 'directed': directed, 'expect': expect}
    return meta


def read_results(path):
    muts, base, general = {}, [], {}
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if f[0] == 'baseline' and len(f) >= 7:
            base.append(f)
        elif f[0] == 'general' and len(f) >= 10:
            general[f[1]] = f[1:]
        elif len(f) >= 9:
            muts[f[0]] = f
    return muts, base, general


def general_cell(g):
    """The general column's text for one result line g (None: not run)."""
    if g is None:
        return '-'
    if g[1] == 'caught':
        return f'caught (seed {g[4]}, op {g[5]}, {g[6]} ops)'
    return g[1] + ('' if g[1] == 'MISSED' else ': ' + g[8])


def general_summary(meta, general, failures):
    """Prints the general config's catch rate, per kind and in all; fails below the minimum."""
    if not general:
        return ''
    kinds = {}
    # Races show only when calls meet: the general config makes no concurrent steps.
    general = {n: g for n, g in general.items() if meta[n]['kind'] != 'race'}
    races = sum(1 for n in meta if meta[n]['kind'] == 'race')
    for name, g in general.items():
        k = kinds.setdefault(meta[name]['kind'], [0, 0])
        k[0] += g[1] == 'caught'
        k[1] += 1
    caught, total = sum(k[0] for k in kinds.values()), sum(k[1] for k in kinds.values())
    per_kind = ', '.join(f'{kind} {c}/{n}' for kind, (c, n) in sorted(kinds.items()))
    line = (f'general config: {caught} of {total} caught ({100.0 * caught / total:.1f}%); '
            f'{per_kind}')
    print('mutations: ' + line)
    for name, g in sorted(general.items()):
        if g[1] != 'caught':
            print(f'  general missed {name}: {general_cell(g)}')
    minimum = float(os.environ.get('MUT_GENERAL_MIN', '90'))
    if total == len(meta) - races and 100.0 * caught < minimum * total:
        failures.append(f'general config caught {caught} of {total}, below {minimum:g}%')
    return line


def read_rules(mutant):
    out = subprocess.run([mutant, '-o', 'mutation=list'], capture_output=True, text=True).stdout
    return dict(l.split('\t', 1) for l in out.splitlines() if '\t' in l)


def verdict(meta, r):
    """(cell text, is failure) for one mutation's result line r (None: no result)."""
    blind = meta['expect'].startswith('blind:')
    if r is None:
        return 'NO RESULT', True
    status = r[1]
    if status == 'caught':
        return ('caught (expected blind!)' if blind else 'caught'), False
    if status == 'MISSED':
        return ('not observable: ' + meta['expect'][6:]) if blind else 'MISSED', not blind
    return status + ': ' + r[8], True


def main():
    tsv, results, mutant, out_md = sys.argv[1:5]
    meta, (muts, base, general), rules = read_meta(tsv), read_results(results), read_rules(mutant)
    rows, failures, caught = [], [], 0
    for name in meta:
        if name not in muts:
            continue
        r = muts.get(name)
        text, bad = verdict(meta[name], r)
        caught += r is not None and r[1] == 'caught'
        if bad:
            failures.append(f'{name}: {text}')
        ok = r is not None and r[1] == 'caught'
        seen = r[8].split(':', 1)[0] if ok else ''
        rows.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            name, meta[name]['kind'], rules.get(name, '?'), meta[name]['directed'], text,
            r[2] if ok else '-', f'{r[3]} seed {r[4]} op {r[5]}' if ok else '-',
            seen or '-', r[6] if r else '-', r[7] if r else '-', general_cell(general.get(name))))
    brows = []
    for b in sorted(base, key=lambda b: (b[1], int(b[2]))):
        if b[3] != 'ok':
            failures.append(f'baseline {b[1]} seed {b[2]}: {b[3]} {b[6]}')
        brows.append(f'| {b[1]} | {b[2]} | {b[3]} | {b[4]} | {b[5]} |')
    with open(out_md, 'w') as f:
        f.write('| mutation | kind | rule it breaks | directed config | result | caught by | '
                'where (config, seed, operation #) | seen as | ops until caught | seconds | '
                'general |\n')
        f.write('|---|---|---|---|---|---|---|---|---|---|---|\n')
        f.write('\n'.join(rows) + '\n')
        if brows:
            f.write('\nBaselines: every config as it is, without the mutant (plain RefFS against ext4; '
                    'capacity and inodes: plain RefFS alone), on the seeds the mutations use:\n\n')
            f.write('| config | seed | result | ops | seconds |\n|---|---|---|---|---|\n')
            f.write('\n'.join(brows) + '\n')
    gline = general_summary(meta, general, failures)
    if gline:
        with open(out_md, 'a') as f:
            f.write(f'\nThe general column: configs/general.ini alone on every mutation: {gline}.\n')
    blind = sum(1 for n in meta if n in muts and meta[n]['expect'].startswith('blind:'))
    print(f'mutations: {caught} of {len(rows)} caught, {blind} not observable by design; '
          f'{len(brows)} baseline runs; table in {out_md}')
    for x in failures:
        print('FAILED: ' + x)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
