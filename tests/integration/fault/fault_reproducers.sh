#!/usr/bin/env bash
# Every shipped trace of a fault-step bug (tests/faults/CONFIG/SLUG/trace, found with configs/CONFIG.ini): the reproducer emit-c makes of it exits 1 (the fault check fails), has at most 10 operations, and leaves no mount, loop device or work directory.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (mounts, loop devices)"
need_tools cc
[ -e /dev/fuse ] || skip "no /dev/fuse"
ran=0
for d in tests/faults/*/*/; do
  d=${d%/} cfg=configs/$(basename "$(dirname "$d")").ini
  [ -f "$cfg" ] || fail "$d: no config $cfg"
  case $cfg in *fuse2fs*) need=fuse2fs;; *exfat*) need=mount.exfat-fuse;; *) need=mkfs.ext4;; esac
  command -v $need >/dev/null || { skip_part "$d" "no $need"; continue; }
  n=$(grep -c '^op ' "$d/trace")
  [ "$n" -le 10 ] || fail "$d: $n operations, a shipped reproducer has at most 10"
  rm -rf "$T/repro"
  "$METIS_BIN/metis-replay" emit-c "$d/trace" --config "$cfg" -o "$T/repro" >"$T/out" 2>&1 ||
    fail "$d: emit-c: $(cat "$T/out")"
  # A loop device left on the faulty device's file shows as "/img" once that is unmounted,
  # which names no run: one that came while this reproducer ran and stayed is its own (other
  # runs on this host have loop devices too, over their own files, and come and go).
  img_loops >"$T/img.before"
  REPRO_TMP=$T "$T/repro/run.sh" >"$T/out" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "$d: the reproducer exited $rc, want 1: $(tail -n 5 "$T/out")"
  wait_for 10 eval '[ -z "$(img_loops | comm -13 "$T/img.before" -)" ]'
  left=$(img_loops | comm -13 "$T/img.before" -)
  [ -z "$left" ] || fail "$d: the reproducer left a loop device over its faulty device: $left"
  echo "$d: $(grep -m1 '^repro: the defect shows' "$T/out")"
  ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no fault reproducer's file system is installed"
! findmnt -rn -o TARGET | grep -q -- "^$T/" || fail "a reproducer left a mount under $T"
! losetup -a | grep -q -- "$T/" || fail "a reproducer left a loop device on a file under $T"
! ls "$T" | grep -q '^metis-repro' || fail "a reproducer left its work directory in $T"
echo PASS
