#!/usr/bin/env bash
# crash = fsync on formats without a journal (ext4 of 256 KiB, ext2): a new FIFO, socket or
# symlink, whose directory's fsync does not write its inode there, gets a syncfs instead, so
# 2,000 operations with mknod and symlink drawn often find nothing (issue 23's false crash-mount).
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
need_tools mkfs.ext4 mkfs.ext2 e2fsck losetup
OPS=${CRASH_NOJOURNAL_OPS:-2000}

# run NAME CONFIG: metis run over CONFIG for $OPS operations; fails on anything but a clean run.
run() {
  local name=$1 ini=$2 rc
  "$METIS_BIN/metis" run "$ini" --out "$T/$name" --ops "$OPS" --seconds 0 2> "$T/$name.err"
  rc=$?
  tail -n 1 "$T/$name.err"
  assert_no_leftovers "$(run_id_of "$T/$name.err")"
  [ $rc = 0 ] || { grep -m3 '^crash .*recovered=[^s]' "$T/$name/log.txt"; fail "$name: exit $rc, want 0"; }
  [ "$(json_field "$T/$name/summary.json" ops)" = "$OPS" ] || fail "$name: not $OPS operations"
  local fs=$3 made checked
  checked=$(grep -c "^crash [0-9]* $fs sync=.* recovered=same$" "$T/$name/log.txt")
  [ "$checked" = "$OPS" ] || fail "$name: $checked of $OPS operations crash-checked"
  # The case of the issue must have come up: a mknod or symlink that succeeded, then a syncfs.
  made=$(grep -c "^crash [0-9]* $fs sync=syncfs recovered=same$" "$T/$name/log.txt")
  [ "$made" -ge 20 ] || fail "$name: only $made operations got the syncfs of a new special inode"
  echo "$name: $OPS operations crash-checked, $made of them by a syncfs, no finding"
}

# The default pair (seed 1, the run that reported crash-mount) with crash = fsync, mknod and
# symlink drawn four times as often as the rest; remounted, as a crash check needs.
sed -e 's/^seconds = 60$/seconds = 0\ncrash = fsync/' -e 's/^remount = 0$/remount = 1/' \
  configs/ref-vs-ext4.ini > "$T/ref.ini"
printf '\n[ops]\nmknod = 4\nsymlink = 4\n' >> "$T/ref.ini"
run ref-ext4 "$T/ref.ini" ext4

cat > "$T/ext2.ini" <<'INI'
[run]
seed = 2
crash = fsync

[fs ext2]
type = kernel
fstype = ext2
size = 256K

[sizes]
write_size = uniform:11
write_offset = uniform:11
trunc_size = uniform:14

[ops]
fallocate_file = 0
mknod = 4
symlink = 4
INI
run ext2 "$T/ext2.ini" ext2

# With the test hook that leaves out the fsync of writes, a loss is found, and the reproducer
# emit-c writes syncs as the check did (a syncfs after each new FIFO, socket or symlink): it
# shows the hook's loss, not an unreadable copy.
sed 's/^crash = fsync$/crash = fsync\ncrash_test_skip = write_file/' "$T/ext2.ini" > "$T/hook.ini"
"$METIS_BIN/metis" run "$T/hook.ini" --out "$T/hook" --ops 600 2> "$T/hook.err"
[ $? = 1 ] || fail "the hook found nothing in 600 operations"
assert_no_leftovers "$(run_id_of "$T/hook.err")"
"$METIS_BIN/metis-replay" trace "$T/hook" -o "$T/hook.trace" 2> /dev/null || fail "trace failed"
grep -q '^op [0-9]* \(mknod\|symlink\) ' "$T/hook.trace" || fail "no mknod or symlink on the path to the loss"
"$METIS_BIN/metis-replay" emit-c "$T/hook.trace" -o "$T/emit" > /dev/null || fail "emit-c failed"
made=$(grep -c '^op [0-9]* \(mknod\|symlink\) ' "$T/hook.trace")
synced=$(grep -c 'syncfs(fd)' "$T/emit/repro.c")
[ "$synced" = "$made" ] || fail "the reproducer has $synced syncfs for $made new FIFOs, sockets and symlinks"
"$T/emit/run.sh" > "$T/emit.out" 2>&1
[ $? = 1 ] || { cat "$T/emit.out"; fail "the reproducer did not show the loss"; }
grep -q "the recovered copy is not what the sync promised" "$T/emit.out" || fail "the reproducer shows no loss"
! grep -q "Structure needs cleaning\|Bad message" "$T/emit.out" || fail "the reproducer's copy was unreadable"
echo PASS
