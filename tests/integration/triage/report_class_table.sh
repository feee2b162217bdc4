#!/usr/bin/env bash
# report.html and classes.txt open with the table of classes: one row per class with its shrunk
# length, where its trace starts and its reproducer's verdict (run once after the triage: exit
# 1 on the fs under test, 0 on the reference); flags are decoded by name in the detail file, the
# report and the reproducer's comments, while log.txt keeps the numbers.
. "$(dirname "$0")/../../lib/common.sh"
need_tools chromium python3 cc
B=$METIS_BIN
for b in metis metis-replay reffs reffs-mutant; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
export REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"
"$B/metis" run "$METIS_ROOT/tests/fixtures/defects/xattr-defects.ini" --seconds 6 --out "$T/run" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || { tail -20 "$T/out"; fail "metis run exited $rc, want 1"; }
n=$(json_field "$T/run/summary.json" discrepancy_classes)
[ "$n" = 2 ] || fail "$n classes, want the two planted ones"

# summary.json: each class's shrunk length, start and verdict.
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json lacks the triage's keys"
import json, sys
for c in json.load(open(sys.argv[1]))["classes"]:
    assert 1 <= c["trace_ops"] <= 4, c
    assert c["trace_start"], c
    assert c["shrink_s"] >= 0, c
    assert (c["repro_exit_target"], c["repro_exit_reference"]) == (1, 0), c
PY

# classes.txt: the table first (a header and one row per class), the panels after it.
head -1 "$T/run/classes.txt" | grep -q '^class  *signature  *hint  *hits  *first-op  *shrunk  *starts-from' ||
    fail "classes.txt does not open with the table's header"
rows=$(sed -n '2,/^$/p' "$T/run/classes.txt" | grep -c 'bites (1/0)$')
[ "$rows" = 2 ] || { head -4 "$T/run/classes.txt"; fail "classes.txt: $rows table rows that bite, want 2"; }
[ "$(grep -c '^class [0-9]*: ' "$T/run/classes.txt")" = 2 ] || fail "classes.txt: not one panel per class"

# report.html, as a browser sees it.
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-sync \
    --user-data-dir="$T/profile" --dump-dom "file://$T/run/report.html" >"$T/dom" 2>/dev/null ||
    fail "chromium could not load the report"
python3 - "$T/dom" <<'PY' || fail "report.html: the class table is not what the triage made"
import html.parser, sys
class Table(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.rows, self.cell, self.inside, self.first = [], None, False, None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "table" and a.get("id") == "class-table": self.inside = True
        if self.first is None and (a.get("id") == "class-table" or a.get("class") == "disc"):
            self.first = a.get("id") or a.get("class")
        if self.inside and tag == "tr" and a.get("class") == "class-row": self.rows.append({})
        if self.inside and tag == "td" and self.rows: self.cell = a.get("class", "id"); self.rows[-1][self.cell] = ""
    def handle_endtag(self, tag):
        if tag == "table": self.inside = False
        if tag == "td": self.cell = None
    def handle_data(self, d):
        if self.cell and self.rows: self.rows[-1][self.cell] += d
t = Table(); t.feed(open(sys.argv[1]).read())
assert t.first == "class-table", "the table does not come before the panels: %s" % t.first
assert len(t.rows) == 2, t.rows
for r in t.rows:
    print(r["mono sig"], "|", r["shrunk"], "|", r["start"], "|", r["verdict status-ok"])
    assert r["shrunk"].isdigit() and 1 <= int(r["shrunk"]) <= 4, r
    assert r["verdict status-ok"].startswith("bites (1 on the target, 0 on the reference)"), r
assert any("flags=XATTR_REPLACE" in r["mono first-op"] for r in t.rows), "no decoded flags in the table"
PY
grep -q 'flags=XATTR_REPLACE' "$T/dom" || fail "report.html: no decoded flags"
detail=$(grep -l '^operation [0-9]*: setxattr .*flags=0x2 .*(flags=XATTR_REPLACE)$' "$T/run"/discrepancy-*.txt) ||
    fail "the setxattr detail file does not decode its flags"
grep -q '^op [0-9]* depth=[0-9]* from=[0-9]* setxattr .*flags=0x2 ' "$T/run/log.txt" ||
    fail "log.txt no longer has the numeric flags its readers parse"
if grep -q 'flags=XATTR_' "$T/run/log.txt"; then fail "log.txt got decoded flags"; fi
grep -q 'setxattr .*flags=XATTR_REPLACE' "$T/run"/class-*-repro/repro.c ||
    fail "no reproducer comment decodes the flags"
echo "ok: the class table has 2 rows that bite; flags by name in $(basename "$detail"), the report and repro.c"
