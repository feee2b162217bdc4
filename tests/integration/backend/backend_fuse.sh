#!/usr/bin/env bash
# FUSE backend: fuse2fs on an image (remounted each step, image snapshots) and reffs without an image (snapshot ioctls, logical restore, replay).
set -u
. "$(dirname "$0")/../../lib/backend_driver.sh"
BIN=$METIS_BIN
export METIS_BIN=$BIN   # what {bin} stands for
[ -e /dev/fuse ] || { echo "no /dev/fuse"; exit 77; }
build_driver
ran=0

if command -v fuse2fs >/dev/null; then
  drive "fuse2fs image, foreground daemon" --type fuse --fstype ext4 --size 1048576 \
        --mount-cmd 'fuse2fs {img} {mnt} -f' --bench 30 roundtrip
  drive "fuse2fs image, daemonizing mount command" --type fuse --fstype ext4 --size 1048576 \
        --mount-cmd 'fuse2fs {img} {mnt}' --unmount-cmd 'umount {mnt}' roundtrip
  ran=1
else
  skip_part fuse2fs "fuse2fs is not installed (Debian package fuse2fs): the image tests"
fi
if [ -x "$BIN/reffs" ]; then
  drive "reffs through mount_cmd, no image: restore = fresh mount + replay" --type fuse \
        --mount-cmd "$BIN/reffs -f {mnt}" --restore replay roundtrip
  grep -q '"restore":"replay"' "$T/out" || fail "restore = replay did not replay"
  drive "{bin} substitution, daemonizing; auto finds the snapshot ioctls" --type fuse \
        --mount-cmd '{bin}/reffs {mnt}' --bench 200 roundtrip
  grep -q '"restore":"snapshot","readback":"dump","replays":0' "$T/out" ||
    fail "auto did not use the snapshot ioctls and the dump"
  drive "snapshot ioctls, read back by walks" --type fuse --mount-cmd '{bin}/reffs {mnt}' \
        --restore snapshot --readback vfs roundtrip
  grep -q '"restore":"snapshot","readback":"vfs"' "$T/out" || fail "readback = vfs was not honoured"
  drive "no snapshot ioctls: auto restores logically; a stale record falls back to replay" \
        --type fuse --mount-cmd '{bin}/reffs -o noopen,nosnapshots {mnt}' --bench 200 --fallback-check \
        roundtrip
  grep -q '"restore":"logical","readback":"vfs","replays":1,.*"fallbacks":1' "$T/out" ||
    fail "logical restore: not the one fallback expected"
  drive "restore = logical forced on a daemon with the ioctls" --type fuse \
        --mount-cmd '{bin}/reffs {mnt}' --restore logical roundtrip
  grep -q '"restore":"logical","readback":"vfs","replays":0,.*"fallbacks":0' "$T/out" ||
    fail "restore = logical was not logical, or fell back"
  drive "a replay that misses too is a failure naming the first differing entry" --type fuse \
        --mount-cmd '{bin}/reffs {mnt}' --restore logical --bad-replay roundtrip
  grep -q "^ok bad replay refused: .*neither logical restore nor replay reach it: the saved state has '/" \
    "$T/out" || fail "the failed replay's message"
  ran=1
else
  skip_part reffs "$BIN/reffs is not built: the tests without an image"
fi
[ $ran -eq 1 ] || skip "neither fuse2fs nor bin/reffs available"

expect_fail "mount command fails" "^setup failed as expected: fs fuse: setup: first mount: 'false' did not mount .* \(it failed\)" \
  --type fuse --mount-cmd 'false'
expect_fail "mount command hangs" "^setup failed as expected: fs fuse: setup: first mount: 'sleep 30' did not mount .* in time" \
  --type fuse --mount-cmd 'sleep 30'
expect_fail "no mount_cmd" '^setup failed as expected: fs fuse: setup: type=fuse needs mount_cmd' --type fuse
if [ -x "$BIN/reffs" ]; then
  expect_fail "restore = snapshot, but the daemon refuses the ioctls" \
    "^setup failed as expected: fs fuse: setup: restore = snapshot, but the fs does not answer the snapshot ioctls" \
    --type fuse --mount-cmd '{bin}/reffs -o nosnapshots {mnt}' --restore snapshot
  expect_fail "readback = dump without the snapshot protocol" \
    "^setup failed as expected: fs fuse: setup: readback = dump needs the snapshot protocol \(restore is logical\)" \
    --type fuse --mount-cmd '{bin}/reffs -o nosnapshots {mnt}' --readback dump
else
  skip_part reffs-refusals "$BIN/reffs is not built"
fi
finish
