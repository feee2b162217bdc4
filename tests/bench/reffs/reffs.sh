#!/usr/bin/env bash
# Benchmark driver: builds reffs_readback, mounts RefFS and a tmpfs, runs it unpinned and with daemon and caller on one CPU, unmounts. Usage: tests/bench/reffs/reffs.sh [ITERATIONS]
set -eu
. "$(dirname "$0")/../../lib/common.sh"
BIN=$METIS_BIN
[ -x "$BIN/reffs" ] || make --no-print-directory "$BIN/reffs" >/dev/null
mkdir -p build/bench
[ -f lib/metis/libmetis.a ] || make --no-print-directory lib/metis/libmetis.a >/dev/null
${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -Ireffs -Ifs-state -o build/bench/reffs_readback \
  tests/bench/reffs/reffs_readback.c lib/metis/libmetis.a -lcrypto -lpthread

WORK=$(mktemp -d /tmp/reffs-bench.$$.XXXXXX)
MNT=$WORK/reffs TMPFS=$WORK/tmpfs
mkdir "$MNT" "$TMPFS"
cleanup() {
  mountpoint -q "$MNT" && { fusermount3 -u "$MNT" || umount -l "$MNT"; }
  mountpoint -q "$TMPFS" && umount "$TMPFS"
  mountpoint -q "$MNT" || mountpoint -q "$TMPFS" || rm -rf "$WORK"
}
on_exit cleanup

# run LABEL MOUNT_OPTIONS PREFIX...: one fresh mount per configuration; PREFIX runs both daemon and benchmark.
run() {
  local label=$1 opts=$2; shift 2
  echo "== $label"
  "$@" "$BIN/reffs" -o "$opts" "$MNT"
  mount -t tmpfs -o mode=0755,size=16m "tmpfs-bench-$$" "$TMPFS"
  "$@" build/bench/reffs_readback "$MNT" "$TMPFS" "$ITER"
  fusermount3 -u "$MNT"
  umount "$TMPFS"
}
# A FUSE round trip costs ~7 us when caller and daemon share a CPU, far more when the
# reply must wake another (idle) vCPU: Metis runs RefFS on its own CPU.
ITER=${1:-5500}
CPU=$(( $(nproc) - 1 ))
run "daemon and caller pinned to CPU $CPU" capacity=64M taskset -c "$CPU"
run "pinned to CPU $CPU, -o noopen" noopen taskset -c "$CPU"
run "unpinned" capacity=64M env
