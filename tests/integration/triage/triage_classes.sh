#!/usr/bin/env bash
# Discrepancy classes and the triage of a keep-going run: a file system with two planted defects
# gives exactly two classes, each shrunk to at most 6 operations with a reproducer that exits 1
# on it and 0 on plain RefFS; a state-differing step is a leaf; a data-only defect's reproducer
# names the file and "content".
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis metis-replay reffs reffs-mutant; do
    [ -x "$B/$b" ] || { echo "skip: $B/$b is not built"; exit 77; }
done
[ -w /dev/fuse ] || { echo "skip: no /dev/fuse"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler for the reproducers"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
SECONDS_RUN=${TRIAGE_SECONDS:-30}
# The reproducers make their file systems here, so that leftovers of theirs can be told apart.
export REPRO_TMP=/dev/shm/metis-triage-test.$$
mkdir -p "$REPRO_TMP"
on_exit 'rmdir "$REPRO_TMP" 2>/dev/null'

classes() {  # RUN: "signature|hits|trace_ops|repro" per class
    python3 - "$1/summary.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["classes"]:
    print("%s|%d|%s|%s" % (c["signature"], c["hits"], c.get("trace_ops", ""), c.get("repro", "")))
PY
}

class_of() {  # RUN FIELD VALUE KEY: KEY of the class whose FIELD is VALUE
    python3 -c 'import json, sys
print([c[sys.argv[4]] for c in json.load(open(sys.argv[1] + "/summary.json"))["classes"]
       if str(c[sys.argv[2]]) == sys.argv[3]][0])' "$@"
}

# 1. The run: exactly the two planted defects, each once, however often they were hit.
"$B/metis" run tests/fixtures/defects/two-defects.ini --seconds "$SECONDS_RUN" --out "$T/run" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || { tail -20 "$T/out"; fail "metis run exited $rc, want 1"; }
rid=$(run_id_of "$T/out")
assert_no_leftovers "$rid"
classes "$T/run" >"$T/classes"
cat "$T/classes"
[ "$(json_field "$T/run/summary.json" discrepancy_classes)" = 2 ] || fail "not two classes"
[ "$(cut -d'|' -f1 "$T/classes" | sort | tr '\n' ';')" = "mkdir bad state mode;removexattr bad errno ENOENT, reference ENODATA;" ] ||
    fail "the classes are not the two planted defects"
hits=$(json_field "$T/run/summary.json" discrepancies)
[ "$hits" -gt 2 ] || fail "only $hits hits: the classes did not fold repeated discrepancies"
grep -q "discrepancies=$hits ops_per_s=.* classes=2 groups=2\$" "$T/out" || fail "the summary line does not count classes"
[ "$(ls "$T/run"/discrepancy-*.txt | wc -l)" = 2 ] || fail "not one detail file per class"
grep -q '^class 1: .* \[new\]$' "$T/run/discrepancy-1.txt" || fail "the detail file does not name its class"
[ -s "$T/run/classes.txt" ] || fail "no classes.txt"

# 2. A step after which the trees differ in structure is a leaf: no operation starts from its
# state. One after which they differ in attributes alone (a `delta` record) is no leaf.
python3 - "$T/run/log.txt" <<'PY' || fail "an operation was run in a state that differed in structure"
import re, sys
diverged, below_delta, saved, bad = set(), set(), {}, []
for line in open(sys.argv[1]):
    m = re.match(r"delta (\d+) fs=(\S+) ", line)     # logged before its discrepancy record
    if m:
        below_delta.add((int(m.group(1)), m.group(2)))
    m = re.match(r"discrepancy (\d+) fs=(\S+) .*state=differs", line)
    if m and (int(m.group(1)), m.group(2)) not in below_delta:
        diverged.add(int(m.group(1)))
    m = re.match(r"save (\d+) sid=(\d+)", line)
    if m:
        saved[int(m.group(2))] = int(m.group(1))
    m = re.match(r"op (\d+) depth=\d+ from=(\d+) ", line)
    if m and saved.get(int(m.group(2))) in diverged:
        bad.append(line.strip())
print("\n".join(bad[:3]))
sys.exit(1 if bad else 0)
PY

# 3. Each class: a shrunk trace of at most 6 operations ending in its operation, and a
# reproducer that fails on the mutant and passes on plain RefFS (the reference here).
while IFS='|' read -r sig hits ops repro; do
    op=${sig%% *}
    [ -n "$ops" ] && [ "$ops" -ge 1 ] && [ "$ops" -le 6 ] || fail "$sig: shrunk to '$ops' operations"
    k=$(class_of "$T/run" signature "$sig" class)
    grep '^op ' "$T/run/class-$k.trace" | tail -1 | grep -q " $op " || fail "$sig: the trace does not end with $op"
    [ -x "$T/run/$repro" ] || fail "$sig: no reproducer ($repro)"
    "$T/run/$repro" >"$T/repro-$k.bad" 2>&1
    rc=$?
    [ $rc = 1 ] || { cat "$T/repro-$k.bad"; fail "$sig: the reproducer exited $rc on the mutant, want 1"; }
    "$T/run/$repro" ref >"$T/repro-$k.ref" 2>&1
    rc=$?
    [ $rc = 0 ] || { cat "$T/repro-$k.ref"; fail "$sig: the reproducer exited $rc on plain RefFS, want 0"; }
done <"$T/classes"
grep -q 'first difference: the final tree at /[a-z0-9/]*: mode: here 0' "$T"/repro-*.bad ||
    { cat "$T"/repro-*.bad; fail "the mkdir reproducer does not name the entry and its mode"; }
grep -q 'first difference: step [0-9]*: removexattr .* errno=ENOENT; reference ref: ret=-1 errno=ENODATA' \
    "$T"/repro-*.bad || { cat "$T"/repro-*.bad; fail "the removexattr reproducer does not name the step"; }

# 4. A detail file stands for its class's first example in metis-replay.
d2=$(class_of "$T/run" class 2 detail)
seq=$(sed -n '1s/^operation \([0-9]*\):.*/\1/p' "$T/run/$d2")
"$B/metis-replay" trace "$T/run/$d2" -o "$T/d2.trace" 2>/dev/null || fail "trace of a detail file failed"
grep '^op ' "$T/d2.trace" | tail -1 | grep -q "^op $seq " || fail "the trace of $d2 does not end at operation $seq"

# 5. A data-only defect (stale bytes after a shrinking truncate): the reproducer names the file
# and "content", and passes on plain RefFS.
cat >"$T/data.ini" <<'EOF'
; ref: RefFS; bad: RefFS whose shrinking truncate leaves the cut bytes, to come back on an extend.
[run]
seed = 3
seconds = 10
keep_going = 1
max_depth = 8

[fs ref]
type = reffs
size = 256K

[fs bad]
type = reffs
size = 256K
reffs_opts = mutation=TRUNC_STALE_TAIL

[pool]
dirs = 0
files = 2
depth = 0
xattr_names = 0

[ops]
create_file = 1
write_file = 4
truncate = 3
fallocate_file = 0
chmod = 0
chown_file = 0
chgrp_file = 0
unlink = 1
mkdir = 0
rmdir = 0
rename = 0
link = 0
symlink = 0
setxattr = 0
removexattr = 0

[sizes]
write_size = uniform:13
write_offset = uniform:14
write_offset_mode = boundary_pm1
trunc_size = uniform:14
trunc_size_mode = boundary_pm1
EOF
"$B/metis" run "$T/data.ini" --out "$T/data" >"$T/data.out" 2>&1
rc=$?
[ $rc = 1 ] || { tail -20 "$T/data.out"; fail "the data-defect run exited $rc, want 1"; }
assert_no_leftovers "$(run_id_of "$T/data.out")"
grep -q ' state content$' <(classes "$T/data" | cut -d'|' -f1) || fail "no content class"
k=$(class_of "$T/data" attribute content class)
"$T/data/class-$k-repro/run.sh" >"$T/data.bad" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$T/data.bad"; fail "the data reproducer exited $rc on the mutant, want 1"; }
grep -q '^repro: the defect shows: first difference: the final tree at /[a-z0-9/]*: content: ' "$T/data.bad" ||
    { cat "$T/data.bad"; fail "the data reproducer does not name the file and content"; }
"$T/data/class-$k-repro/run.sh" ref >"$T/data.ref" 2>&1 || fail "the data reproducer fails on plain RefFS"

left=$(findmnt -rn -o TARGET | grep -c "^$REPRO_TMP/" || true)
[ "$left" = 0 ] || fail "$left reproducer mounts left behind"
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "reproducer files left behind: $(ls "$REPRO_TMP")"
echo "PASS: $(tr '\n' ' ' <"$T/classes")"
