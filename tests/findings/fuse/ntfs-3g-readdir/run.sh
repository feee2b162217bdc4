#!/usr/bin/env bash
# Confirms outside Metis that lowntfs-3g lists fewer entries than exist when read with 128-byte getdents64 buffers (no .metis-filler, no Metis), against tmpfs; prints the counts.
# usage: tests/findings/fuse/ntfs-3g-readdir/run.sh   (root)
# Exit 0 when ntfs-3g missed entries in both listings and tmpfs in none (what the finding
# says), 1 otherwise, 77 when lowntfs-3g is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/mounts.sh"
cc -O2 -o "$W/listing" "$here/listing.c" || exit 2
mount_target ntfs-3g "$W/ntfs" 2>/dev/null || exit 77
status=0
echo "ntfs-3g $(version_of ntfs-3g):"
"$W/listing" "$W/ntfs" 8 128; [ $? -eq 1 ] || status=1            # the root, 8 files
"$W/listing" "$W/ntfs/sub" 302 128; [ $? -eq 1 ] || status=1      # a subdirectory, 302 files
"$W/listing" "$W/ntfs/big" 300 4096                               # the same with 4-KiB buffers
mount_target tmpfs "$W/tmpfs" || exit 2
echo "tmpfs (control):"
"$W/listing" "$W/tmpfs" 8 128 || status=1
"$W/listing" "$W/tmpfs/sub" 302 128 || status=1
exit $status
