#!/usr/bin/env bash
# Confirms outside Metis that open(O_CREAT) of an existing name racing its unlink fails with ENOENT on the libfuse 2 targets (exfat-fuse, fuse2fs, unionfs-fuse) and not on libfuse 3.14's sshfs or tmpfs; prints each one's rate.
# usage: tests/findings/fuse/libfuse2-open-unlink/run.sh [ROUNDS]   (root; default 5000 rounds each)
# Each installed target is mounted as its profile in configs/targets/ mounts it; one not
# installed is named and skipped. Exit 0 when every installed libfuse 2 target showed the
# race and the controls never did, 1 otherwise, 77 when no libfuse 2 target is installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5000}
. "$here/../../lib/mounts.sh"
cc -O2 -pthread -o "$W/race" "$here/../../lib/race.c" || exit 2
ran=0 status=0
for t in exfat-fuse fuse2fs unionfs-fuse sshfs tmpfs; do
  mount_target "$t" "$W/$t" || continue
  lib=$(ldd "$(command -v "$(case $t in exfat-fuse) echo mount.exfat-fuse;; unionfs-fuse) echo unionfs;; tmpfs) echo true;; *) echo "$t";; esac)")" 2>/dev/null | grep -o 'libfuse3\?\.so\.[0-9]' | head -1)
  out=$("$W/race" create "$W/$t" "$rounds"); rc=$?
  echo "$t $(version_of "$t") (${lib:-kernel}): $out"
  case $t in
  sshfs|tmpfs) [ $rc -eq 0 ] || status=1 ;;
  *) ran=$((ran + 1)); case $out in *ENOENT*) ;; *) status=1 ;; esac ;;
  esac
done
[ $ran -gt 0 ] || exit 77
exit $status
