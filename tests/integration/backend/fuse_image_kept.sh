#!/usr/bin/env bash
# An image-backed FUSE target kept mounted (remount = 0): fuse2fs against kernel ext4 runs many
# operations on few daemons (counted by its mount command), restores logically after
# backtracking with no discrepancy beyond fuse2fs's known classes, triage starts its classes
# from the images of checkpoints, and an incoherence planted between what the daemon shows and
# what its image holds is caught by the checkpoints' remount check.
. "$(dirname "$0")/../../lib/common.sh"
need_tools fuse2fs debugfs mkfs.ext4
[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"

write_cfg() {   # $1: remount_every, $2: the unmount command, $3: shrink_seconds (default 0)
  cat <<INI
[run]
seed = 1
keep_going = 1
shrink_seconds = ${3:-0}

[fs ext4]
type = kernel
fstype = ext4
size = 256K

[fs fuse2fs]
type = fuse
fstype = ext4
size = 256K
mount_cmd = echo \$PPID >>$T/starts; fuse2fs -o default_permissions -s -f {img} {mnt}
unmount_cmd = $2
remount = 0
remount_every = $1
lacks = rename:noreplace,rename:exchange,fallocate:zero_range,fallocate:zero_range_keep,
    fallocate:collapse,fallocate:insert,open_unlink

[pool]
dirs = 2
files = 2
depth = 1
INI
}
field() { python3 -c 'import json,sys; print(eval("json.load(open(sys.argv[1]))" + sys.argv[2]))' "$@"; }

# 1. Many steps on few daemons, restored logically, nothing but the known classes.
write_cfg 16 "umount {mnt}" >"$T/kept.ini"
: >"$T/starts"
FAIL_LOG=$T/err
# Bounded by operations, not time: a kept run once met a content difference after chmod at
# operation 3,165 and a failed remount check right after (fs-state/backend/README.md, open).
"$METIS_BIN/metis" run "$T/kept.ini" --ops 1500 --seconds 60 --known configs/targets/fuse2fs.known \
  --out "$T/run" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc: a class fuse2fs.known does not list, or a failure"
s=$T/run/summary.json
ops=$(field "$s" '["ops"]')
# Each line is the pid of the process that ran the mount command: the run's own (its set-up
# came first), not the triage's replayers.
starts=$(grep -cx "$(head -n1 "$T/starts")" "$T/starts")
mounts=$(field "$s" '["backends"]["fuse2fs"]["mounts"]')
restores=$(field "$s" '["backends"]["fuse2fs"]["logical_restores"]')
verified=$(field "$s" '["backends"]["fuse2fs"]["verified"]')
checks=$(field "$s" '["backends"]["fuse2fs"]["kept"]["remount_checks"]')
echo "ops $ops, daemon starts $starts (summary: $mounts), logical restores $restores" \
  "(verified $verified), remount checks $checks"
[ "$ops" -ge 200 ] || fail "only $ops operations"
[ "$starts" -eq "$mounts" ] || fail "the run ran the mount command $starts times, summary.json says $mounts"
# Remounted, every operation would start the daemon. Kept, the starts are the checkpoints (every
# 16 steps down a path: a search that backtracks often meets one every 8 to 9 operations) and a
# few restores that replay from one.
[ $((starts * 5)) -le "$ops" ] || fail "$starts daemon starts for $ops operations: not kept mounted"
[ "$restores" -gt 0 ] && [ "$verified" -eq "$restores" ] || fail "logical restores: $restores, verified $verified"
[ "$checks" -gt 0 ] || fail "no remount check ran"
! grep -q "unreadable\|restore-unreachable" "$T/run/classes.txt" || fail "a target failure in the kept run"
assert_no_leftovers "$(run_id_of "$T/err")"

# 2. Triage from checkpoints: with no declarations, a class met after the first checkpoints
# starts from a saved image near its end and shrinks to a few operations (before checkpoints it
# replayed from the empty image). fuse2fs's XATTR_CREATE bug (0 where ext4 says EEXIST) is met
# at operation 432 at seed 1 (its mkdir mode bug was, at 433, before main's search changed).
write_cfg 16 "umount {mnt}" 30 >"$T/triage.ini"
"$METIS_BIN/metis" run "$T/triage.ini" --ops 600 --out "$T/triage" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "triage run: exit status $rc, want 1 (fuse2fs's bugs, undeclared)"
c=$T/triage/classes.txt
grep -A6 "^class [0-9]*: setxattr/create fuse2fs errno 0, reference EEXIST" "$c" >"$T/class" ||
  fail "no setxattr/create class: $(head -n3 "$c")"
grep -q "starts from: the saved state after operation" "$T/class" ||
  fail "the setxattr/create class did not start from a checkpoint: $(cat "$T/class")"
grep -q "fuse2fs-[0-9]*.img" "$T/triage/discrepancy-"*.txt ||
  fail "no report exported an image of fuse2fs"
n=$(sed -n 's/.*shrunk [0-9]* -> \([0-9]*\) operations.*/\1/p' "$T/class")
[ -n "$n" ] && [ "$n" -le 3 ] || fail "the setxattr/create class shrank to '${n:-?}' operations, want at most 3"
assert_no_leftovers "$(run_id_of "$T/err")"

# remount_every where no kept mount is: bad input, naming the file and line.
write_cfg 16 "umount {mnt}" | sed 's/^remount = 0$/remount = 1/' >"$T/bad.ini"
"$METIS_BIN/metis" check "$T/bad.ini" >"$T/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "remount_every with remount = 1: exit status $rc, want 2"
grep -q "bad.ini:[0-9]*: .*remount_every applies to a file system with an image kept mounted" "$T/out" ||
  fail "remount_every with remount = 1: $(head -n1 "$T/out")"

# 3. Planted incoherence: every unmount adds a directory to the image behind the daemon's
# back, so the tree read after a remount is not the live one.
write_cfg 4 "umount {mnt} && debugfs -w -R 'mkdir planted' {img} >/dev/null 2>&1" >"$T/planted.ini"
"$METIS_BIN/metis" run "$T/planted.ini" --seconds 4 --out "$T/planted" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "planted incoherence: exit status $rc, want 1 (a finding)"
grep -q "unreadable" "$T/planted/classes.txt" || fail "planted incoherence: no unreadable class"
# The first difference is the root's link count: the planted directory's "..".
grep -rqs "remount check: the tree after a remount is not the live one: live '/ d" "$T/planted" ||
  fail "planted incoherence: no report names the remount check"
assert_no_leftovers "$(run_id_of "$T/err")"
exit 0
