#!/usr/bin/env python3
# make bench's guard: each config's CPU time per operation held against the baseline's.
"""Usage: guard_compare.py MEASURED_TSV BASELINE_TSV LIMIT_PERCENT
Both files: config, seconds, cpu_us_per_op, ops_per_s, one row each ('#' starts a comment).
Prints a line per measured config and a FAIL line for each one whose CPU time per operation
is more than LIMIT_PERCENT above its baseline; exits 1 if there is one, else 0. A config the
baseline lacks, measured over other seconds (a run's first seconds cost more per operation
than later ones), or whose CPU time is "-" (too little to measure), is named and not compared.
"""
import sys


def read_rows(path):
    rows = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        config, seconds, cpu, ops_s = line.split("\t")[:4]
        rows[config] = (float(seconds), None if cpu == "-" else float(cpu), float(ops_s))
    return rows


def judge(config, now, base, limit):
    """One config's line, and whether it failed."""
    if base is None:
        return "guard: %s: no baseline, not compared" % config, False
    if now[0] != base[0]:
        return ("guard: %s: measured over %g s, the baseline over %g s: not compared"
                % (config, now[0], base[0]), False)
    if now[1] is None or base[1] is None:
        return ("guard: %s: under 3 s of CPU beyond the set-up: too little to measure, not "
                "compared" % config, False)
    if now[1] != now[1]:
        return "FAIL: %s: no CPU time per operation measured (the run failed)" % config, True
    change = (now[1] - base[1]) / base[1] * 100
    if change > limit:
        return ("FAIL: %s: %.1f us of CPU per operation against %.1f in the baseline: %+.0f%% "
                "(more than %g%% slower; ops/s %.0f, baseline %.0f)"
                % (config, now[1], base[1], change, limit, now[2], base[2]), True)
    return ("guard: %s: %.1f us of CPU per operation, baseline %.1f: %+.0f%% ok"
            % (config, now[1], base[1], change), False)


def main():
    measured, baseline, limit = read_rows(sys.argv[1]), read_rows(sys.argv[2]), float(sys.argv[3])
    failed = 0
    for config, now in measured.items():
        line, bad = judge(config, now, baseline.get(config), limit)
        print(line)
        failed += bad
    print("guard: %d of %d configs more than %g%% slower than the baseline"
          % (failed, len(measured), limit))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
