#!/usr/bin/env bash
# Kernel file systems without a device serve as references and targets: tmpfs against RefFS and
# ext4, both as targets of RefFS (free space and root equalized), and
# overlay (lower layer populated) against tmpfs, each restored logically with no discrepancy;
# an overlay run changes entries of the lower layer (copy-up); nothing is left, even after
# SIGINT; a class found on them is shrunk and reproduced; a crash check or remount on them is
# refused.
. "$(dirname "$0")/../../lib/common.sh"

# summary.json: no discrepancy, and fs NAME restored logically (verified, no replay needed).
check_logical() {  # RUN_DIR NAME [MIN_OPS, 1000]
  python3 - "$1/summary.json" "$2" "${3:-1000}" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
b = s["backends"][sys.argv[2]]
print(sys.argv[2], b)
assert s["discrepancies"] == 0, "discrepancies: %d" % s["discrepancies"]
assert s["ops"] >= int(sys.argv[3]), s["ops"]
assert b["restore"] == "logical", b
assert b["logical_restores"] > 0 and b["logical_restores"] - b["already_there"] > 0, b
assert b["verified"] == b["logical_restores"] and b["fallbacks"] == 0, b
PY
}

# (a) tmpfs as the reference against RefFS and ext4.
FAIL_LOG=$T/a.err
"$METIS_BIN/metis" run tests/fixtures/devless/devless-tmpfs.ini --out "$T/a" 2>"$T/a.err"
rc=$?
[ $rc -eq 0 ] || fail "tmpfs against RefFS and ext4: exit status $rc"
check_logical "$T/a" tmpfs || fail "tmpfs: no verified logical restores, or discrepancies"
assert_no_leftovers "$(run_id_of "$T/a.err")"

# (a') both as targets of RefFS: their free space and roots made the reference's.
FAIL_LOG=$T/t.err
"$METIS_BIN/metis" run tests/fixtures/devless/devless-targets.ini --out "$T/t" 2>"$T/t.err"
rc=$?
[ $rc -eq 0 ] || fail "RefFS against tmpfs and overlay: exit status $rc"
grep -q "tmpfs: root set to the reference's: mode 0777 -> 0755" "$T/t.err" ||
  fail "the tmpfs root (0777) was not set to RefFS's"
python3 - "$T/t/summary.json" <<'PY' || fail "free space not equalized on tmpfs and overlay"
import json, sys
s = json.load(open(sys.argv[1]))
b = s["backends"]
print({k: (v["equalized_bytes"], v["equalized_inodes"], v["unequal_bytes"]) for k, v in b.items()})
assert s["discrepancies"] == 0 and b["tmpfs"]["root_equalized"]
for k in ("tmpfs", "ovl"):
    assert b[k]["equalized_bytes"] > 0 and b[k]["equalized_inodes"] > 0, k
    assert b[k]["unequal_bytes"] == 0 and b[k]["unequal_inodes"] == 0, k
PY
assert_no_leftovers "$(run_id_of "$T/t.err")"

# (b) overlay over a populated lower layer as the reference against tmpfs. SPIN's depth-first
# search spends a deep search below the first state it reaches; a shallow one (depth 4: two
# operations) returns to the initial state, on fresh layers, after every few operations. 900
# operations stay within the first search (it completes after 936 on this seed), whose
# backend counters summary.json reports.
FAIL_LOG=$T/b.err
"$METIS_BIN/metis" run configs/overlay-vs-tmpfs.ini --ops 900 --depth 4 --out "$T/b" \
  2>"$T/b.err"
rc=$?
[ $rc -eq 0 ] || fail "overlay against tmpfs: exit status $rc"
check_logical "$T/b" overlay 900 || fail "overlay: no verified logical restores, or discrepancies"
python3 - "$T/b" <<'PY' || fail "no entry of the lower layer was changed from the initial state"
import json, re, sys
d = sys.argv[1]
b = json.load(open(d + "/summary.json"))["backends"]["overlay"]
assert b["fresh_initial"] > 0, b
# prepopulate = 1: at state 0 every pool file is in the lower layer (fresh layers), so an
# operation from state 0 that changes a file there copies it up first.
changes = ("write_file", "truncate", "chmod", "chown_file", "chgrp_file", "setxattr", "link")
init, ops, hits = None, {}, []
for line in open(d + "/log.txt"):
    f = line.split()
    if f[:2] == ["init", "overlay"]:
        init = f[3].split("=")[1]
    elif f[0] == "op" and "from=0" in f and f[4] in changes:
        ops[f[1]] = " ".join(f[4:6])
    elif f[0] == "res" and f[1] in ops and f[2] == "overlay":
        r = dict(x.split("=", 1) for x in f[3:])
        if int(r["ret"]) >= 0 and r["state"] != init:
            hits.append(ops[f[1]])
