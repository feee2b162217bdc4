#!/usr/bin/env bash
# populate_dir: a {dir}-backed FUSE target finds the prepopulated entries in its lower directory before every empty mount, starts equal to its reference, and returns to its initial state by a fresh mount; a populate_dir that names no {dir:NAME} is refused.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (mounts)"
need_tools bindfs
write_cfg() {   # $1: populate_dir's value
  cat <<INI
[run]
seed = 1
ops = 600
keep_going = 1
shrink_seconds = 0
[fs tmpfs]
type = kernel
fstype = tmpfs
size = 1M
inodes = 4096
[fs bindfs]
type = fuse
size = 1M
inodes = 4096
mount_cmd = ls -A {dir:lower} >>$T/seen; bindfs {dir:lower} {mnt}
populate_dir = $1
lacks = fallocate:allocate,fallocate:keep_size,fallocate:punch_hole,fallocate:zero_range,
    fallocate:zero_range_keep,fallocate:collapse,fallocate:insert,hardlinks
[pool]
dirs = 2
files = 2
depth = 1
prepopulate = 0.7
INI
}
write_cfg lower >"$T/ok.ini"
FAIL_LOG=$T/err
"$METIS_BIN/metis" run "$T/ok.ini" --depth 2 --out "$T/run" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "exit $rc, want 0 or 1"
! grep -q "^initial state" "$T"/run/discrepancy-*.txt 2>/dev/null || fail "the initial states differ"
[ -s "$T/seen" ] || fail "the mount command never saw an entry in {dir:lower} before mounting"
fresh=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["backends"]["bindfs"].get("fresh_initial", -1))' "$T/run/summary.json")
[ "$fresh" -gt 0 ] || fail "no return to the initial state by a fresh mount (fresh_initial=$fresh)"
assert_no_leftovers "$(run_id_of "$T/err")"

write_cfg upper >"$T/bad.ini"
"$METIS_BIN/metis" check "$T/bad.ini" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || fail "populate_dir naming no {dir:NAME}: exit $rc, want 2"
grep -q "bad.ini:[0-9]*: \[fs bindfs\]: populate_dir = upper: mount_cmd names no {dir:upper}" "$T/err" ||
  fail "the refusal does not name the line and the problem: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "the refusal is not one line"
echo "populate_dir: entries in the lower directory before mounting; fresh_initial=$fresh"
