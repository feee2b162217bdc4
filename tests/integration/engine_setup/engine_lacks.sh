#!/usr/bin/env bash
# [fs] lacks: fuse2fs (libfuse 2: no ZERO_RANGE, no renameat2 flags) against kernel ext4 gives fallocate and rename classes whose hints name the declaration; with `lacks = fallocate:zero_range,...` none of them, reach.txt shows the variants never drawn, `metis check` prints the declarations, a bad word is refused (exit 2, one line), and metis-replay refuses a trace step the config lacks.
. "$(dirname "$0")/../../lib/common.sh"
command -v fuse2fs >/dev/null || skip "fuse2fs not installed (Debian package fuse2fs)"
command -v bindfs >/dev/null || skip "bindfs not installed (Debian package bindfs)"
PATH=$PATH:/sbin:/usr/sbin command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"

# Mostly fallocate and rename over two files; a 1 KiB unit, so aligned ranges are whole blocks.
config() {   # $1 = the lacks line of fuse2fs (or nothing)
  cat <<INI
[run]
max_depth = 12
ops = 400
keep_going = 1
shrink_seconds = 0

[fs ext4]
type = kernel
fstype = ext4
size = 1M

[fs fuse2fs]
type = fuse
fstype = ext4
size = 1M
mount_cmd = fuse2fs {img} {mnt}
unmount_cmd = umount {mnt}
$1

[pool]
dirs = 0
files = 2
depth = 0
xattr_names = 0

[ops]
create_file = 2
write_file = 3
truncate = 0
fallocate_file = 6
chmod = 0
chown_file = 0
chgrp_file = 0
unlink = 1
mkdir = 0
rmdir = 0
rename = 2
link = 0
symlink = 0
setxattr = 0
removexattr = 0
mknod = 0
copy_range = 0
open_unlink = 0

[sizes]
write_size = uniform:12
write_offset = uniform:12
falloc_offset = uniform:12
falloc_len = uniform:12
falloc_align = 1024:0.5
INI
}
LACKS='lacks = fallocate:zero_range, fallocate:zero_range_keep
    rename:noreplace rename:exchange'

# Without the declaration: the refusals are classes, each hint naming the word to declare.
config '' >"$T/without.ini"
"$METIS_BIN/metis" run "$T/without.ini" --seed 1 --out "$T/without" >"$T/without.out" 2>&1
rc=$?
FAIL_LOG="$T/without.out"
[ $rc = 1 ] || fail "without lacks: metis run exited $rc, want 1"
assert_no_leftovers "$(run_id_of "$T/without.out")"
python3 - "$T/without/summary.json" <<'PY' || fail "without lacks: no fallocate class hinting its declaration"
import json, sys
classes = json.load(open(sys.argv[1]))['classes']
falloc = [c for c in classes if c['signature'].startswith('fallocate_file/')]
named = [c for c in falloc if 'lacks = fallocate:zero_range' in c.get('hint', '')]
for c in classes:
    print(c['signature'], '|', c.get('hint', '')[:120])
sys.exit(0 if falloc and len(named) == len(falloc) else 1)
PY

# With it: no class at all, and the variants never drawn.
config "$LACKS" >"$T/with.ini"
"$METIS_BIN/metis" run "$T/with.ini" --seed 1 --out "$T/with" >"$T/with.out" 2>&1
rc=$?
FAIL_LOG="$T/with.out"
[ $rc = 0 ] || fail "with lacks: metis run exited $rc, want 0"
assert_no_leftovers "$(run_id_of "$T/with.out")"
[ "$(json_field "$T/with/summary.json" discrepancies)" = 0 ] || fail "with lacks: discrepancies"
for row in fallocate_file/zero_range fallocate_file/zero_range_keep rename/noreplace rename/exchange; do
  grep -Eq "^$row +0 +0  never drawn" "$T/with/reach.txt" || fail "reach.txt: $row is not shown never drawn"
done
grep -Eq '^fallocate_file/punch_hole +[1-9]' "$T/with/reach.txt" || fail "reach.txt: punch_hole, not lacked, was never tried"
python3 - "$T/with/summary.json" <<'PY' || fail "summary.json: lacks not as declared"
import json, sys
s = json.load(open(sys.argv[1]))
want = ['fallocate:zero_range', 'fallocate:zero_range_keep', 'rename:noreplace', 'rename:exchange']
ok = s['lacks'] == {'ext4': [], 'fuse2fs': want}
ok = ok and sorted(s['lacks_never_drawn']) == sorted(['fallocate_file/zero_range', 'fallocate_file/zero_range_keep', 'rename/noreplace', 'rename/exchange'])
reach = s['reach']
ok = ok and 'fallocate_file/zero_range' not in reach and 'rename/exchange' not in reach
print(s['lacks'], s['lacks_never_drawn'])
sys.exit(0 if ok else 1)
PY
unset FAIL_LOG

