#!/usr/bin/env bash
# ext4 against btrfs (the shipped config, 400 operations): free space equalized to the byte, though btrfs counts a fill only when it commits, and no discrepancy.
. "$(dirname "$0")/../../lib/common.sh"
command -v mkfs.btrfs >/dev/null || { echo "mkfs.btrfs is not installed"; exit 77; }
kernel_has_fs btrfs || skip "the kernel has no btrfs, and modprobe could not load it"
"$METIS_BIN/metis" run configs/ext4-vs-btrfs.ini --ops 400 --seconds 0 --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc"
free() { sed -n "s/^free $1 inodes=[0-9]* bytes=\([0-9]*\)$/\1/p" "$T/run/log.txt"; }
e=$(free ext4) b=$(free btrfs)
[ -n "$e" ] && [ "$e" = "$b" ] || fail "free bytes after equalization: ext4 ${e:-?}, btrfs ${b:-?}"
[ "$(json_field "$T/run/summary.json" discrepancies)" -eq 0 ] || fail "discrepancies"
assert_no_leftovers "$(run_id_of "$T/err")"
