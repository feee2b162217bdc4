#!/usr/bin/env bash
# Randomized differential test of RefFS's data calls against tmpfs and ext4: mounts RefFS, a tmpfs and an ext4 loop device, runs build/bench/reffs_vs_kernel on each pairing, unmounts. Usage: tests/bench/reffs/reffs_vs_kernel.sh [CALLS [SEED]]
set -eu
. "$(dirname "$0")/../../lib/common.sh"
BIN=$METIS_BIN
CALLS=${1:-1000000} SEED=${2:-1}
need_tools mkfs.ext4 losetup fusermount3
[ -e /dev/fuse ] || skip "/dev/fuse missing"
[ -x "$BIN/reffs" ] || skip "$BIN/reffs not built"
# The plain build's libraries, whatever the calling make was given: SANITIZE=1 reaches a nested
# make through MAKEFLAGS too, which would build in build/san and leave these as they were.
env -u SANITIZE -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
  make --no-print-directory build/libreffs.a build/libreffs-mutant.a >/dev/null
stale=$(find reffs/lib reffs/reffs.h -name '*.[ch]' \( -newer build/libreffs.a -o -newer build/libreffs-mutant.a \) | head -n3)
[ -z "$stale" ] || fail "build/libreffs*.a are older than ${stale//$'\n'/ }: the make above did not rebuild them"
mkdir -p build/bench
for lib in reffs reffs-mutant; do
  ${CC:-cc} -O2 -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -Ireffs -o "build/bench/vs_kernel-$lib" \
    tests/bench/reffs/reffs_vs_kernel.c "build/lib$lib.a" -lzstd -lcrypto -lpthread
done

WORK=$(mktemp -d /tmp/reffs-vs-kernel.$$.XXXXXX)
IMG=/dev/shm/reffs-vs-kernel.$$.img
mkdir "$WORK/reffs" "$WORK/reffs64" "$WORK/tmpfs" "$WORK/ext4"
cleanup() {
  for m in reffs reffs64; do
    mountpoint -q "$WORK/$m" && { fusermount3 -u "$WORK/$m" || umount -l "$WORK/$m"; }
  done
  for m in tmpfs ext4; do mountpoint -q "$WORK/$m" && umount "$WORK/$m"; done
  rm -f "$IMG"
  mountpoint -q "$WORK/reffs" || mountpoint -q "$WORK/ext4" || rm -rf "$WORK"
}
on_exit cleanup
# Each run is waited for in the background, so that a signal ends it at once (bash runs traps
# only between foreground commands) and the mounts it uses are free to go.
child=
stop() {
  [ -n "$child" ] && kill "$child" 2>/dev/null && wait "$child"
  exit 130
}
trap stop INT TERM

# RefFS and tmpfs of the same small size: block counts and ENOSPC must agree too.
"$BIN/reffs" -o capacity=160K "$WORK/reffs"
mount -t tmpfs -o size=160k,mode=0755 "reffs-vs-kernel-$$" "$WORK/tmpfs"
"$BIN/reffs" -o capacity=64M "$WORK/reffs64"
truncate -s 64M "$IMG"
mkfs.ext4 -q -b 4096 -F "$IMG"
mount -o loop "$IMG" "$WORK/ext4"

status=0
# bg OUT PROGRAM ARGS...: runs one comparison into OUT (- for stdout); returns its status.
bg() {
  local out=$1; shift
  if [ "$out" = - ]; then "$@" & else "$@" >"$out" 2>&1 & fi
  child=$!
  wait "$child"
}
run() {  # run LABEL ARGS...: one pairing; a difference fails the whole run
  bg - build/bench/vs_kernel-reffs -n "$CALLS" -s "$SEED" -L "$@" || status=1
}
run "mount vs tmpfs" -m tmpfs -b -r "$WORK/reffs" "$WORK/tmpfs"
run "mount vs ext4" -m fuse -x -r "$WORK/reffs64" "$WORK/ext4"
run "library vs ext4 (with snapshots)" -m all -x -S -l "$WORK/ext4"

# The mutations of these calls must show as differences (the library build with them planted).
for mut in MUT_PUNCH_PARTIAL_KEEPS_DATA MUT_ZERO_RANGE_KEEPS_DATA MUT_COLLAPSE_SHIFT_SHORT \
           MUT_INSERT_SKIPS_FIRST_BLOCK MUT_COPY_RANGE_HOLE_SKIPPED; do
  rc=0
  bg "$WORK/mut.out" build/bench/vs_kernel-reffs-mutant -n 20000 -s "$SEED" -m all -l -M "$mut" "$WORK/ext4" || rc=$?
  caught=$(grep -m1 '^DIFFERENCE' "$WORK/mut.out" || true)
  # Only exit 1 with a DIFFERENCE is a catch: 2 is a refused mutation name or a library built
  # without the mutations, where no defect ran at all.
  if [ $rc -eq 1 ] && [ -n "$caught" ]; then
    echo "$mut: caught, $caught"
  else
    echo "$mut: NOT caught in 20000 calls (exit $rc, want 1 and a DIFFERENCE line):"
    tail -n 3 "$WORK/mut.out"
    status=1
  fi
done
exit $status
