#!/usr/bin/env bash
# One group per cause for what a target does not implement: bindfs --xattr-none (every xattr
# call EOPNOTSUPP, every fallocate mode EOPNOTSUPP, rename flags EINVAL) against RefFS makes a
# group per operation family, whatever the reference answered (setxattr's 0, EEXIST, ENODATA
# were a group each), and classes.txt's first page ends with the lacks = line that declares
# every refusal seen: a second run with that line pasted in finds nothing.
. "$(dirname "$0")/../../lib/common.sh"
need_tools bindfs python3
[ -w /dev/fuse ] || skip "no /dev/fuse"
config() {   # $1 = the lacks line of bindfs (or nothing)
  cat <<INI
[run]
ops = 800
keep_going = 1
shrink_seconds = 0
[fs reffs]
type = reffs
[fs bindfs]
type = fuse
mount_cmd = bindfs --xattr-none $T/backing {mnt}
$1
[pool]
dirs = 1
files = 2
depth = 1
[ops]
fallocate_file = 3
setxattr = 4
removexattr = 3
rename = 3
chmod = 0
chown_file = 0
chgrp_file = 0
link = 0
mknod = 0
copy_range = 0
open_unlink = 0
[bits]
mode = ur:1 uw:1 ux:0.5 gr:0.5 gw:0.5 gx:0.5 or:0.5 ox:0.5
INI
}
run() {   # $1 = name, $2 = the lacks line; sets rc
  rm -rf "$T/backing" && mkdir "$T/backing"
  config "$2" >"$T/$1.ini"
  FAIL_LOG=$T/$1.out
  timeout -k 5 200 "$METIS_BIN/metis" run "$T/$1.ini" --seed 1 --out "$T/$1" >"$T/$1.out" 2>&1
  rc=$?
  assert_no_leftovers "$(run_id_of "$T/$1.out")"
}
run without ''
[ $rc = 1 ] || fail "without lacks: metis run exited $rc, want 1"
python3 - "$T/without/summary.json" <<'PY' || fail "the refusals are not one group per operation family"
import json, sys
s = json.load(open(sys.argv[1]))
refusals = [c for c in s["classes"] if c["errno"] in ("EOPNOTSUPP", "ENOTSUP", "EINVAL")]
assert refusals, s["classes"]
families = {"setxattr": "xattrs", "removexattr": "xattrs", "fallocate_file": "fallocate",
            "rename": "rename"}
for c in refusals:
    assert c["group"] == "lacks:%s bindfs" % families[c["operation"]], c
    assert c["lacks"], c
xattr = [c for c in refusals if c["lacks"] == "xattrs"]
answers = {c["reference_errno"] for c in xattr}
assert len(answers) >= 2, answers          # the reference answered otherwise, one group all the same
assert s["discrepancy_groups"] <= 3 + len(s["classes"]) - len(refusals), s["groups"]
print(len(s["classes"]), "classes,", s["discrepancy_groups"], "groups; xattr answers", answers)
PY
# The first page: the groups, then the line to paste, then the classes one by one.
page=$(sed -n '/^[0-9]* class.* in [0-9]* group/,/^class [0-9]*:/p' "$T/without/classes.txt")
line=$(grep '^lacks = ' <<<"$page")
[ -n "$line" ] || fail "classes.txt's first page has no lacks = line"
[ "$(grep -v '^class [0-9]*:' <<<"$page" | grep -v '^$' | tail -n1)" = "$line" ] ||
  fail "the first page does not end with the lacks = line"
grep -q "declare in \[fs bindfs\]:" <<<"$page" || fail "the lacks line does not name its [fs]"
for w in xattrs fallocate: rename:; do
  grep -q "$w" <<<"$line" || fail "the lacks line lacks $w: $line"
done
grep -q "^$line\$" "$T/without.out" || fail "the lacks line is not printed at the end of the run"
# report.html's first page: the same words after the groups' table, before the first panel.
python3 - "$T/without/report.html" "$line" <<'PY' || fail "report.html has no lacks line after its groups"
import re, sys
page, line = open(sys.argv[1]).read(), sys.argv[2]
at = page.find('<p class="lacks-line">')
assert page.find('id="group-table"') < at < page.find('<div id="class-'), at
shown = re.search(r'<code>lacks = ([^<]*)</code>', page[at:]).group(1)
assert sorted(shown.split(", ")) == sorted(line[len("lacks = "):].split(", ")), (shown, line)
PY
run with "$line"
[ $rc = 0 ] || fail "with the pasted line ($line): metis run exited $rc, want 0"
exit 0
