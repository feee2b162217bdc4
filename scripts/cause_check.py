#!/usr/bin/env python3
"""Checks the cause table (configs/targets/causes.md): every "bug" row names its cause's code location, an upstream search record and a confirmation under tests/; findings.py runs it, so make campaign fails on a row without them."""
import os
import re
import sys

# Markers that make a row something other than a bug (the cause or status column says so).
NOT_BUG = ("**withdrawn", "**unconfirmed**", "**known limitation**")
# A source file named in the text (a file:line, or a file then its function).
SOURCE = re.compile(r"[\w./+-]+\.(?:c|cc|cpp|h|hpp|go|rs|py)\b")
COMMIT_OR_LINK = re.compile(r"https?://\S+|\bcommits?\s+[0-9a-f]{7,40}\b|\b(?:issue|PR)\s+#?\d+\b|\b[0-9a-f]{8,40}\b")
REPORT = re.compile(r"\((configs/targets/reports/[\w./+-]+\.md)\)")
TEST_PATH = re.compile(r"`(tests/[\w./+-]+)`")


def cells(line):
    """A table row's cells, an escaped \\| staying inside its cell."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip() for p in parts[1:-1]]


def rows(path):
    """(line number, cells) of every data row of the cause table."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("| ") and not line.startswith("| component") and "---" not in line[:8]:
                out.append((n, cells(line)))
    return out


def section(text, heading):
    """The body of a report's '## heading' section, '' if it has none."""
    m = re.search(r"^## %s[^\n]*\n(.*?)(?=^## |\Z)" % re.escape(heading), text, re.S | re.M)
    return m.group(1).strip() if m else ""


def report_text(top, status_and_cause):
    m = REPORT.search(status_and_cause)
    if not m:
        return None, None
    path = os.path.join(top, m.group(1))
    try:
        with open(path) as f:
            return m.group(1), f.read()
    except OSError:
        return m.group(1), None


def row_problems(top, cols):
    """What a bug row lacks, as short phrases ([] when it has everything)."""
    component, cause, status, confirmation = cols[0], cols[1], cols[3], cols[4]
    name, report = report_text(top, cause + " " + status)
    missing = []
    if name and report is None:
        missing.append("its report %s does not exist" % name)
    not_found = "not found upstream" in status
    if not_found and not report:
        missing.append("a report (a cause not found upstream links configs/targets/reports/NAME.md)")
    located = SOURCE.search(cause) or (report and SOURCE.search(section(report, "Code location")))
    if not located:
        missing.append("a cause location (a source file and function in the cause or its report's \"Code location\")")
    searched = (report and section(report, "Upstream search")) if not_found else COMMIT_OR_LINK.search(status)
    if not searched:
        missing.append("a search record (a fix or issue link, or the report's \"Upstream search\")")
    paths = TEST_PATH.findall(confirmation)
    if not paths or not all(os.path.exists(os.path.join(top, p)) for p in paths):
        missing.append("a confirmation (an existing `tests/...` path in the confirmation column)")
    return missing


def check(top, table):
    """Problem lines for the table's bug rows; the number of bug rows."""
    problems, bugs = [], 0
    for n, cols in rows(table):
        if len(cols) != 6:
            problems.append("%s:%d: %d columns, want 6" % (table, n, len(cols)))
            continue
        if any(mark in cols[1] + cols[3] for mark in NOT_BUG):
            continue
        bugs += 1
        for what in row_problems(top, cols):
            problems.append("%s:%d: bug '%s' lacks %s" % (table, n, cols[0][:60], what))
    return problems, bugs


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cause_check.py TOP CAUSES.md")
    problems, bugs = check(sys.argv[1], sys.argv[2])
    for p in problems:
        print(p, file=sys.stderr)
    print("cause table: %d bug rows, %d problem%s" % (bugs, len(problems), "" if len(problems) == 1 else "s"))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
