#!/usr/bin/env bash
# Free-space equalization cannot fail a run: a FUSE file system that refuses files above 1 MiB
# gets the difference spread over several filler files; one that reports far more free space
# than equalize_limit makes a RefFS reference grow to its room, and is left unfilled with a
# warning beside a reference that cannot grow (tmpfs). summary.json says what was filled and left.
. "$(dirname "$0")/../../lib/common.sh"
MiB=1048576
write_cfg() {   # $1 = the fuse side's RefFS options, $2 = the reference's type lines
  cat <<INI
[run]
ops = 150
[fs ref]
${2:-type = reffs}
size = 1M
[fs big]
type = fuse
mount_cmd = {bin}/reffs -o noopen,$1 {mnt}
[pool]
dirs = 1
files = 2
[ops]
; noopen: the daemon sees no opens, so it cannot keep a file that is unlinked while open
open_unlink = 0
INI
}

# 16 MiB free, at most 1 MiB per file: 15 MiB over 15 or so files, then inodes equal again.
write_cfg "nosnapshots,capacity=16M,maxfilesize=1M" >"$T/efbig.ini"
"$METIS_BIN/metis" run "$T/efbig.ini" --out "$T/efbig" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "EFBIG: exit status $rc"
python3 - "$T/efbig/summary.json" $MiB <<'PY' || fail "EFBIG: summary.json"
import json, sys
s, mib = json.load(open(sys.argv[1])), int(sys.argv[2])
b, r = s["backends"]["big"], s["backends"]["ref"]
print(r, b)
assert s["status"] == "ok" and s["discrepancies"] == 0
assert b["equalized_bytes"] >= 15 * mib - 65536, "the difference was not filled"
assert b["unequal_bytes"] < 65536 and r["unequal_bytes"] < 65536, "free space still differs"
assert b["unequal_inodes"] == 0 and r["unequal_inodes"] == 0, "the extra filler files' inodes"
assert r["equalized_inodes"] > 1, "the reference got no inode fillers for the extra files"
PY
assert_no_leftovers "$(run_id_of "$T/err")"

# Runs config $1 into $T/$2 (stderr in $T/err, shown), which must exit 0.
run_ok() {
  "$METIS_BIN/metis" run "$1" --out "$T/$2" 2>"$T/err"
  local rc=$?
  cat "$T/err"
  [ $rc -eq 0 ] || fail "$2: exit status $rc"
}

# 64 GiB free against 1 MiB: above equalize_limit (1 GiB), so the RefFS reference grows to it.
write_cfg "capacity=64G,maxfilesize=256M" >"$T/huge.ini"
run_ok "$T/huge.ini" huge
grep -q "fs ref (the reference) has less room than its targets: grown to 65536 MiB" "$T/err" ||
  fail "huge: the reference did not grow"
python3 - "$T/huge/summary.json" $MiB <<'PY' || fail "huge: summary.json"
import json, sys
s, mib = json.load(open(sys.argv[1])), int(sys.argv[2])
b = s["backends"]["big"]
print(b)
assert s["status"] == "ok" and b["unequal_bytes"] < mib, b
PY
assert_no_leftovers "$(run_id_of "$T/err")"

# ... beside a tmpfs reference, which cannot grow: nothing is filled, and a warning says so.
write_cfg "capacity=64G,maxfilesize=256M" "$(printf 'type = kernel\nfstype = tmpfs\nmount_opts = mode=0755')" >"$T/tmpfs.ini"
run_ok "$T/tmpfs.ini" tmpfs
grep -q "warning: fs big has .* more free space than fs ref, above equalize_limit" "$T/err" ||
  fail "huge beside tmpfs: no warning"
python3 - "$T/tmpfs/summary.json" $MiB <<'PY' || fail "huge beside tmpfs: summary.json"
import json, sys
s, mib = json.load(open(sys.argv[1])), int(sys.argv[2])
b = s["backends"]["big"]
print(b)
assert s["status"] == "ok" and s["equalize_limit"] == 1024 * mib
assert b["equalized_bytes"] == 0 and b["unequal_bytes"] > 60 * 1024 * mib, b
PY
assert_no_leftovers "$(run_id_of "$T/err")"
