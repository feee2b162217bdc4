#!/usr/bin/env bash
# FUSE backend: fuse2fs on an image (remounted each step, image snapshots) and reffs without an image (replay).
set -u
. "$(dirname "$0")/backend_driver.inc"
BIN=${METIS_BIN:-$ROOT/bin}
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
  echo "== fuse2fs not installed (Debian package fuse2fs): image tests left out"
fi
if [ -x "$BIN/reffs" ]; then
  drive "reffs through mount_cmd, no image: restore = fresh mount + replay" --type fuse \
        --mount-cmd "$BIN/reffs -f {mnt}" roundtrip
  drive "{bin} substitution, daemonizing" --type fuse --mount-cmd '{bin}/reffs {mnt}' roundtrip
  ran=1
fi
[ $ran -eq 1 ] || { echo "neither fuse2fs nor bin/reffs available"; exit 77; }

expect_fail "mount command fails" "^setup failed as expected: fs fuse: setup: first mount: 'false' did not mount .* \(it failed\)" \
  --type fuse --mount-cmd 'false'
expect_fail "mount command hangs" "^setup failed as expected: fs fuse: setup: first mount: 'sleep 30' did not mount .* in time" \
  --type fuse --mount-cmd 'sleep 30'
expect_fail "no mount_cmd" '^setup failed as expected: fs fuse: setup: type=fuse needs mount_cmd' --type fuse
finish
