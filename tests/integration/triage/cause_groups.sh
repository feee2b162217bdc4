#!/usr/bin/env bash
# One cause, one group: a RefFS mutant that flips other-execute in every new entry's mode,
# which shows as several classes (create_file and mkdir: "state mode") of the one known
# delta's difference. They come out as one group,
# "delta:mode-bits-0001 mut", in summary.json, the summary line, classes.txt,
# report.html (as Chromium renders it) and the JUnit file; `metis known add --groups` records the
# group once, and a known file with that one group record marks every class of it known.
. "$(dirname "$0")/../../lib/common.sh"
need_tools python3 chromium xmllint
B=$METIS_BIN
[ -x "$B/metis" ] || skip "$B/metis is not built"
[ -x "$B/reffs-mutant" ] || skip "$B/reffs-mutant is not built"
[ -w /dev/fuse ] || skip "no /dev/fuse"
CFG=$METIS_ROOT/tests/fixtures/triage/mutant-new-mode.ini
KEY="delta:mode-bits-0001 mut"
export METIS_REFFS_BIN=$METIS_ROOT/tests/mutations/reffs-pick.sh

run() {  # NAME ARGS...: the fixture for 8 s into $T/NAME, exit $WANT (1) wanted
    local name=$1; shift
    FAIL_LOG=$T/$name.out
    timeout -k 5 200 "$B/metis" run "$CFG" --seconds 8 --out "$T/$name" --junit "$T/$name.xml" "$@" \
        >"$T/$name.out" 2>&1
    local rc=$?
    [ $rc = "${WANT:-1}" ] || fail "$name: metis run exited $rc, want ${WANT:-1}"
    assert_no_leftovers "$(run_id_of "$T/$name.out")"
}
members() {  # RUN: the ids of the group's classes in summary.json, checked against "groups"
    python3 - "$1/summary.json" "$KEY" <<'PY'
import json, sys
s, key = json.load(open(sys.argv[1])), sys.argv[2]
ids = [c["class"] for c in s["classes"] if c["group"] == key]
groups = {g["group"]: g for g in s["groups"]}
assert len(groups) == s["discrepancy_groups"] < s["discrepancy_classes"], s["groups"]
assert groups[key]["classes"] == ids, (groups[key], ids)
assert groups[key]["hits"] == sum(c["hits"] for c in s["classes"] if c["group"] == key)
for c in s["classes"]:
    assert c["group"] == c["signature"] or c["cause"], c   # a group of its own, or a cause
print(" ".join(map(str, ids)))
PY
}

# 1. Several classes, one group.
run r1
ids=$(members "$T/r1") || fail "r1: summary.json's groups"
n=$(echo $ids | wc -w)
[ "$n" -ge 2 ] || fail "r1: $n class(es) in the mode group, want several"
grep -q "classes=[0-9]* groups=[0-9]*\$" "$T/r1.out" || fail "r1: the summary line does not count groups"
c=$T/r1/classes.txt
grep -q "^[0-9]* classes in [0-9]* groups\? " "$c" || fail "classes.txt does not say how many groups"
g=$(sed -n "s/^\(g[0-9]*\) $KEY: $n classes (\([0-9 ]*\)), [0-9]* hits: a known delta's difference (mode bits 0001).*/\1/p" "$c")
[ -n "$g" ] || fail "classes.txt has no line for the group"
# its rows follow each other in the table, each naming the group
rows=$(sed -n '2,/^$/p' "$c" | grep -n " $g  *\(bites\|DOES NOT BITE\|not run\|no reproducer\)" | cut -d: -f1)
[ "$(echo $rows | wc -w)" = "$n" ] || fail "classes.txt: $(echo $rows | wc -w) table rows in $g, want $n"
[ $(( $(echo $rows | awk '{ print $NF }') - $(echo $rows | awk '{ print $1 }') + 1 )) = "$n" ] ||
    fail "classes.txt: the rows of $g are not together"
[ "$(grep -c "^  group: $g $KEY\$" "$c")" = "$n" ] || fail "classes.txt: not every panel names its group"

# report.html as Chromium renders it: the groups' table and the class rows of the group.
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-sync \
    --user-data-dir="$T/profile" --dump-dom "file://$T/r1/report.html" >"$T/dom" 2>/dev/null ||
    fail "chromium could not load the report"
python3 - "$T/dom" "$KEY" "$n" <<'PY' || fail "report.html does not group the classes"
import html.parser, sys
key, n = sys.argv[2], int(sys.argv[3])
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.groups, self.rows, self.cell, self.count = {}, [], None, ""
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "tr" and a.get("class") == "group-row": self.groups[a["id"]] = {}; self.cur = self.groups[a["id"]]
        elif tag == "tr" and a.get("class") == "class-row": self.rows.append(a["data-group"]); self.cur = None
        if tag == "td" and getattr(self, "cur", None) is not None: self.cell = a.get("class", "n"); self.cur[self.cell] = ""
        if a.get("id") == "class-count": self.cell = "count"
    def handle_endtag(self, tag):
        if tag in ("td", "p"): self.cell = None
    def handle_data(self, d):
        if self.cell == "count": self.count += d
        elif self.cell and getattr(self, "cur", None) is not None: self.cur[self.cell] += d
