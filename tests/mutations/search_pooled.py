#!/usr/bin/env python3
"""The pooled search table: per mutation, each search's first report pooled over many searches, and the run-level median it implies, per search kind."""
import random
import sys

RUNS = 4000   # simulated runs per cell: enough that the median moves by under 1%


def read_seed_cells(path):
    """{(name, search, seed): [per-search first reports]} of the runs that ran, and the runs
    that failed: a positive count is a report at that operation of its search, a negative one
    a search of that many operations without one."""
    cells, infra = {}, []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 6 or f[0] != "cell":
            continue
        if f[4] != "ok":
            infra.append(f"{f[1]} {f[2]} seed {f[3]}")
        else:
            cells[(f[1], f[2], f[3])] = [int(x) for x in f[5:] if x]
    return cells, infra


def read_cells(path):
    """{(name, search): [per-search first reports]}, pooled over the seeds, and the failed runs."""
    cells, infra = read_seed_cells(path)
    pooled = {}
    for (name, search, _), samples in cells.items():
        pooled.setdefault((name, search), []).extend(samples)
    return pooled, infra


def run_median(samples, cap, rng):
    """The median operations to a run's first report when its searches are drawn from these
    samples one after the other (a run's searches are independent: each starts afresh with a
    seed of its own); cap+1 when most runs would not report within cap."""
    if not any(s > 0 for s in samples):
        return cap + 1
    totals = []
    for _ in range(RUNS):
        t = 0
        while t <= cap:
            s = rng.choice(samples)
            if s > 0:
                t += s
                break
            t += -s
        totals.append(t)
    totals.sort()
    return min(totals[len(totals) // 2], cap + 1)


def p_first(a, b):
    """The chance that a search of kind a reports sooner than one of kind b (ties half)."""
    def key(s):
        return s if s > 0 else float("inf")
    wins = sum((key(x) < key(y)) + 0.5 * (key(x) == key(y)) for x in a for y in b)
    return wins / (len(a) * len(b))


def hits(samples):
    return f"{sum(s > 0 for s in samples)}/{len(samples)}"


def ops(median, cap):
    return f">{cap}" if median > cap else str(median)


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: search_pooled.py RESULTS.tsv FIRST SECOND [CAP]")
    path, first, second = sys.argv[1], sys.argv[2], sys.argv[3]
    cap = int(sys.argv[4]) if len(sys.argv) > 4 else 50000
    cells, infra = read_cells(path)
    rng = random.Random(1)
    names = sorted({n for n, _ in cells})
    print(f"| mutation | searches | {first}: hit | {second}: hit | {first} (run median) | "
          f"{second} (run median) | ratio | P({first} first) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    at_or_below = worse2 = judged = 0
    unreached = []
    for n in names:
        a, b = cells.get((n, first), []), cells.get((n, second), [])
        if not a or not b:
            continue
        ma, mb = run_median(a, cap, rng), run_median(b, cap, rng)
        ratio = ma / mb
        if ma > cap and mb > cap:
            unreached.append(n)      # no search of either kind reported: nothing to judge
        else:
            judged += 1
            at_or_below += ratio <= 1
            worse2 += ratio > 2
        shown = "-" if n in unreached else f"{ratio:.2f}"
        print(f"| {n} | {len(a)} | {hits(a)} | {hits(b)} | {ops(ma, cap)} | {ops(mb, cap)} | {shown} | "
              f"{p_first(a, b):.2f} |")
    print(f"\n{first} at or below {second}: {at_or_below} of {judged}; worse than 2x: {worse2}"
          + (f"; reported by neither: {' '.join(unreached)}" if unreached else ""))
    if infra:
        print("runs that failed: " + ", ".join(infra))


if __name__ == "__main__":
    main()