# bindfs (every fallocate mode EOPNOTSUPP; S_ISGID of a new file dropped) against RefFS, over a
# backing directory of the test's own: fallocate draws punch_hole only, so lacking it leaves
# fallocate out altogether; setid takes the set-id bits out of the draws and the state.
bindfs_config() {   # $1 = the lacks line of bindfs (or nothing)
  cat <<INI
[run]
ops = 1500
keep_going = 1
shrink_seconds = 0
[fs reffs]
type = reffs
[fs bindfs]
type = fuse
mount_cmd = bindfs $T/backing {mnt}
$1
[pool]
dirs = 0
files = 2
depth = 0
xattr_names = 0
[ops]
truncate = 1
fallocate_file = 4
chmod = 0
chown_file = 0
chgrp_file = 0
mkdir = 0
rmdir = 0
link = 0
symlink = 0
setxattr = 0
removexattr = 0
mknod = 0
copy_range = 0
open_unlink = 0
[bits]
falloc_mode = punch_hole:1
mode = suid:0.2 sgid:0.2 ur:1 uw:1 ux:0.5 gr:0.5 gw:0.5 gx:0.5 or:0.5 ox:0.5
INI
}
bindfs_run() {   # $1 = name, $2 = the lacks line
  rm -rf "$T/backing" && mkdir "$T/backing"
  bindfs_config "$2" >"$T/$1.ini"
  "$METIS_BIN/metis" run "$T/$1.ini" --seed 1 --out "$T/$1" >"$T/$1.out" 2>&1
  rc=$?
  assert_no_leftovers "$(run_id_of "$T/$1.out")"
}
bindfs_run bindfs-without ''
[ $rc = 1 ] || fail "bindfs without lacks: metis run exited $rc, want 1"
python3 - "$T/bindfs-without/summary.json" <<'PY' || fail "bindfs without lacks: no punch_hole class hinting lacks = fallocate:punch_hole"
import json, sys
classes = json.load(open(sys.argv[1]))['classes']
punch = [c for c in classes if c['signature'].startswith('fallocate_file/')]
sys.exit(0 if punch and all('lacks = fallocate:punch_hole' in c.get('hint', '') for c in punch) else 1)
PY
bindfs_run bindfs-with 'lacks = fallocate:punch_hole, setid, rename:noreplace, rename:exchange'
[ $rc = 0 ] || { tail -3 "$T/bindfs-with.out"; fail "bindfs with lacks: metis run exited $rc, want 0"; }
grep -Eq '^fallocate_file +0 +0  never drawn' "$T/bindfs-with/reach.txt" ||
  fail "bindfs: fallocate, every drawn mode lacked, is not shown never drawn"
grep -q '^never drawn on any fs of the run: fallocate_file' <("$METIS_BIN/metis" check "$T/bindfs-with.ini") ||
  fail "bindfs: metis check does not say fallocate is never drawn"

# metis check: one line per fs and word, then the run's totals.
"$METIS_BIN/metis" check "$T/with.ini" >"$T/check.out" 2>&1 || fail "metis check exited $?"
grep -qx 'fs fuse2fs lacks fallocate:zero_range: fallocate zero_range is never drawn' "$T/check.out" ||
  { cat "$T/check.out"; fail "metis check: no line for fallocate:zero_range"; }
grep -q '^fs fuse2fs lacks rename:exchange: ' "$T/check.out" || fail "metis check: no line for rename:exchange"
grep -q '^never drawn on any fs of the run: .*fallocate_file/zero_range_keep' "$T/check.out" ||
  fail "metis check: no total of what is never drawn"
config 'lacks = root_nlink, setid' >"$T/ignores.ini"
"$METIS_BIN/metis" check "$T/ignores.ini" >"$T/check2.out" 2>&1 || fail "metis check exited $?"
grep -qx 'not compared on any fs of the run: root_nlink, setid' "$T/check2.out" ||
  { cat "$T/check2.out"; fail "metis check: the derived ignores are not printed"; }

# A bad word: exit 2, one line naming file:line, the key, the word and the valid words.
config 'lacks = fallocate:punch' >"$T/bad.ini"
"$METIS_BIN/metis" check "$T/bad.ini" >"$T/bad.out" 2>&1
rc=$?
[ $rc = 2 ] || fail "a bad word: exit $rc, want 2"
[ "$(wc -l <"$T/bad.out")" = 1 ] || { cat "$T/bad.out"; fail "a bad word: not one line"; }
grep -q "bad.ini:18: lacks: unknown word 'fallocate:punch' (valid: .*fallocate:punch_hole" "$T/bad.out" ||
  { cat "$T/bad.out"; fail "a bad word: message does not name file:line, key, word and valid words"; }

# metis-replay reads the same config: a step it lacks is refused (exit 2, one line).
"$METIS_BIN/metis-replay" trace "$T/without/discrepancy-1.txt" -o "$T/d1.trace" 2>/dev/null ||
  fail "metis-replay trace failed"
"$METIS_BIN/metis-replay" check "$T/d1.trace" --config "$T/without.ini" >/dev/null 2>&1 ||
  fail "the trace does not check against the config it came from"
"$METIS_BIN/metis-replay" check "$T/d1.trace" --config "$T/with.ini" >"$T/replay.out" 2>&1
rc=$?
[ $rc = 2 ] || fail "metis-replay check with lacks: exit $rc, want 2"
grep -q "is never drawn with config .*with.ini (lacks = " "$T/replay.out" ||
  { cat "$T/replay.out"; fail "metis-replay: the refusal does not name the declaration"; }
echo PASS
