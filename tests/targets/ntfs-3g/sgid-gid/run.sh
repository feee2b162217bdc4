#!/bin/sh
# Makes a file system of the trace from scratch (as root), runs repro.c on it, removes it.
# usage: run.sh [FS]  (FS: reffs, ntfs-3g; default ntfs-3g, the one that disagreed)
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
nsteps=4
case "${1:-ntfs-3g}" in
reffs)
  # RefFS keeps its state in memory: one mount for all steps.
  bin=${REFFS_BIN:-}
  if [ -z "$bin" ]; then
    for c in "$here/../../../../bin/reffs" "$(command -v reffs 2>/dev/null)"; do
      [ -n "$c" ] && [ -x "$c" ] && { bin=$c; break; }
    done
  fi
  [ -n "$bin" ] || { echo "run.sh: needs reffs (the RefFS daemon, built by make in the Metis tree): not found in the Metis tree's bin nor in PATH; put it in PATH or set REFFS_BIN to it" >&2; exit 2; }
  need fusermount3 'FUSE 3, to unmount RefFS'
  "$bin" -f -o capacity=2097152 "$mnt" >"$work/daemon.log" 2>&1 &
  pid=$!
  wait_mounted
  repro; [ $rc = 0 ] || true
  ;;
ntfs-3g)
  truncate -s 2097152 "$img" || exit 2
  need mkfs.ntfs 'to make the ntfs file system'
  mkfs.ntfs -q -F -f  "$img" >"$work/mkfs.log" 2>&1 ||
    { cat "$work/mkfs.log" >&2; exit 2; }
  # The config's mount command, with {mnt}, {img}, {dir} and {bin} (the Metis that wrote this, or $METIS_BIN) filled in.
  bindir=${METIS_BIN:-"$here/../../../../bin"}
  cmd='lowntfs-3g -o permissions,posix_nlink,special_files=wsl {img} {mnt}'
  cmd=$(printf '%s' "$cmd" | sed "s|{mnt}|$mnt|g; s|{img}|$img|g; s|{bin}|$bindir|g")
  sh -c "$cmd" >"$work/daemon.log" 2>&1 &
  pid=$!
  wait_mounted
  # Metis's run sets the root's mode to the reference's at set-up (mkfs.ntfs gives 0777); so does this.
  chmod 0755 "$mnt" || exit 2
  repro
  ;;
*) echo "run.sh: no fs '$1'" >&2; exit 2;;
esac
exit $rc
