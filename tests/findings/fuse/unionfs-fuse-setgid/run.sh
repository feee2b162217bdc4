#!/usr/bin/env bash
# Confirms outside Metis what unionfs-fuse does in a set-group-ID directory: mkdir loses the inherited S_ISGID (any caller), and a caller other than root gets its own group on every new entry; the kernel overlayfs on the same layers is the reference.
# usage: tests/findings/fuse/unionfs-fuse-setgid/run.sh   (root)
# Exit 0 when unionfs-fuse shows both (what the cause table says) and the overlay neither, 1
# otherwise, 77 when unionfs-fuse, setpriv or the overlay file system is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/mounts.sh"
command -v unionfs >/dev/null && command -v setpriv >/dev/null || { echo "skip: unionfs-fuse: not installed (or no setpriv)"; exit 77; }
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || { echo "skip: no overlayfs"; exit 77; }
chmod 755 "$W"
for s in kernel union; do mkdir -p "$W/$s/lower" "$W/$s/upper" "$W/$s/work" "$W/$s/mnt"; done
mount -t overlay overlay -o "lowerdir=$W/kernel/lower,upperdir=$W/kernel/upper,workdir=$W/kernel/work" "$W/kernel/mnt" || exit 2
# allow_other lets uid 1000 in; the campaign's profile mounts the same way without it.
unionfs -o cow,use_ino,hide_meta_files,allow_other "$W/union/upper=RW:$W/union/lower=RO" "$W/union/mnt" || exit 2

# In a set-gid directory of group 0: root makes a directory; uid 1000 (group 1000) makes a
# file, a directory, a FIFO and a symlink. Prints each entry's group and mode.
probe() {
  local m=$1
  chmod 755 "$m"; mkdir "$m/g"; chgrp 0 "$m/g"; chmod 2777 "$m/g"
  mkdir "$m/g/rootdir"
  setpriv --reuid=1000 --regid=1000 --clear-groups sh -c \
    "umask 0; touch '$m/g/file'; mkdir '$m/g/dir'; mkfifo '$m/g/fifo'; ln -s x '$m/g/link'"
  stat -c '%n gid=%g mode=%a' "$m/g/rootdir" "$m/g/file" "$m/g/dir" "$m/g/fifo" "$m/g/link" | sed "s|$m/g/||"
}
echo "unionfs-fuse $(version_of unionfs-fuse), kernel overlayfs as the reference:"
ref=$(probe "$W/kernel/mnt"); got=$(probe "$W/union/mnt")
paste -d' ' <(echo "$ref" | sed 's/^/overlay: /') <(echo "$got" | sed 's/^/| unionfs-fuse: /')
status=0
# The reference gives every entry group 0 and each directory S_ISGID.
[ "$(echo "$ref" | grep -c 'gid=0 ')" -eq 5 ] && [ "$(echo "$ref" | grep -c 'dir gid=0 mode=27')" -eq 2 ] || { echo "the overlay did not behave as expected"; status=1; }
# unionfs-fuse: root's directory keeps group 0 but loses S_ISGID; uid 1000's entries take group 1000.
echo "$got" | grep -q '^rootdir gid=0 mode=7' || { echo "root's mkdir kept S_ISGID: not confirmed"; status=1; }
[ "$(echo "$got" | grep -c 'gid=1000 ')" -eq 4 ] || { echo "uid 1000's entries did not all take group 1000: not confirmed"; status=1; }
exit $status
