# The table of tests/bench/targets/first_runs.sh: one row per first run (exit, where it stopped, operations, classes, groups, how many groups and classes have a short reproducer that bites), then per run why classes were left unshrunk and its first page's groups.
# usage: table.py OUT_DIR NAME...   (OUT_DIR/NAME/summary.json, OUT_DIR/NAME.rc, OUT_DIR/NAME.out)
import json
import os
import re
import sys
from collections import Counter

SHORT = 10  # "shrunk" means at most this many operations, as issue 45 counts it


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def summary(out, name):
    text = read(os.path.join(out, name, "summary.json"))
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def bites(c):
    """The reproducer exited 1 on the target (at least once) and 0 on the reference."""
    runs = c.get("repro_bites", 1 if c.get("repro_exit_target") == 1 else 0)
    return runs > 0 and c.get("repro_exit_reference", 0) == 0


def short_and_bites(c):
    shrunk = str(c.get("triage", "")).startswith("shrunk")
    return shrunk and 0 < c.get("trace_ops", SHORT + 1) <= SHORT and bites(c)


def why_not(c):
    """One short reason a class does not count as shrunk and biting."""
    triage = str(c.get("triage", ""))
    if not triage:
        return "no triage (the run ended before it)"
    if not triage.startswith("shrunk"):
        text = re.sub(r"^not shrunk[:( ]*", "", triage)
        text = re.sub(r"\d+(\.\d+)?", "N", text)
        return "not shrunk: " + text[:110]
    if c.get("trace_ops", 0) > SHORT:
        return f"shrunk to more than {SHORT} operations"
    target, ref = c.get("repro_exit_target", -1), c.get("repro_exit_reference", -1)
    if target == -1:
        return "shrunk, reproducer not run"
    if c.get("repro_why"):
        return f"reproducer does not bite ({c['repro_why'][:60]})"
    return f"reproducer does not bite (exit {target} on the target, {ref} on the reference)"


def last_error(out, name):
    """The last line of the run's output that says what went wrong, for a run with no summary."""
    lines = [l.strip() for l in read(os.path.join(out, name + ".out")).splitlines() if l.strip()]
    for line in reversed(lines):
        if re.search(r"error|fail|cannot|missing|skip|not ", line, re.I):
            return line[:120]
    return lines[-1][:120] if lines else "no output"


def stopped(s, rc, out, name):
    if s is None:
        return "no summary.json: " + last_error(out, name)
    where = "set-up" if s.get("ops", 0) == 0 and rc == 3 else f"op {s.get('ops', 0)}"
    reason = str(s.get("reason", ""))[:80]
    return f"{s.get('status', '?')} at {where}" + (f" ({reason})" if reason else "")


def row(out, name):
    rc = read(os.path.join(out, name + ".rc"), "-").strip()
    s = summary(out, name)
    if s is None:
        return [name, rc, stopped(s, rc, out, name), "-", "-", "-", "-", "-", "-"], [], []
    classes = s.get("classes", [])
    good = sum(1 for c in classes if short_and_bites(c))
    all_groups = {c.get("group", c.get("signature")) for c in classes}
    good_groups = {c.get("group", c.get("signature")) for c in classes if short_and_bites(c)}
    whys = Counter(why_not(c) for c in classes if not short_and_bites(c))
    groups = [(g.get("group", "?"), len(g.get("classes", []))) for g in s.get("groups", [])]
    cells = [name, rc, stopped(s, int(rc) if rc.isdigit() else rc, out, name), str(s.get("ops", 0)),
             str(s.get("searches", "-")), str(len(classes)), str(s.get("discrepancy_groups", len(groups))),
             f"{len(good_groups)}/{len(all_groups)}", f"{good}/{len(classes)}"]
    return cells, whys, groups


def main():
    out, names = sys.argv[1], sys.argv[2:]
    head = ["target", "exit", "stopped", "ops", "searches", "classes", "groups",
            f"groups with a biting <= {SHORT}-op reproducer", f"shrunk <= {SHORT} ops, bites"]
    rows = [row(out, n) for n in names]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for cells, _, _ in rows:
        print("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    total = [0, 0, 0, 0]
    for cells, _, _ in rows:
        for at, cell in ((0, cells[-1]), (2, cells[-2])):
            if "/" in cell:
                a, b = cell.split("/")
                total[at] += int(a)
                total[at + 1] += int(b)
    print(f"\nall: {total[0]} of {total[1]} classes shrunk to at most {SHORT} operations "
          f"with a reproducer that bites; {total[2]} of {total[3]} groups have one")
    for (cells, whys, groups) in rows:
        if not whys and not groups:
            continue
        print(f"\n{cells[0]}:")
        for why, n in whys.most_common():
            print(f"- {n} x {why}")
        if groups:
            print("- first page's groups: " + "; ".join(f"{g} ({n})" for g, n in groups))


if __name__ == "__main__":
    main()
