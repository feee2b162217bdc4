#!/usr/bin/env bash
# A FUSE target's unmount_cmd: one that fails once because the mount is busy is run again (as a
# kernel unmount retries EBUSY) and the run goes on to exit 0; one that always fails, busy or
# not, is the target's own class (unmount-failed), exit 1, not Metis's failure (exit 3).
. "$(dirname "$0")/../../lib/common.sh"
need_tools fusermount3
[ -w /dev/fuse ] || skip "no /dev/fuse"
FAIL_LOG=$T/err

# unmount.sh MODE MNT: MODE once-busy fails the first call the way fusermount3 does on a busy
# mount, always-busy every call, always-denied every call with another error; else unmounts.
cat >"$T/unmount.sh" <<'SH'
#!/bin/sh
calls=$(dirname "$0")/calls.$1
echo x >>"$calls"
n=$(wc -l <"$calls")
case $1 in
  once-busy) [ "$n" -gt 1 ] && exec fusermount3 -u "$2" ;;
  always-denied) echo "unmount.sh: $2: Permission denied" >&2; exit 2 ;;
esac
echo "fusermount3: failed to unmount $2: Device or resource busy" >&2
exit 1
SH
chmod +x "$T/unmount.sh"

# config MODE: RefFS against RefFS mounted through mount_cmd and restored by replay, so that
# every backtrack of the search unmounts it through unmount_cmd.
config() {
  cat >"$T/$1.ini" <<INI
[run]
seed = 3
ops = 300
[fs ref]
type = reffs
reffs_opts = inodes=64
[fs tgt]
type = fuse
mount_cmd = {bin}/reffs -o inodes=64,capacity=256K {mnt}
unmount_cmd = $T/unmount.sh $1 {mnt}
restore = replay
[pool]
dirs = 1
files = 2
INI
}

# 1. Busy once: retried, the run ends as it would have (no discrepancy, exit 0).
config once-busy
"$METIS_BIN/metis" run "$T/once-busy.ini" --out "$T/once" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "busy once: exit status $rc, want 0"
[ "$(wc -l <"$T/calls.once-busy")" -gt 2 ] || fail "busy once: the target was hardly unmounted"
[ "$(json_field "$T/once/summary.json" discrepancies)" -eq 0 ] || fail "busy once: a discrepancy"
grep -q '^target ' "$T/once/log.txt" && fail "busy once: a target failure was recorded"
assert_no_leftovers "$(run_id_of "$T/err")"

# 2. Always busy: retried for 3 s, then the target's class; the run stops with exit 1.
config always-busy
start=$(date +%s.%N)
"$METIS_BIN/metis" run "$T/always-busy.ini" --out "$T/busy" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "always busy: exit status $rc, want 1 (a target class), not 3"
grep -q 'infrastructure failure' "$T/err" && fail "always busy: reported as Metis's failure"
grep -q '^target [0-9]* fs=tgt failure=unmount-failed state=[0-9]* op=.* message=.*Device or resource busy' \
    "$T/busy/log.txt" || fail "always busy: no unmount-failed target record"
python3 - "$T/busy/summary.json" <<'PY' || fail "always busy: summary.json has no unmount-failed class"
import json, sys
cs = json.load(open(sys.argv[1]))["classes"]
assert [c["signature"] for c in cs] == ["unmount-failed tgt"], cs
PY
n=$(wc -l <"$T/calls.always-busy")
[ "$n" -gt 3 ] || fail "always busy: the busy unmount was run $n times, not retried"
assert_no_leftovers "$(run_id_of "$T/err")"

# 3. A failure that is not busy is the same class at once, without the retries.
config always-denied
"$METIS_BIN/metis" run "$T/always-denied.ini" --out "$T/denied" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "denied: exit status $rc, want 1"
grep -q '^target [0-9]* fs=tgt failure=unmount-failed .*Permission denied' "$T/denied/log.txt" ||
    fail "denied: no unmount-failed target record"
first=$(grep -n . "$T/calls.always-denied" | wc -l)
[ "$first" -le 3 ] || fail "denied: a failure that is not busy was retried ($first calls)"
assert_no_leftovers "$(run_id_of "$T/err")"
echo PASS
