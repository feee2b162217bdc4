#!/usr/bin/env bash
# A FUSE driver of ext4 (fuse2fs on an image, fstype = ext4) against the kernel's ext4: the
# format's default exclusion (lost+found) applies to both, so the initial states agree; with the
# exclusion turned off on the FUSE side they must not (the check sees the difference).
. "$(dirname "$0")/../../lib/common.sh"
command -v fuse2fs >/dev/null || { echo "fuse2fs not installed (Debian package fuse2fs)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "needs root (loop devices)"; exit 77; }
write_cfg() {   # $1 = an extra line for the FUSE side
  cat <<INI
[run]
ops = 3
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
dirs = 1
files = 1
INI
}
init_state() { sed -n "s/^init $1 sid=0 state=//p" "$2/log.txt"; }

write_cfg "" >"$T/ext4.ini"
"$METIS_BIN/metis" run "$T/ext4.ini" --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "exit status $rc"
a=$(init_state ext4 "$T/run"); b=$(init_state fuse2fs "$T/run")
[ -n "$a" ] && [ "$a" = "$b" ] || fail "initial states differ: ext4 $a, fuse2fs $b"
! grep -l "^initial state" "$T"/run/discrepancy-*.txt 2>/dev/null || fail "initial-state discrepancy"
assert_no_leftovers "$(run_id_of "$T/err")"

write_cfg "exclude =" >"$T/noexcl.ini"
"$METIS_BIN/metis" run "$T/noexcl.ini" --out "$T/noexcl" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "without the exclusion: exit status $rc, want 1"
grep -q "^initial state" "$T/noexcl/discrepancy-1.txt" || fail "without the exclusion: no initial-state discrepancy"
grep -q "lost+found" "$T/noexcl/discrepancy-1.txt" || fail "the discrepancy does not show lost+found"
assert_no_leftovers "$(run_id_of "$T/err")"
