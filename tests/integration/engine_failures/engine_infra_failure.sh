#!/usr/bin/env bash
# A mount that fails is an infrastructure failure (exit 3) naming the fs and the step, never a
# discrepancy, and it leaves no mount, loop device or /dev/shm file behind.
. "$(dirname "$0")/../../lib/common.sh"
cat >"$T/badmount.ini" <<'INI'
[run]
ops = 50
[fs ref]
type = reffs
[fs ext4]
type = kernel
fstype = ext4
size = 256K
mount_opts = no_such_mount_option
[pool]
dirs = 1
files = 1
INI
"$METIS_BIN/metis" run "$T/badmount.ini" --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 3 ] || fail "exit status $rc, want 3"
grep -q "ext4" "$T/err" || fail "message does not name the file system"
grep -qi "mount" "$T/err" || fail "message does not name the step"
[ "$(json_field "$T/run/summary.json" discrepancies)" -eq 0 ] || fail "reported as a discrepancy"
assert_no_leftovers "$(run_id_of "$T/err")"
