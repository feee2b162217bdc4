# Helper of the RefFS integration tests (sourced): binaries, skips, a work dir with a mount
# point, and a clean-up at exit that unmounts and removes it. Usage: . tests/lib/reffs-mount.sh NAME
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BIN=$METIS_BIN
[ -x "$BIN/reffs" ] && [ -x "$BIN/reffsctl" ] || skip "reffs/reffsctl not built"
[ -e /dev/fuse ] || skip "/dev/fuse missing"
need_tools python3
TREE="python3 $METIS_ROOT/tests/lib/reffs_tree.py"
CTL=$BIN/reffsctl

WORK=$(mktemp -d "/tmp/reffs-$1.$$.XXXXXX")
MNT=$WORK/mnt
mkdir "$MNT"
cleanup() {
  mountpoint -q "$MNT" && { fusermount3 -u "$MNT" || umount -l "$MNT"; }
  mountpoint -q "$MNT" || rm -rf "$WORK"
}
on_exit cleanup
