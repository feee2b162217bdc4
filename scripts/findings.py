#!/usr/bin/env python3
"""Writes FINDINGS.md from a campaign's runs and the target profiles' verdict files (scripts/campaign.sh calls it); --together writes its concurrent run's section alone."""
import json
import os
import re
import sys

import cause_check

VERDICTS = {"bug": "bug", "design": "documented design difference",
            "false-positive": "Metis false positive"}


def header(profile, key):
    """The value of the profile's '; key: value' header line with its indented continuation
    lines (';   more'), or ''."""
    value = None
    with open(profile) as f:
        for line in f:
            if value is not None:
                m = re.match(r";\s{3,}(\S.*)", line)
                if not m:
                    break
                value += " " + m.group(1).strip()
                continue
            m = re.match(r";\s*%s:\s*(.*)" % re.escape(key), line)
            if m:
                value = m.group(1).strip()
    return value or ""


def read_known(path):
    """{signature: {'note':..., 'link':...}} from a known-classes file (class:/note:/link: lines)."""
    known, cur = {}, None
    if not os.path.exists(path):
        return known
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"(class|note|link):\s*(.*)", line)
            if not m:
                continue
            key, val = m.group(1), m.group(2).strip()
            if key == "class":
                cur = known.setdefault(val, {"note": "", "link": ""})
            elif cur is not None:
                cur[key] = (cur[key] + " " + val).strip()
    return known


def verdict_of(note):
    """(verdict, the rest of the note): the note's first word names the verdict ("bug: ...",
    "bug, not found upstream: ...")."""
    m = re.match(r"\s*([a-z-]+)[:,]?\s*(.*)", note, re.S)
    if m and m.group(1).lower() in VERDICTS:
        return VERDICTS[m.group(1).lower()], m.group(2)
    return None, note


