#!/usr/bin/env bash
# btrfs: a file moved to another directory, then only its new directory fsynced: a power cut right after that fsync leaves the file at both names (one inode, 2 links); once the old directory is fsynced too, at the new name only. ext4 as the control (the rename is one journal transaction).
# usage: tests/findings/kernel/btrfs-rename-new-parent/run.sh   (root, cc, mkfs.btrfs, mkfs.ext4)
# Each case: a fresh 16-MiB image (btrfs -M, as Metis's crash configs; ext4 4 MiB) on a loop
# device, /a/f written and the fs unmounted (all committed), mounted again, rename /a/f /b/f
# and the fsyncs (rename_fsync.c), then the image file copied while the fs is still mounted:
# the device as a power cut right after the last fsync returned leaves it (the loop device
# runs with direct I/O, so every write the fsync waited for is in the file). The copy is
# mounted on a loop device of its own (the log or journal replayed) and listed. Exit 0 when
# btrfs shows both names after the new directory's fsync and the new name alone after both,
# and ext4 the new name alone in both; 1 otherwise; 77 when a tool is missing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/mounts.sh"
command -v mkfs.btrfs >/dev/null && command -v mkfs.ext4 >/dev/null || { echo "skip: needs mkfs.btrfs and mkfs.ext4"; exit 77; }
cc -O2 -o "$W/rename_fsync" "$here/rename_fsync.c" || exit 1
# Every loop device backed by a file of $W (each case runs in a subshell of its own).
detach_ours() {
  local d
  for d in $(losetup -n -O NAME,BACK-FILE | awk -v w="$W/" 'index($2, w) == 1 { print $1 }'); do
    losetup -d "$d" 2>/dev/null
  done
}
trap 'for m in "$W/live" "$W/copy"; do umount "$m" 2>/dev/null; done; detach_ours; _finding_cleanup' EXIT
mkdir -p "$W/live" "$W/copy"

# case FSTYPE DIRS...: prints "a/f LINKS b/f LINKS" of the copy after rename and fsync of DIRS.
case_of() {
  local fs=$1 img=$W/$1.img dev cdev out
  shift
  rm -f "$img" "$img.copy"
  if [ "$fs" = btrfs ]; then truncate -s 16M "$img" && mkfs.btrfs -q -M "$img" >/dev/null
  else truncate -s 4M "$img" && mkfs.ext4 -q "$img"; fi || return 1
  dev=$(losetup -f --show --direct-io=on "$img") || return 1
  mount "$dev" "$W/live" && mkdir "$W/live/a" "$W/live/b" && echo x > "$W/live/a/f" && umount "$W/live" &&
    mount "$dev" "$W/live" || return 1
  "$W/rename_fsync" "$W/live/a/f" "$W/live/b/f" "${@/#/$W/live/}" && cp --sparse=always "$img" "$img.copy"
  umount "$W/live"
  cdev=$(losetup -f --show "$img.copy") || return 1
  mount "$cdev" "$W/copy" || return 1
  out="a/f $(stat -c %h "$W/copy/a/f" 2>/dev/null || echo absent) b/f $(stat -c %h "$W/copy/b/f" 2>/dev/null || echo absent)"
  umount "$W/copy"
  losetup -d "$cdev" "$dev"
  echo "$out"
}

ok=1
check() { # LABEL WANT GOT
  echo "$1: $3 (want $2)"
  [ "$2" = "$3" ] || ok=0
}
check "btrfs $(uname -r), fsync b" "a/f 2 b/f 2" "$(case_of btrfs b)"
check "btrfs, fsync b then a" "a/f absent b/f 1" "$(case_of btrfs b a)"
check "ext4, fsync b" "a/f absent b/f 1" "$(case_of ext4 b)"
[ $ok = 1 ] && exit 0
exit 1
