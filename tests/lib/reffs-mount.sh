# Shared prologue of the RefFS integration tests: binaries, skips, a work dir with a mount
# point, and a trap that unmounts and removes it. Usage: . tests/lib/reffs-mount.sh NAME
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${METIS_BIN:-$HERE/../../bin}
[ -x "$BIN/reffs" ] && [ -x "$BIN/reffsctl" ] || { echo "skip: reffs/reffsctl not built"; exit 77; }
[ -e /dev/fuse ] || { echo "skip: /dev/fuse missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
TREE="python3 $HERE/reffs_tree.py"
CTL=$BIN/reffsctl

WORK=$(mktemp -d "/tmp/reffs-$1.$$.XXXXXX")
MNT=$WORK/mnt
mkdir "$MNT"
cleanup() {
  mountpoint -q "$MNT" && { fusermount3 -u "$MNT" || umount -l "$MNT"; }
  mountpoint -q "$MNT" || rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
