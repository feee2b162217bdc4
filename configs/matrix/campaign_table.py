#!/usr/bin/env python3
"""Prints the feature-matrix campaign's table (configs/matrix/campaign.sh): one row per config and mode, from each run's summary.json and log.

Crash states and fault checks are counted per file system (a pair checks two per step); classes
are counted with those whose signature names the reference (the first fs) apart."""
import json
import os
import re
import sys

MODES = ("plain", "crash", "syncfs", "any", "faults", "together")


def count_lines(path, prefix):
    """Lines of the run's log starting with prefix (0 when there is no log)."""
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if line.startswith(prefix))
    except OSError:
        return 0


def refusal(out, name):
    """The last line the run printed when it made no summary: why the config was refused."""
    try:
        with open(os.path.join(out, name + ".stderr"), errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
    except OSError:
        return "no output"
    return lines[-1] if lines else "no output"


def row(out, name):
    """One table row for the run NAME (CONFIG-MODE) under out."""
    config, mode = name.rsplit("-", 1)
    run = os.path.join(out, name)
    log = os.path.join(run, "log.txt")
    try:
        with open(os.path.join(run, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return f"| {config} | {mode} | refused: {refusal(out, name)} | | | | | | |"
    if s.get("status") == "infrastructure-failure":
        if not s.get("ops"):
            return f"| {config} | {mode} | refused: {s.get('reason', '?')} | | | | | | |"
        mode += f" (stopped: {s.get('reason', '?')})"
    sigs = [c.get("signature", "?") for c in s.get("classes", [])]
    ref = (s.get("fs") or ["?"])[0]
    on_ref = sum(1 for g in sigs if len(g.split()) > 1 and g.split()[1] == ref)
    classes = f"{len(sigs)} ({on_ref} of the reference)" if sigs else "0"
    crash = count_lines(log, "crash ")
    faults = count_lines(log, "faulted ")
    together = s.get("together", {}).get("steps", 0)
    return (f"| {config} | {mode} | {s.get('ops', 0)} | {s.get('seconds', 0):.0f} | "
            f"{s.get('ops_per_s', 0)} | {crash} | {faults} | {together} | {classes} |")


def main():
    out = sys.argv[1]
    names = sorted(f[:-len(".status")] for f in os.listdir(out) if f.endswith(".status"))
    names.sort(key=lambda n: (n.rsplit("-", 1)[0], MODES.index(n.rsplit("-", 1)[1])
                              if n.rsplit("-", 1)[1] in MODES else 9))
    print("| config | mode | steps | s | steps/s | crash states checked | fault checks | concurrent steps | classes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in names:
        print(row(out, n))


if __name__ == "__main__":
    main()
