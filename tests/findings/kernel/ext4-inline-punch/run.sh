#!/usr/bin/env bash
# ext4 with inline_data: fallocate on a small (inline) file moves its bytes to a block behind the page cache's back: a punch or zero range of part of it answers 0, its fsync writes the zeros to the block, and then the older copy the conversion journalled as metadata is written over them from the block device's cache (after a remount the old bytes are back), and after a remount any fallocate, even one refused with EINVAL, or a truncate past the inline size makes reads show zeros until the next remount. The default ext4 does neither.
# usage: tests/findings/kernel/ext4-inline-punch/run.sh   (root; mkfs.ext4, xfs_io, losetup)
# For each of fpunch and fzero (with and without keep-size) on a 12-byte file written and synced
# first: the op, fsync, the block read from the image file (not from the loop device: an
# O_DIRECT read of the device writes its dirty cache first), unmount, mount, read. Then, cold: the file
# written, the fs remounted, `falloc -k 0 256`, `fcollapse 322 60` (EINVAL) or `truncate 50785`
# (past what fits inline), and a read. Exit 0 when on inline_data every op's zeros are lost and
# every cold read shows zeros, and the default ext4 shows neither (the finding holds), 1
# otherwise, 77 when root or a tool is missing.
set -u
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }
for t in mkfs.ext4 xfs_io losetup; do
  command -v $t > /dev/null || { echo "skip: needs $t"; exit 77; }
done
work=$(mktemp -d /dev/shm/ext4-inline-punch.XXXXXX)
loop=""
cleanup() {
  mountpoint -q "$work/mnt" && umount "$work/mnt"
  [ -n "$loop" ] && losetup -d "$loop"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir "$work/mnt"

# bytes FILE: the file's first 12 bytes, printable
bytes() { head -c 12 "$1" | od -An -c | tr -s ' '; }

# trial MKFS_OPTS OP: prints the live, on-disk and remounted bytes; 0 when the zeros survived
trial() {
  local opts=$1 op=$2 live disk after sec
  truncate -s 2M "$work/img" && mkfs.ext4 -q -F $opts "$work/img" || return 2
  loop=$(losetup -f --show "$work/img") && mount "$loop" "$work/mnt" || return 2
  printf 'ABCDEFGHIJKL' > "$work/mnt/f" && sync
  xfs_io -c "$op" -c fsync "$work/mnt/f" || return 2
  live=$(bytes "$work/mnt/f")
  sec=$(xfs_io -r -c fiemap "$work/mnt/f" | awk '$1 == "0:" { split($3, a, "."); print a[1] }')
  disk=$(dd if="$work/img" bs=512 skip="$sec" count=1 status=none | bytes /dev/stdin)
  umount "$work/mnt" && mount "$loop" "$work/mnt" || return 2
  after=$(bytes "$work/mnt/f")
  umount "$work/mnt"; losetup -d "$loop"; loop=""; rm -f "$work/img"
  printf '%-16s %-16s live:%s | disk:%s | remount:%s\n' "${opts:-default}" "$op" "$live" "$disk" "$after"
  [ "$live" = "$after" ]
}

# cold MKFS_OPTS OP: the file's bytes read right after OP on a freshly mounted fs; 0 when intact
cold() {
  local opts=$1 op=$2 got
  truncate -s 2M "$work/img" && mkfs.ext4 -q -F $opts "$work/img" || return 2
  loop=$(losetup -f --show "$work/img") && mount "$loop" "$work/mnt" || return 2
  printf 'ABCDEFGHIJKL' > "$work/mnt/f"
  umount "$work/mnt" && mount "$loop" "$work/mnt" || return 2
  xfs_io -c "$op" "$work/mnt/f" 2> /dev/null
  got=$(bytes "$work/mnt/f")
  umount "$work/mnt"; losetup -d "$loop"; loop=""; rm -f "$work/img"
  printf '%-16s cold %-11s read:%s\n' "${opts:-default}" "$op" "$got"
  [ "$got" = "$(printf ABCDEFGHIJKL | bytes /dev/stdin)" ]
}

holds=1
for op in "falloc -k 0 256" "fcollapse 322 60" "truncate 50785"; do
  cold "-O inline_data" "$op"; rc=$?
  [ $rc = 2 ] && { echo "setup failed"; exit 1; }
  [ $rc = 1 ] || holds=0
  cold "" "$op" || holds=0
done
for op in "fpunch 2 5" "fzero -k 2 5" "fzero 2 5"; do
  trial "-O inline_data" "$op"; rc=$?
  [ $rc = 2 ] && { echo "setup failed"; exit 1; }
  [ $rc = 1 ] || holds=0
  trial "" "$op" || holds=0
done
[ $holds = 1 ] && { echo "holds: inline_data loses the zeros of every op and reads zeros after each cold fallocate and truncate; the default does neither"; exit 0; }
echo "does not hold"; exit 1
