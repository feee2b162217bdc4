#!/usr/bin/env bash
# Confirms outside Metis that archivemount stores a chown's -1 ("leave unchanged") as the owner: the kernel then shows the overflow id and refuses chmod, utime, writes, unlink and creates inside (EOVERFLOW, EACCES), and the archive written at the unmount is empty; tmpfs as the control.
# usage: tests/findings/fuse/archivemount-chown-keep/run.sh   (root)
# Exit 0 when archivemount shows all of it (what the cause table says) and tmpfs none, 1
# otherwise, 77 when archivemount (or tar, python3) is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/mounts.sh"
command -v archivemount >/dev/null && command -v tar >/dev/null && command -v python3 >/dev/null ||
  { echo "skip: archivemount: not installed (or no tar, python3)"; exit 77; }
over_u=$(cat /proc/sys/kernel/overflowuid) over_g=$(cat /proc/sys/kernel/overflowgid)
status=0

# What each line of owners.py must read: the kept id shows as the overflow id, and the VFS
# refuses what would write an inode whose owner it cannot map (notify_change, may_delete:
# EOVERFLOW; inode_permission's write check: EACCES); a chown naming both ids repairs it.
expect_archivemount() {
  local k
  for k in "keep-uid -1 0 $over_u:0" "keep-gid 0 -1 0:$over_g"; do
    set -- $k
    echo "$1 file: chown($2,$3) ok owner $4 chmod EOVERFLOW utime EOVERFLOW append EACCES unlink EOVERFLOW"
    echo "$1 dir: chown($2,$3) ok owner $4 chmod EOVERFLOW create EACCES | chown(0,0) ok owner 0:0 create ok"
  done
}
expect_tmpfs() {
  local k
  for k in "keep-uid -1 0" "keep-gid 0 -1"; do
    set -- $k
    echo "$1 file: chown($2,$3) ok owner 0:0 chmod ok utime ok append ok unlink ok"
    echo "$1 dir: chown($2,$3) ok owner 0:0 chmod ok create ok | chown(0,0) ok owner 0:0 create ok"
  done
}
judge() {   # $1 name, $2 what it printed, $3 what it should have
  if [ "$2" = "$3" ]; then echo "$1: as expected"; return 0; fi
  echo "$1: not as expected; wanted:"; echo "$3" | sed 's/^/  /'; return 1
}
unmount_saved() {   # $1 mount point of the last archivemount: unmount, then wait for its save
  umount "$1" && daemon_wait "${_finding_daemons[-1]}" 30
}

echo "archivemount $(version_of archivemount), as root, on an empty tar:"
mount_target archivemount "$W/am" || exit 2
got=$(python3 "$here/owners.py" "$W/am" 2>&1)
echo "$got"
judge archivemount "$got" "$(expect_archivemount)" || status=1
unmount_saved "$W/am" || { echo "archivemount did not end after its unmount"; status=1; }

mount_target tmpfs "$W/tmpfs" || exit 2
echo "tmpfs (control):"
got=$(python3 "$here/owners.py" "$W/tmpfs" 2>&1)
echo "$got"
judge tmpfs "$got" "$(expect_tmpfs)" || status=1

# The save at the unmount: an archive holding a file and a directory, the file chowned with a
# kept uid, then unmounted; the same with chown(0, 0) as the control.
mkdir -p "$W/src/d" && echo data >"$W/src/f"
saved() {   # $1 the chown's uid: the size and members of the archive saved at the unmount, in $W/saved
  rm -f "$W/archive.tar" "$W/archive.tar.orig" "$W/saved"
  tar -C "$W/src" -cf "$W/archive.tar" f d || return 2
  mount_target archivemount "$W/save" || return 2
  python3 -c 'import os, sys; os.chown(sys.argv[1], int(sys.argv[2]), 0)' "$W/save/f" "$1"
  unmount_saved "$W/save" || { echo "archivemount did not end after its unmount"; return 1; }
  echo "$(stat -c %s "$W/archive.tar") bytes, members: $(tar -tf "$W/archive.tar" 2>/dev/null | sort | tr '\n' ' ')" >"$W/saved"
}
# Not in a command substitution: mount_target's daemon must stay known to the clean-up.
saved -1 || status=1
echo "archive saved after chown(f, -1, 0): $(cat "$W/saved" 2>/dev/null)"
grep -q '^0 bytes' "$W/saved" 2>/dev/null || { echo "the archive was not left empty: not confirmed"; status=1; }
saved 0 || status=1
echo "archive saved after chown(f, 0, 0) (control): $(cat "$W/saved" 2>/dev/null)"
grep -q 'members: d/ f $' "$W/saved" 2>/dev/null || { echo "the control's archive lost a member"; status=1; }
exit $status
