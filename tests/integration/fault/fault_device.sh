#!/usr/bin/env bash
# The faulty device: bin/metis-faultdev under a direct-I/O loop device fails a write at once, fails reads, loses a write (told at the next flush, or never with silent), on a range or once; fault steps run on every kernel fstype the project ships; nothing is left behind, after SIGINT or SIGKILL either.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, FUSE and kernel mounts)"
need_tools losetup findmnt dd mkfs.ext4
[ -e /dev/fuse ] || skip "no /dev/fuse"

# A faulty device's loop device whose FUSE mount went lazily shows its file as "/img", which
# names no run: no_orphans WHAT MAJ:MIN... fails when one is left over the faulty devices' file
# systems the run had (faultdev_mounts while it went), not over another run's.
no_orphans() {
  local what=$1 left
  shift
  [ $# -gt 0 ] || fail "$what: no faulty device's mount was seen while the run went"
  left=$(img_loops_over "$@")
  [ -z "$left" ] || fail "$what: a loop device over a lazily unmounted faulty device is left: $left"
}

# ---- the daemon and its loop device, driven by hand ----
D=/dev/shm/metis-fdtest$$
mkdir -p "$D/mnt-dev"
on_exit "losetup -d \"\${loop:-none}\" 2>/dev/null; umount \"$D/mnt-dev\" 2>/dev/null; rm -rf \"$D\""
truncate -s 1M "$D/img"
"$METIS_BIN/metis-faultdev" "$D/img" "$D/mnt-dev" 2>"$T/daemon.err" &
dpid=$!
wait_for 60 eval 'mountpoint -q "$D/mnt-dev" || gone $dpid'
mountpoint -q "$D/mnt-dev" || fail "metis-faultdev did not mount: $(cat "$T/daemon.err")"
loop=$(losetup -f --show --direct-io=on "$D/mnt-dev/img") || fail "no loop device over the daemon's file"
[ "$(cat /sys/block/"${loop#/dev/}"/loop/dio)" = 1 ] || fail "$loop: direct I/O is off"
ctl() { echo "$1" > "$D/mnt-dev/ctl"; }
counters() { cat "$D/mnt-dev/ctl"; }
# wr BLOCK [dd flags...]: one 4-KiB direct write of 'A's at BLOCK; its status.
wr() { local b=$1; shift; head -c 4096 /dev/zero | tr '\0' A | dd of="$loop" bs=4096 seek="$b" count=1 oflag=direct "$@" status=none 2>"$T/dd.err"; }
rd() { dd if="$loop" of="$T/block" bs=4096 skip="$1" count=1 iflag=direct status=none 2>"$T/dd.err"; }
landed() { [ "$(tr -d '\0' < "$T/block" | head -c 1)" = A ]; }

# A failed write reaches the loop device at once: the write itself fails, within the second.
ctl "arm write eio at=0"
start=$(date +%s%N)
wr 1 && fail "a write the device fails succeeded"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
grep -q "Input/output error" "$T/dd.err" || fail "a failed write did not say EIO: $(cat "$T/dd.err")"
echo "a failed write came back as EIO after $ms ms (load: $(cut -d' ' -f1 /proc/loadavg))"
[ "$ms" -lt 2000 ] || fail "the failed write took $ms ms to come back"
counters | grep -q "failed=1" || fail "the daemon did not count the failed write: $(counters)"

# Reads from the second on fail; disarmed, they pass again.
ctl "arm read eio at=1"
rd 0 || fail "the first read failed"
rd 2 && fail "the second read succeeded"
ctl disarm
rd 2 || fail "a read failed after disarm"

# A lost write is acknowledged, its data never lands, and the next flush says EIO once.
ctl "arm write lost at=0 count=1"
wr 3 || fail "the lost write was not acknowledged"
rd 3; landed && fail "the lost write's data landed"
wr 4 conv=fsync && fail "the flush after a lost write did not fail"
wr 5 conv=fsync || fail "the second flush after a lost write failed too"
# silent: no flush ever tells.
ctl "arm write lost at=0 count=1 silent"
wr 6 conv=fsync || fail "a silent lost write was told"
rd 6; landed && fail "the silent lost write's data landed"
# A range and once: only a write overlapping 8 KiB..12 KiB fails, and only the first.
ctl "arm write eio at=0 count=1 off=8192 len=4096"
wr 1 || fail "a write outside the range failed"
wr 2 && fail "the write in the range succeeded"
wr 2 || fail "a second write in the range failed (count=1)"
echo "arm read bogus at=1" > "$D/mnt-dev/ctl" 2>/dev/null && fail "a bad command was accepted"
losetup -d "$loop"; loop=
umount "$D/mnt-dev" || fail "cannot unmount the daemon"
wait $dpid || fail "metis-faultdev exited with $? after its unmount"

# ---- fault steps on every kernel fstype the project ships, and what they leave ----
# fsconf TYPE SIZE: a config of TYPE alone with a fault step at every operation.
fsconf() {
  printf '[run]\nfaults = 1\nshrink_seconds = 0\n\n[fs %s]\ntype = kernel\nfstype = %s\nsize = %s\n' "$1" "$1" "$2"
  [ "$1" = btrfs ] && echo "mkfs_opts = -M"
  [ "$1" = ext4 ] && echo "mount_opts = errors=remount-ro"
  printf '\n[pool]\nprepopulate = 0.5\n'
}
for spec in ext2:4M ext4:4M xfs:16M btrfs:16M; do
  fs=${spec%%:*}
  if ! kernel_has_fs "$fs" || ! command -v "mkfs.$fs" >/dev/null; then
    skip_part "$fs" "no $fs in this kernel or no mkfs.$fs"
    continue
  fi
  fsconf "$fs" "${spec#*:}" > "$T/$fs.ini"
  "$METIS_BIN/metis" run "$T/$fs.ini" --ops 40 --seed 2 --keep-going --out "$T/$fs" 2>"$T/$fs.err"
  rc=$?
  FAIL_LOG=$T/$fs.err
  [ $rc = 0 ] || [ $rc = 1 ] || fail "$fs: exit status $rc with fault steps"
  n=$(grep -c "^faulted [0-9]* $fs " "$T/$fs/log.txt")
  fired=$(grep "^faulted [0-9]* $fs " "$T/$fs/log.txt" | grep -vc "failed=0 lost=0")
  echo "$fs: $n fault steps, $fired of them hit a request"
  [ "$n" -ge 40 ] && [ "$fired" -ge 2 ] || fail "$fs: $n fault steps, $fired that hit a request"
  assert_no_leftovers "$(run_id_of "$T/$fs.err")"
done
FAIL_LOG=

# SIGINT while fault steps go: exit 130 and nothing left; SIGKILL of the engine: the front end's
# sweep removes the daemon, both loop devices and the mounts.
fsconf ext4 4M > "$T/int.ini"
# under_way NAME: a run of int.ini in the background (pid), once 20 fault steps are done (id).
under_way() { faulting "$T/int.ini" "$1" 20; }
for sig in INT KILL; do
  under_way $sig
  pgrep -f "metis-faultdev .*/metis-$id/" >/dev/null || fail "$sig: no faulty device while the run goes"
  devs=$(faultdev_mounts "$id")
  if [ $sig = INT ]; then kill -INT $pid; else kill -KILL "$(pgrep -P $pid | head -n1)"; fi
  wait $pid
  rc=$?
  want=$([ $sig = INT ] && echo 130 || echo 3)
  [ $rc = "$want" ] || fail "$sig: exit status $rc, want $want"
  assert_no_leftovers "$id"
  no_orphans "$sig" $devs
  pgrep -f "metis-faultdev .*/metis-$id/" >/dev/null && fail "$sig: the faulty device's daemon is left"
done

# The front end and the engine killed together (nothing of Metis runs its sweep): metis clean
# sweeps what is left, the faulty device's daemon, loop device and mount included. Until then
# the test holds the run's lock, so that no other run's sweep on this host takes it first.
# killed_then_cleaned NAME: 0 when metis clean swept it, 1 when a sweep elsewhere on the host
# took it in the moment between the shield's end and metis clean (then it is tried once more).
killed_then_cleaned() {
  under_way "$1"
  engine=$(pgrep -P $pid | head -n1)
  [ -n "$engine" ] || fail "all: no engine under metis $pid"
  devs=$(faultdev_mounts "$id")
  shield_run "$id"
  kill -KILL $pid $engine
  wait $pid
  # A killed engine holds its run's lock until it has exited, which can take a while under load
  # (an I/O to the faulty device in flight); a run that still holds it is live and left alone.
  wait_for 300 gone "$engine" || fail "all: the killed engine $engine has not exited"
  pgrep -f "metis-faultdev .*/metis-$id/" >/dev/null || fail "all: the daemon did not outlive the run"
  unshield_run
  "$METIS_BIN/metis" clean >"$T/clean.out" 2>&1 || fail "metis clean: $(cat "$T/clean.out")"
  if ! grep -qw "$id" "$T/clean.out"; then
    swept_by_another "$id" && return 1
    fail "metis clean did not sweep run $id: $(cat "$T/clean.out")"
  fi
  assert_no_leftovers "$id"
  no_orphans all $devs
  pgrep -f "metis-faultdev .*/metis-$id/" >/dev/null && fail "all: the faulty device's daemon is left"
  return 0
}
if ! killed_then_cleaned all; then
  echo "all: another run's sweep took run $id before metis clean: once more"
  killed_then_cleaned all-again || fail "all: twice another run's sweep took the killed run before metis clean"
fi
echo PASS
