#!/usr/bin/env python3
"""How likely the 5-seed search table meets the issue's criterion (at or below the second search on 90% of the rows, none above 2x), bootstrapped from the pooled searches, for the first search as measured and made k times stronger."""
import os
import random
import statistics
import sys

from search_pooled import read_seed_cells

CAP = 50000        # the 5-seed table's budget per run
SEEDS = 5          # runs per cell of the 5-seed table
TABLES = int(os.environ.get("SC_TABLES", 2000))   # simulated tables per line
POOL = 4000        # simulated pairs of runs per row to draw the tables' runs from
STRENGTHS = (1, 1.5, 2, 3, 4, 6)


def read_slots(path, first, second):
    """{name: [(first's sample, second's sample)]}, paired by seed and search index: the two
    searches of a pair start from the same variant ([vary] is drawn from the search's seed),
    as the 5-seed table's two runs of a seed do. Rows no search of either reported are left
    out, as the table leaves them unjudged."""
    cells, _ = read_seed_cells(path)
    slots = {}
    for (name, kind, seed), a in cells.items():
        b = cells.get((name, second, seed))
        if kind == first and b:
            slots.setdefault(name, []).extend(zip(a, b))
    return {n: p for n, p in slots.items() if any(x > 0 or y > 0 for x, y in p)}


def pair_of_runs(slots, rng):
    """Operations to the first report of each of two runs that take their searches from the
    same slots, drawn one after the other; CAP+1 for one that would not report within CAP."""
    t, done = [0, 0], [False, False]
    while not all(done):
        pair = slots[rng.randrange(len(slots))]
        for side in (0, 1):
            if not done[side]:
                t[side] += abs(pair[side])
                done[side] = pair[side] > 0 or t[side] > CAP
    return tuple(min(x, CAP + 1) for x in t)


def simulated_pairs(slots, rng):
    return [pair_of_runs(slots, rng) for _ in range(POOL)]


def stronger(ops, strength):
    """A search strength times as likely to report per operation reports after ops/strength."""
    return ops if ops > CAP else max(1, round(ops / strength))


def table_outcome(rows, rng, strength):
    """(rows at or below, rows above 2x, rows judged) of one simulated 5-seed table."""
    below = above2 = judged = 0
    for pairs in rows:
        drawn = rng.choices(pairs, k=SEEDS)
        ma = statistics.median(stronger(a, strength) for a, _ in drawn)
        mb = statistics.median(b for _, b in drawn)
        if ma > CAP and mb > CAP:
            continue
        judged += 1
        below += ma <= mb
        above2 += ma > 2 * mb
    return below, above2, judged


def summarize(label, rows, rng, strength):
    outcomes = [table_outcome(rows, rng, strength) for _ in range(TABLES)]
    met = sum(b >= 0.9 * j and a == 0 for b, a, j in outcomes)
    below = statistics.median(b / j for b, _, j in outcomes)
    above2 = statistics.median(a for _, a, _ in outcomes)
    print(f"| {label} | {100 * below:.0f}% | {above2:.0f} | {met / TABLES:.3f} |")


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: search_criterion.py RESULTS.tsv FIRST SECOND")
    path, first, second = sys.argv[1], sys.argv[2], sys.argv[3]
    slots = read_slots(path, first, second)
    if not slots:
        sys.exit(f"search_criterion.py: no mutation of {path} has samples of both {first} and "
                 f"{second} with a report in either")
    rng = random.Random(1)
    rows = [simulated_pairs(slots[n], rng) for n in sorted(slots)]
    print(f"{len(rows)} mutations, {TABLES} simulated 5-seed tables per line, the runs of a seed "
          f"paired by their searches' variants\n")
    print(f"| {first} | median share of rows at or below {second} | median rows above 2x | "
          f"P(criterion met) |")
    print("|---|---:|---:|---:|")
    for s in STRENGTHS:
        summarize("as measured" if s == 1 else f"made {s}x stronger", rows, rng, s)


if __name__ == "__main__":
    main()
