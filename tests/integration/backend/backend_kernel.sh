#!/usr/bin/env bash
# Kernel backend on real loop devices: save/restore round trips (ext2/ext4/xfs/btrfs), speed, failures, sweep.
set -u
. "$(dirname "$0")/../../lib/backend_driver.sh"
[ "$(id -u)" -eq 0 ] || { echo "needs root (loop devices, mount)"; exit 77; }
[ -e /dev/loop-control ] || { echo "no /dev/loop-control"; exit 77; }
build_driver

drive "ext4 256 KiB round trip + 1000 timed steps" --type kernel --fstype ext4 --bench 1000 roundtrip
ms=$(sed -n 's/.*begin+op+end+save median \([0-9.]*\) ms.*/\1/p' "$T/out")
# Speed is make bench's to judge (its guard holds CPU time per operation): an idle machine
# gives about 1 ms, one at a load average of 12 on 2 cores 1.7 ms, and one where other runs'
# leftover daemons spun (load 11, 2026-12-07) 40 ms. This bound only catches a step that waits
# on something it should not (a sleep, a time-out), whatever the load.
awk -v m="${ms:-9999}" 'BEGIN { exit !(m < 500) }' || fail "ext4 step median ${ms:-?} ms is not under 500 ms"
drive "ext2 round trip" --type kernel --fstype ext2 --bench 200 roundtrip
drive "ext3 (journal) round trip" --type kernel --fstype ext3 roundtrip
mkdir -p "$T/work"
(cd "$T" && "$DRV" --run-id "$RUN" --type kernel --fstype ext2 --name wd --workdir work roundtrip) \
  >/dev/null || fail "relative workdir"
grep -q "/metis-$RUN/" /proc/self/mountinfo && fail "relative workdir: a mount is left"
[ -z "$(ls -A "$T/work")" ] || fail "relative workdir: files left in it"
check_clean "relative workdir"
drive "ext4 kept mounted (remount=0), restored logically" --type kernel --fstype ext4 \
      --remount 0 --bench 200 roundtrip
drive "ext4 1 MiB with mount options" --type kernel --fstype ext4 --size 1048576 \
      --mount-opts noatime,nodelalloc roundtrip
for fs in xfs btrfs; do
  if ! PATH=$PATH:/sbin:/usr/sbin command -v "mkfs.$fs" >/dev/null; then
    skip_part "$fs" "mkfs.$fs is not installed"
  elif ! kernel_has_fs "$fs"; then
    skip_part "$fs" "the kernel has no $fs, and modprobe could not load it"
  else
    drive "$fs round trip" --type kernel --fstype "$fs" --bench 50 roundtrip
  fi
done

expect_fail "bad mount_opts" '^setup failed as expected: fs ext4: setup: first mount: mount .*bogus_option.*Invalid argument' \
  --type kernel --fstype ext4 --mount-opts bogus_option=1
expect_fail "bad mkfs_opts" '^setup failed as expected: fs ext4: mkfs: .mkfs.ext4 .*exited with' \
  --type kernel --fstype ext4 --mkfs-opts=--no-such-flag
expect_fail "unknown fstype" '^setup failed as expected: fs nosuchfs: mkfs: .*exited with 127' \
  --type kernel --fstype nosuchfs

echo "== crash, then sweep (mount point under a work directory)"
"$DRV" --run-id "$RUN" --type kernel --fstype ext4 --workdir "$T/work" crash || fail "crash: setup"
grep -q "/metis-$RUN/mnt-ext4" /proc/self/mountinfo || fail "crash: nothing was mounted"
"$DRV" --run-id "$RUN" sweep
check_clean "sweep after a crash"
[ -z "$(ls -A "$T/work")" ] || fail "sweep: files left in the work directory"
finish
