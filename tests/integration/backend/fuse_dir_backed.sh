#!/usr/bin/env bash
# A FUSE file system that keeps its data in a directory (bindfs over {dir}) against RefFS: the
# directory is a run-owned tmpfs of the fs's size (free space equalizes), empty for every mount
# that starts afresh (setup, each replay), and gone after the run, a SIGINT or a killed engine;
# a discrepancy it shows replays, shrinks and gets a reproducer that exits 1 on bindfs.
. "$(dirname "$0")/../../lib/common.sh"
need_tools bindfs fusermount3
FAIL_LOG=$T/err

# Every mount records what its directory held before the daemon started: nothing, each time.
config() {  # RESTORE [COMMAND before the mount]
  cat <<INI
[run]
seed = 3
ops = 300
max_depth = 10
keep_going = 1
shrink_seconds = 10
[fs ref]
type = reffs
size = 256K
[fs bind]
type = fuse
size = 256K
restore = $1
mount_cmd = echo mount >>$T/mounts; ls -A {dir} >>$T/seen; ${2:-true}; bindfs {dir} {mnt}
[pool]
dirs = 2
files = 3
[sizes]
write_size = uniform:10
write_offset = uniform:12
trunc_size = uniform:12
falloc_offset = uniform:12
falloc_len = uniform:10
INI
}

# run RESTORE OUT [COMMAND]: one run, exit 0 or 1 (1 here: bindfs refuses fallocate's modes)
run() {
  config "$1" "${3:-}" >"$T/$1.ini"
  : >"$T/mounts"; : >"$T/seen"
  "$METIS_BIN/metis" run "$T/$1.ini" --out "$T/$2" 2>"$T/err"
  local rc=$?
  [ $rc -eq 1 ] || fail "restore = $1: exit status $rc, want 1 (a discrepancy, not 3)"
  assert_no_leftovers "$(run_id_of "$T/err")"
  [ ! -s "$T/seen" ] || fail "restore = $1: a mount found its directory not empty: $(head -3 "$T/seen")"
}

run logical logical
python3 - "$T/logical/summary.json" <<'PY' || fail "summary.json: free space not equal or restores not logical"
import json, sys
b = json.load(open(sys.argv[1]))["backends"]
print(b["bind"])
for name in ("ref", "bind"):   # a directory of /tmp would have gigabytes free: left unequal
    assert b[name]["unequal_bytes"] == 0 and b[name]["unequal_inodes"] == 0, (name, b[name])
assert b["bind"]["restore"] == "logical" and b["bind"]["logical_restores"] > 50, b["bind"]
PY

# restore = replay: every restore mounts afresh; a directory left as it was would hold the
# previous mount's files (seen, and the replay would not reach its state: exit 3). Each fresh
# directory is made 0777 here: its root is set to the reference's 0755 after each mount.
run replay replay 'chmod 0777 {dir}'
grep -q "bind: root set to the reference's: mode 0777 -> 0755" "$T/err" || fail "root not equalized"
n=$(wc -l <"$T/mounts")
[ "$n" -gt 50 ] || fail "restore = replay mounted $n times"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["backends"]["bind"]["replays"])' \
      "$T/replay/summary.json")" -gt 50 ] || fail "too few replays"

# The first discrepancy: metis-replay repro and shrink bring it back on fresh directories.
d=$T/logical/discrepancy-1.txt
: >"$T/seen"
"$METIS_BIN/metis-replay" repro "$d" --config "$T/logical.ini" >"$T/err" 2>&1
rc=$?; [ $rc -eq 1 ] || fail "repro: exit status $rc, want 1"
"$METIS_BIN/metis-replay" shrink "$d" --config "$T/logical.ini" -o "$T/s.trace" >"$T/err" 2>&1
rc=$?; [ $rc -eq 1 ] || fail "shrink: exit status $rc, want 1"
grep -q 'shrink: [0-9]* -> [0-9]* operations' "$T/err" || fail "shrink did not say what it shrank"
[ ! -s "$T/seen" ] || fail "a replayer mount found its directory not empty"
"$METIS_BIN/metis-replay" emit-c "$T/s.trace" --config "$T/logical.ini" -o "$T/emit" >"$T/err" 2>&1 ||
  fail "emit-c failed"
grep -q 'mktemp -d "$work/dir-dir' "$T/emit/run.sh" || fail "run.sh makes no directory of its own"
"$T/emit/run.sh" >"$T/err" 2>&1
rc=$?; [ $rc -eq 1 ] || fail "run.sh on bindfs: exit status $rc, want 1"
grep -q '^repro: the defect shows: first difference: step ' "$T/err" || fail "run.sh: not a step's difference"
"$T/emit/run.sh" ref >"$T/err" 2>&1
rc=$?; [ $rc -eq 0 ] || fail "run.sh on the reference: exit status $rc, want 0"

# interrupted: SIGINT to metis, and SIGKILL to its engine (the sweep's turn): no scratch left
config logical | sed 's/^ops = 300/ops = 0/' >"$T/long.ini"
for sig in INT KILL; do
  "$METIS_BIN/metis" run "$T/long.ini" --seconds 30 --out "$T/sig$sig" 2>"$T/err" &
  pid=$!
  # until the search is under way, however long its set-up takes on this machine
  wait_for 300 eval 'lines_at_least "$T/sig$sig/log.txt" "^op " 101 || gone $pid'
  id=$(run_id_of "$T/err")
  findmnt -rn -o TARGET,FSTYPE | grep -q "metis-$id/mnt-bind.dir tmpfs" ||
    fail "SIG$sig: no scratch tmpfs while the run went on"
  if [ $sig = INT ]; then kill -INT $pid; else kill -KILL $(pgrep -P $pid); fi
  wait $pid
  rc=$?
  [ $sig = KILL ] || [ $rc -eq 130 ] || fail "SIGINT: exit status $rc, want 130"
  assert_no_leftovers "$id"
done
exit 0