def read_file(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def class_rows(summary, known):
    """Markdown rows for the run's classes, and how many lack a verdict."""
    rows, missing = [], 0
    for c in summary.get("classes", []):
        entry = known.get(c["signature"])
        verdict, text = verdict_of(entry["note"]) if entry else (None, "")
        if not verdict:
            missing += 1
        link = " (%s)" % entry["link"] if entry and entry["link"] else ""
        shrunk = "%s ops" % c["trace_ops"] if c.get("trace_ops") else "not shrunk"
        rows.append("| `%s` | %d | %s | %s | %s%s |" % (
            c["signature"], c.get("hits", 0), shrunk, verdict or "**NO VERDICT**",
            text.replace("|", "\\|"), link))
    return rows, missing


def unseen_rows(summary, known):
    seen = {c["signature"] for c in summary.get("classes", [])}
    return ["| `%s` | 0 (not met this time) | | %s | %s%s |" % (
        sig, verdict_of(e["note"])[0] or "**NO VERDICT**", verdict_of(e["note"])[1].replace("|", "\\|"),
        " (%s)" % e["link"] if e["link"] else "") for sig, e in known.items() if sig not in seen]


def run_summary(out_dir, profile):
    """(name, run directory, its summary.json or None) of a profile's run."""
    name = os.path.basename(profile)[:-4]
    run = os.path.join(out_dir, name)
    try:
        with open(os.path.join(run, "summary.json")) as f:
            return name, run, json.load(f)
    except (OSError, ValueError):
        return name, run, None


def target_section(out_dir, profile):
    name, run, summary = run_summary(out_dir, profile)
    status = read_file(os.path.join(run, "campaign-status"), "not run")
    lines = ["## %s" % name, ""]
    pkg = header(profile, "package")
    lines.append("- Target: %s %s; reference: %s" % (
        pkg or name, read_file(os.path.join(run, "campaign-version"), "(version unknown)"),
        header(profile, "reference") or "(see the profile)"))
    lines.append("- Profile: `configs/targets/%s.ini`; verdicts: `configs/targets/%s.known`" % (name, name))
    if status == "not installed":
        return lines + ["- Not installed on the campaign machine: not run.", ""], 0
    if summary is None:
        return lines + ["- Run: %s, no summary.json (see %s)." % (status, run), ""], 1
    lines.append("- Run: %s, %s s, %d operations, %.1f ops/s, %d searches, %d classes" % (
        status, summary.get("seconds"), summary.get("ops", 0), summary.get("ops_per_s", 0.0),
        summary.get("searches", 0), len(summary.get("classes", []))))
    known = read_known(profile[:-4] + ".known")
    rows, missing = class_rows(summary, known)
    lines += ["", "| class | hits | shrunk trace | verdict | why |", "|---|---|---|---|---|"]
    lines += rows + unseen_rows(summary, known) + [""]
    return lines, missing + (0 if status in ("exit 0", "exit 1") else 1)


def overview_row(out_dir, profile):
    """One line of the opening table: target, version, reference, ops, ops/s, verdict counts."""
    name, run, summary = run_summary(out_dir, profile)
    version = read_file(os.path.join(run, "campaign-version"), "?")
    if summary is None:
        return "| %s | %s | %s | not run | | | |" % (name, version, read_file(
            os.path.join(run, "campaign-status"), "not run"))
    known = read_known(profile[:-4] + ".known")
    counts = {v: 0 for v in VERDICTS.values()}
    for c in summary.get("classes", []):
        v = verdict_of(known[c["signature"]]["note"])[0] if c["signature"] in known else None
        if v:
            counts[v] += 1
    ref = header(profile, "reference").split(":")[0]
    return "| %s | %s | %s | %d | %.1f | %d | %d bug, %d design, %d false positive |" % (
        name, version, ref, summary.get("ops", 0), summary.get("ops_per_s", 0.0),
        len(summary.get("classes", [])), counts["bug"], counts["documented design difference"],
        counts["Metis false positive"])


TOGETHER_HEADING = "## Concurrent steps"


def split_together(text):
    """(text without its concurrent-steps section, that section) of a FINDINGS.md: the section
    runs from its heading to the next '## ' heading or the end."""
    lines = text.split("\n")
    start = next((k for k, l in enumerate(lines) if l.startswith(TOGETHER_HEADING)), None)
    if start is None:
        return text, ""
    end = next((k for k in range(start + 1, len(lines)) if lines[k].startswith("## ")), len(lines))
    return "\n".join(lines[:start] + lines[end:]), "\n".join(lines[start:end]).rstrip("\n")


def with_together(text, section):
    """text with section put before the Metis false positives (the tail), else at the end."""
    if not section:
        return text
    lines = text.rstrip("\n").split("\n")
    at = next((k for k, l in enumerate(lines) if l.startswith("## Metis false positives")), len(lines))
    return "\n".join(lines[:at] + section.split("\n") + [""] + lines[at:]) + "\n"


def together_row(name, summary):
    t = summary.get("together", {})
    new = [c for c in summary.get("classes", []) if c["signature"].startswith("together ")]
    return "| %s | %d | %.1f | %d | %d | %d | %d | %d | %d |" % (
        name, summary.get("ops", 0), summary.get("ops_per_s", 0.0), t.get("steps", 0),
        t.get("tries", 0), t.get("failed", 0), t.get("orders_run", 0),
        len(summary.get("classes", [])), len(new))


def together_section(out_dir, share, profiles):
    """The concurrent run's section: a row per target, then each target's classes with their
    verdicts (those its sequential section lists too, and any a concurrent step found)."""
    lines = ["%s (`--together %s`)" % (TOGETHER_HEADING, share), "",
             "Written by `CAMPAIGN_TOGETHER=%s scripts/campaign.sh` from the runs in `%s`: every "
             "profile again with that share of its steps concurrent (README, \"Races\"; "
             "configs/README.md, \"Concurrent steps\"), its verdict file as `--known`. A class "
             "`together OPS FS not serializable` is one no serial order of the calls explains; "
             "every other class is met by the steps of one call, as in the sequential run." %
             (share, out_dir), ""]
    conditions = os.path.join(out_dir, "conditions.md")
    if os.path.exists(conditions):
        lines += [read_file(conditions), ""]
    lines += ["| target | operations | ops/s | concurrent steps | tries | unexplained | serial "
              "orders run | classes | `together` classes |", "|---|---|---|---|---|---|---|---|---|"]
    detail, problems = [], 0
    for p in profiles:
        name, run, summary = run_summary(out_dir, p)
        status = read_file(os.path.join(run, "campaign-status"), "not run")
        if summary is None:
            lines.append("| %s | %s | | | | | | | |" % (name, status))
            problems += status != "not installed"
            continue
        lines.append(together_row(name, summary))
        rows, missing = class_rows(summary, read_known(p[:-4] + ".known"))
        problems += missing + (0 if status in ("exit 0", "exit 1") else 1)
        if rows:
            detail += ["", "### %s, concurrent run" % name, "",
                       "| class | hits | shrunk trace | verdict | why |", "|---|---|---|---|---|"] + rows
    return "\n".join(lines + detail), problems


def main_together(argv):
    """findings.py --together SHARE CAMPAIGN_DIR FINDINGS.md PROFILE...: rewrites only the
    concurrent-steps section of FINDINGS.md."""
    share, out_dir, dest, profiles = argv[0], argv[1], argv[2], argv[3:]
    section, problems = together_section(out_dir, share, profiles)
    rest, _ = split_together(read_file(dest) + "\n")
    with open(dest, "w") as f:
        f.write(with_together(rest, section))
    print("campaign: wrote the concurrent steps of %s (%d problem%s: classes without a verdict or "
          "runs that failed)" % (dest, problems, "" if problems == 1 else "s"))
    sys.exit(1 if problems else 0)


CAUSES_HEADING = "## Causes"
CLASSES_HEADING = "## Classes per target"


# Hand-written sections FINDINGS.md ends with, relative to the profiles' folder, in order:
# findings outside the campaign's runs (fault steps on kernel and image-backed FUSE file
# systems; the feature-matrix campaign, whose file stays beside its configs), then Metis's own
# false positives and their fixes. Each starts with its '## ' heading.
HAND_SECTIONS = ("kernel-faults.md", "../matrix/CAMPAIGN.md", "metis-fixes.md")


def hand_sections(here):
    """The texts of the hand-written sections that exist, in HAND_SECTIONS order."""
    paths = [os.path.join(here, name) for name in HAND_SECTIONS]
    return [read_file(p).rstrip("\n") for p in paths if os.path.exists(p)]


def put_section(text, section):
    """text with section in place of the one under the same heading (its own '## ' headings
    skipped), or, if none, put before the concurrent steps or the Metis false positives."""
    lines, new = text.rstrip("\n").split("\n"), section.split("\n")
    own = sum(1 for l in new if l.startswith("## "))
    start = next((k for k, l in enumerate(lines) if l == new[0]), None)
    if start is None:
        at = next((k for k, l in enumerate(lines) if l.startswith(TOGETHER_HEADING)
                   or l.startswith("## Metis false positives")), len(lines))
        return "\n".join(lines[:at] + new + [""] + lines[at:]) + "\n"
    heads = [k for k in range(start, len(lines)) if lines[k].startswith("## ")]
    end = heads[own] if len(heads) > own else len(lines)
    return "\n".join(lines[:start] + new + [""] + lines[end:]) + "\n"


def main_causes(argv):
    """findings.py --causes FINDINGS.md PROFILE_DIR: rewrites only FINDINGS.md's cause table
    (from its heading to the classes' heading) from PROFILE_DIR/causes.md and its hand-written
    sections (HAND_SECTIONS), then checks the table's bug rows; the classes stay those of the
    campaign's runs, which need not be on this host."""
    dest, here = argv[0], argv[1]
    table = os.path.join(here, "causes.md")
    text = read_file(dest)
    start, end = text.find(CAUSES_HEADING), text.find(CLASSES_HEADING)
    if start < 0 or end < start:
        sys.exit("findings.py: %s has no '%s' section before '%s'" % (dest, CAUSES_HEADING, CLASSES_HEADING))
    text = text[:start] + read_file(table) + "\n\n" + text[end:] + "\n"
    for section in hand_sections(here):
        text = put_section(text, section)
    with open(dest, "w") as f:
        f.write(text)
    bad = cause_check.check(os.path.dirname(os.path.dirname(os.path.abspath(here))), table)[0]
    for line in bad:
        print("findings: " + line, file=sys.stderr)
    print("findings: wrote the cause table of %s (%d problem%s)" % (dest, len(bad), "" if len(bad) == 1 else "s"))
    sys.exit(1 if bad else 0)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--causes":
        if len(sys.argv) != 4:
            sys.exit("usage: findings.py --causes FINDINGS.md PROFILE_DIR")
        main_causes(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "--together":
        if len(sys.argv) < 6:
            sys.exit("usage: findings.py --together SHARE CAMPAIGN_DIR FINDINGS.md PROFILE...")
        main_together(sys.argv[2:])
    if len(sys.argv) < 4:
        sys.exit("usage: findings.py CAMPAIGN_DIR FINDINGS.md PROFILE...")
    out_dir, dest, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    body, problems = [], 0
    for p in profiles:
        lines, n = target_section(out_dir, p)
        body += lines
        problems += n
    head = ["# Findings on file systems nobody here wrote", "",
            "Written by `make campaign` (scripts/campaign.sh) from the runs in `%s` and the verdicts "
            "in `configs/targets/*.known`. A **bug** names its upstream fix or issue, or says "
            "\"not found upstream\"; a **documented design difference** is declared in the profile "
            "or kept as a known class; a **known limitation** is a behaviour upstream chose; a "
            "**Metis false positive** was fixed in Metis." %
            os.path.relpath(out_dir, os.path.dirname(os.path.abspath(dest))), ""]
    # The cause table opens the file (hand-written beside the profiles: one row per cause, its
    # upstream status and confirmation; the counts there are of causes), then the campaign's
    # classes per target.
    here = os.path.dirname(os.path.abspath(profiles[0]))
    if os.path.exists(os.path.join(here, "causes.md")):
        head += [read_file(os.path.join(here, "causes.md")), "", CLASSES_HEADING, ""]
    # What the runs' figures depend on (machine, load, what ran beside them), if recorded.
    conditions = os.path.join(out_dir, "conditions.md")
    if os.path.exists(conditions):
        head += [read_file(conditions).rstrip("\n"), ""]
    # Hand-written sections beside the profiles: findings outside the campaign's runs (fault
    # steps on kernel and image-backed FUSE file systems), then Metis's own false positives and their fixes.
    tail = []
    for section in hand_sections(here):
        tail += ["", section]
    table = ["Classes, not causes: one cause can show as many classes (the cause table above).", "",
             "| target | version | reference | operations | ops/s | classes | verdicts of the classes |",
             "|---|---|---|---|---|---|---|"] + [overview_row(out_dir, p) for p in profiles] + [""]
    # A concurrent run's section (main_together) stays: it is of another campaign's runs.
    kept = split_together(read_file(dest))[1] if os.path.exists(dest) else ""
    with open(dest, "w") as f:
        f.write(with_together("\n".join(head + table + body + tail) + "\n", kept))
    # A bug row without its cause location, search record or confirmation fails the campaign.
    table = os.path.join(here, "causes.md")
    bad = cause_check.check(os.path.dirname(os.path.dirname(here)), table)[0] if os.path.exists(table) else []
    for line in bad:
        print("campaign: " + line, file=sys.stderr)
    problems += len(bad)
    print("campaign: wrote %s (%d problem%s: classes without a verdict, runs that failed, or bug "
          "causes without a location, search record or confirmation)" % (
              dest, problems, "" if problems == 1 else "s"))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