p = Page(); p.feed(open(sys.argv[1]).read())
mine = [g for g, cells in p.groups.items() if cells.get("mono key") == key]
assert len(mine) == 1, p.groups
gid = "g" + mine[0].split("-")[1]
assert len(p.groups[mine[0]]["members"].split()) == n, p.groups[mine[0]]
assert "known delta" in p.groups[mine[0]]["cause"], p.groups[mine[0]]
at = [i for i, g in enumerate(p.rows) if g == gid]
assert len(at) == n and at[-1] - at[0] == n - 1, (p.rows, gid)
assert "group" in p.count and str(len(p.groups)) in p.count, p.count
print(p.count.strip(), "|", gid, "rows", at)
PY

# JUnit: valid, and the group's classes share a class name (a test view lists them together).
xmllint --noout --schema tests/junit.xsd "$T/r1.xml" 2>"$T/xmllint.err" ||
    { cat "$T/xmllint.err"; fail "r1.xml does not validate against tests/junit.xsd"; }
[ "$(grep -c "classname=\"metis.mutant-new-mode.group.$KEY\"" "$T/r1.xml")" = "$n" ] ||
    fail "JUnit: the group's classes do not share their class name"

# 2. metis known add --groups: one record for the group, a class record for the others.
"$B/metis" known add "$T/r1" --groups --note "planted mode flip" --to "$T/all.known" >"$T/add.out" ||
    fail "known add --groups failed"
[ "$(grep -c "^group: $KEY\$" "$T/all.known")" = 1 ] || fail "known add --groups did not record the group once"
python3 - "$T/r1/summary.json" "$T/all.known" "$KEY" <<'PY' || fail "known add --groups: a class of the group has a record of its own"
import json, sys
s, key = json.load(open(sys.argv[1])), sys.argv[3]
records = [l[7:].rstrip("\n") for l in open(sys.argv[2]) if l.startswith("class: ")]
assert not [r for r in records if any(c["signature"] == r and c["group"] == key for c in s["classes"])]
assert sorted(records) == sorted(c["signature"] for c in s["classes"] if c["group"] == c["signature"]), records
PY

# 3. A known file of the group record alone: every class of the group is known, the others new.
printf '# one verdict for one cause\ngroup: %s\nnote: planted mode flip\n' "$KEY" >"$T/group.known"
export REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"
sed 's/^shrink_seconds = 0$/shrink_seconds = 12/' "$CFG" >"$T/triaged.ini"   # reproducers too
# every class is of the group, so every class is known: exit 0
CFG=$T/triaged.ini WANT=0 run r2 --known "$T/group.known"
python3 - "$T/r2/summary.json" "$KEY" <<'PY' || fail "r2: the group record does not mark its classes known"
import json, sys
s, key = json.load(open(sys.argv[1])), sys.argv[2]
mine = [c for c in s["classes"] if c["group"] == key]
assert len(mine) >= 2, [c["signature"] for c in s["classes"]]
assert all(c["known"] and c["note"] == "planted mode flip" for c in mine), mine
assert all(not c["known"] for c in s["classes"] if c["group"] != key)
assert s["known_classes"] == len(mine) and s["known_not_seen"] == [], s["known_classes"]
print(len(mine), "known by one record")
PY
k=$(python3 -c 'import json,sys; print(sum(c["known"] for c in json.load(open(sys.argv[1]))["classes"]))' "$T/r2/summary.json")
grep -q "^g[0-9]* $KEY: .* \[known\]\$" "$T/r2/classes.txt" || fail "r2: classes.txt does not mark the group known"
[ "$(grep -c '\[known: planted mode flip\]$' "$T/r2/classes.txt")" = "$k" ] || fail "r2: classes.txt does not mark each class"
[ "$(grep -c '<skipped message="planted mode flip"/>' "$T/r2.xml")" = "$k" ] || fail "r2: JUnit does not skip the group's classes"
grep -q "known=$k not_seen=0\$" "$T/r2.out" || fail "r2: the summary line does not count them known"
# metis-replay recheck of the group record runs the reproducer of each class of the group.
"$B/metis-replay" recheck "$T/group.known" "$T/r2" --timeout 60 >"$T/recheck.out" 2>&1
[ "$(grep -c '^\(fixed\|still fails\|cannot run\): .*mut state ' "$T/recheck.out")" = "$k" ] ||
    { cat "$T/recheck.out"; fail "recheck of the group record did not run each class's reproducer"; }
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "reproducer files left behind"
echo "ok: $n classes in the group ($ids); one group record marks $k known"