print(len(hits), "changes of lower entries from the initial state, e.g.", hits[:3])
assert hits
PY
assert_no_leftovers "$(run_id_of "$T/b.err")"

# (c) SIGINT mid-run: the overlay, its layers' tmpfs and the tmpfs are all gone.
FAIL_LOG=$T/c.err
"$METIS_BIN/metis" run configs/overlay-vs-tmpfs.ini --seconds 60 --out "$T/c" 2>"$T/c.err" &
pid=$!
wait_for 300 eval 'lines_at_least "$T/c/log.txt" "^op " 201 || gone $pid'
findmnt -rn -o TARGET | grep -q "metis-$(run_id_of "$T/c.err")/mnt-overlay.layers" ||
  fail "the overlay's layers are not on a tmpfs of the run while it runs"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "interrupted overlay run: exit status $rc, want 130"
assert_no_leftovers "$(run_id_of "$T/c.err")"

# (d) a class found on them is shrunk and reproduced through the backend, and its run.sh makes
# the overlay (mktemp'd layers, lower populated) and the tmpfs itself.
FAIL_LOG=$T/e.err
"$METIS_BIN/metis" run tests/fixtures/devless/devless-overlay-exdev.ini --out "$T/e" 2>"$T/e.err"
rc=$?
[ $rc -eq 1 ] || fail "overlay without redirect_dir: exit status $rc, want 1"
grep -q "EXDEV" "$T/e/discrepancy-1.txt" || fail "the first class is not overlay's EXDEV"
[ -x "$T/e/class-1-repro/run.sh" ] || fail "no reproducer for class 1"
REPRO_TMP=$T "$T/e/class-1-repro/run.sh" tmpfs >"$T/e.tmpfs" 2>&1
[ $? -eq 1 ] || fail "run.sh tmpfs does not show the difference: $(tail -3 "$T/e.tmpfs")"
REPRO_TMP=$T "$T/e/class-1-repro/run.sh" overlay >"$T/e.overlay" 2>&1
[ $? -eq 0 ] || fail "run.sh overlay differs from itself: $(tail -3 "$T/e.overlay")"
assert_no_leftovers "$(run_id_of "$T/e.err")"
# only this test's: other runs (a campaign's triage) may have reproducers mounted meanwhile
findmnt -rn -o TARGET | grep -q "^$T/metis-repro" && fail "run.sh left a mount"

# (e) what cannot apply is refused with the key named (exit 2).
cat > "$T/crash.ini" <<'EOF'
[run]
crash = fsync
[fs t]
type = kernel
fstype = tmpfs
EOF
"$METIS_BIN/metis" check "$T/crash.ini" 2>"$T/d.err" && fail "crash on a tmpfs accepted"
grep -q "no device" "$T/d.err" || fail "crash on tmpfs: unclear error: $(cat "$T/d.err")"
printf '[fs t]\ntype = kernel\nfstype = tmpfs\nremount = 1\n' > "$T/remount.ini"
"$METIS_BIN/metis" check "$T/remount.ini" 2>"$T/d.err"
[ $? -eq 2 ] && grep -q "remount.ini:4:.*remount must be 0" "$T/d.err" ||
  fail "remount = 1 on a tmpfs: $(cat "$T/d.err")"
printf '[fs t]\ntype = kernel\nfstype = ext4\ninodes = 9\n' > "$T/inodes.ini"
"$METIS_BIN/metis" check "$T/inodes.ini" 2>"$T/d.err" && fail "inodes on ext4 accepted"
grep -q "inodes.ini:4:" "$T/d.err" || fail "inodes on ext4: $(cat "$T/d.err")"
exit 0
