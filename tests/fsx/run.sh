#!/usr/bin/env bash
# make fsx: the file exerciser on RefFS (FUSE), ext4 (loop device) and tmpfs, each for the same operations, with its rate.
# Usage: tests/fsx/run.sh [OPS [SEED]]   (FSX_OPS, FSX_SEED; defaults 1000000 and 1). Exit 1 if any fails.
. "$(dirname "$0")/../lib/common.sh"
fsx=${METIS_FSX:?build the exerciser with make fsx}
ops=${1:-${FSX_OPS:-1000000}} seed=${2:-${FSX_SEED:-1}}
[[ $ops =~ ^[1-9][0-9]*$ ]] || { echo "fsx: FSX_OPS must be a positive whole number, not '$ops'" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "fsx: FSX_SEED must be a whole number, not '$seed'" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fsx: needs root (mounts, a loop device)" >&2; exit 2; }
tests/prepare-host.sh || exit 1
status=0

# $1 name, $2 mount point; punch and zero-range are required (-r) where the file system has them.
exercise() {
  local out=$T/$1.out
  if "$fsx" -N "$ops" -S "$seed" ${3:+"$3"} "$2/fsx.file" >"$out" 2>&1; then
    printf '%-8s %s\n' "$1" "$(sed -n 's/^fsx: \([0-9]* operations A-OK.*\)/\1/p' "$out")"
    grep -q 'not supported' "$out" && printf '%-8s %s\n' "" "$(grep -o '[a-z_]* is not supported' "$out" | paste -sd, -)"
  else
    status=1
    printf '%-8s FAILED:\n' "$1"; sed 's/^/    /' "$out" | head -n 40
  fi
}

mkdir -p "$T/reffs" "$T/tmpfs" "$T/ext4"
"$METIS_BIN/reffs" "$T/reffs" || fail "RefFS did not mount"
on_exit "fusermount3 -u '$T/reffs'"
exercise reffs "$T/reffs" -r

mount -t tmpfs -o size=64m fsx-tmpfs "$T/tmpfs" || fail "tmpfs did not mount"
on_exit "umount '$T/tmpfs'"
exercise tmpfs "$T/tmpfs"

img=/dev/shm/metis-fsx-$$.img
truncate -s 64M "$img" && on_exit "rm -f '$img'"
mkfs.ext4 -q -F "$img" || fail "mkfs.ext4 failed"
loop=$(losetup -f --show "$img") || fail "no loop device"
on_exit "losetup -d '$loop'"
mount "$loop" "$T/ext4" || fail "ext4 did not mount"
on_exit "umount '$T/ext4'"
exercise ext4 "$T/ext4" -r
exit $status
