#!/bin/sh
# Makes a file system of the trace from scratch (as root), runs repro.c on it, removes it.
# usage: run.sh [FS]  (FS: ext4, fuse2fs; default fuse2fs, the one that disagreed)
# exit status: 0 every step and the final tree match the reference's, 1 the defect shows, 2 set-up failed
set -u
here=$(cd "$(dirname "$0")" && pwd)
need() {  # TOOL WHAT: say what is missing and stop
  command -v "$1" >/dev/null 2>&1 || { echo "run.sh: needs $1 ($2) in PATH" >&2; exit 2; }
}
need cc 'a C compiler, to build repro.c'
cc -O1 -g -o "$here/repro" "$here/repro.c" || { echo "run.sh: cannot build repro.c" >&2; exit 2; }
# REPRO_TMP: where the image and mount point go (default /dev/shm).
work=$(mktemp -d "${REPRO_TMP:-/dev/shm}/metis-repro.XXXXXX") || exit 2
mnt=$work/mnt img=$work/fs.img loop= pid= layers=
mkdir -p "$mnt"
cleanup() {
  if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt" 2>/dev/null || fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt"; fi
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  [ -n "$layers" ] && { umount "$layers" 2>/dev/null || umount -l "$layers"; }
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
wait_mounted() {
  for _ in $(seq 1 200); do mountpoint -q "$mnt" && return 0; sleep 0.05; done
  echo "run.sh: $mnt did not get mounted; the file system said:" >&2
  tail -n 5 "$work/daemon.log" >&2; exit 2
}
as_root() {  # WHY
  [ "$(id -u)" = 0 ] || { echo "run.sh: must run as root ($1)" >&2; exit 2; }
}
# One run of the program; the first line that differs is the verdict.
rc=0
repro() {
  "$here/repro" "$mnt" "$@" >"$work/last.out" 2>&1
  r=$?
  cat "$work/last.out"; cat "$work/last.out" >>"$work/all.out"
  case $r in 0) ;; 1) rc=1;; *) echo "run.sh: repro failed (exit $r)" >&2; exit 2;; esac
}
verdict() {
  if [ $rc = 1 ]; then
    echo "repro: the defect shows: first difference: $(grep -m1 'DIFFERS FROM THE REFERENCE' "$work/all.out" | sed 's/  DIFFERS FROM THE REFERENCE$//')"
  else
    echo "repro: every step and the final tree match the reference"
  fi
}
nsteps=3
case "${1:-fuse2fs}" in
ext4)
  as_root 'loop devices and mounts'
  truncate -s 262144 "$img" || exit 2
  need mkfs.ext4 'to make the ext4 file system'
  mkfs.ext4 -q -F  "$img" >"$work/mkfs.log" 2>&1 ||
    { cat "$work/mkfs.log" >&2; exit 2; }
  loop=$(losetup -f --show "$img") || exit 2
  do_mount() { mount -t ext4  "$loop" "$mnt" || exit 2; }
  do_umount() { umount "$mnt" || exit 2; }
  # Metis unmounts and mounts again around every operation: so does this.
  do_mount; repro pre; do_umount
  for k in $(seq 1 "$nsteps"); do do_mount; repro step "$k"; do_umount; done
  do_mount; repro tree; do_umount
  verdict
  ;;
fuse2fs)
  truncate -s 262144 "$img" || exit 2
  need mkfs.ext4 'to make the ext4 file system'
  mkfs.ext4 -q -F  "$img" >"$work/mkfs.log" 2>&1 ||
    { cat "$work/mkfs.log" >&2; exit 2; }
  # The config's mount command, with {mnt}, {img}, {dir} and {bin} (the Metis that wrote this, or $METIS_BIN) filled in.
  bindir=${METIS_BIN:-"$here/../../../../bin"}
  cmd='fuse2fs -o default_permissions {img} {mnt}'
  cmd=$(printf '%s' "$cmd" | sed "s|{mnt}|$mnt|g; s|{img}|$img|g; s|{bin}|$bindir|g")
  sh -c "$cmd" >"$work/daemon.log" 2>&1 &
  pid=$!
  wait_mounted
  repro
  ;;
*) echo "run.sh: no fs '$1'" >&2; exit 2;;
esac
exit $rc
