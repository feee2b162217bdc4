#!/usr/bin/env bash
# Kernel file systems without a device through the backend API: tmpfs and overlay round trips (logical restore, the replay fallback, a replay that misses), overlay's copy-up from a populated lower layer and its fresh initial state, the sweep of both after a crash.
set -u
. "$(dirname "$0")/../../lib/backend_driver.sh"
[ "$(id -u)" -eq 0 ] || { echo "needs root (mount)"; exit 77; }
build_driver

for fs in tmpfs overlay; do
  drive "$fs round trip, a stale record falls back to replay, 200 timed steps" --type kernel \
        --fstype "$fs" --size 4194304 --inodes 200 --fallback-check --bench 200 roundtrip
  grep -q '"restore":"logical","readback":"vfs","replays":1,.*"fallbacks":1' "$T/out" ||
    fail "$fs: not the one fallback to replay expected"
  drive "$fs: a replay that misses too is a failure naming the entry" --type kernel \
        --fstype "$fs" --bad-replay roundtrip
  grep -q "^ok bad replay refused: .*neither logical restore nor replay reach it" "$T/out" ||
    fail "$fs: the failed replay's message"
done
drive "tmpfs told remount = 1 stays mounted (its data would go)" --type kernel --fstype tmpfs \
      --remount 1 roundtrip

drive "overlay over a populated lower layer: copy-up, fresh initial state" --type kernel \
      --fstype overlay --populate-lower copyup
grep -q '"fresh_initial":1' "$T/out" || fail "restore 0 did not make fresh layers"

expect_fail "bad overlay option" "mount -t overlay .*: Invalid argument" --type kernel \
            --fstype overlay --mount-opts nosuchoption=1

for fs in tmpfs overlay; do
  "$DRV" --run-id "$RUN" --type kernel --fstype "$fs" crash >"$T/out" 2>&1 ||
    fail "$fs: crash: driver exit $?"
  grep -q "/metis-$RUN/mnt-$fs" /proc/self/mountinfo || fail "$fs: the crash left nothing to sweep"
  "$DRV" --run-id "$RUN" sweep
  check_clean "$fs: sweep after a crash"
done
echo "backend_devless: ok"
