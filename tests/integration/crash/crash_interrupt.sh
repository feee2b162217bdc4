#!/usr/bin/env bash
# SIGINT during crash-checked runs (crash = any, with its recovery mounts and checker, and crash
# = fsync) stops them with status 130 and removes the crash copies, their loop devices and mount
# points with everything else; so does the front end's sweep when the engine is killed outright.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (loop devices, mounts)"; exit 77; }
command -v e2fsck >/dev/null || { echo "skip: e2fsck missing"; exit 77; }

# start NAME MODE N: starts a run of configs/crash-ext4.ini with crash = MODE; waits until its
# log holds N crash checks; sets $pid.
start() {
  sed "s/^crash = fsync/crash = $2/" configs/crash-ext4.ini > "$T/$1.ini"
  "$METIS_BIN/metis" run "$T/$1.ini" --seconds 120 --out "$T/$1" 2> "$T/$1.err" &
  pid=$!
  local name=$1 n=$3
  wait_for 300 eval 'lines_at_least "$T/$name/log.txt" "^crash " "$n" || gone $pid'
  lines_at_least "$T/$name/log.txt" "^crash " "$n" && return 0
  kill -INT $pid; wait $pid
  FAIL_LOG=$T/$name.err fail "$name: the run ended or hung before $n crash checks"
}

# While a run goes, its crash copy exists under its run id.
copy_exists() {
  ls /dev/shm/metis-"$1"/ext4.crash.img >/dev/null 2>&1 && losetup -a | grep -q "metis-$1/ext4.crash.img"
}

for mode in any fsync; do
  start "int-$mode" "$mode" 30
  id=$(run_id_of "$T/int-$mode.err")
  copy_exists "$id" || fail "$mode: no crash copy on a loop device while the run goes"
  kill -INT $pid
  wait $pid
  rc=$?
  tail -n 1 "$T/int-$mode.err"
  [ $rc = 130 ] || fail "$mode: exit status $rc after SIGINT, want 130"
  [ "$(json_field "$T/int-$mode/summary.json" status)" = interrupted ] || fail "$mode: summary does not say interrupted"
  assert_no_leftovers "$id"
  [ -z "$(find "$T/int-$mode/work" -name 'mnt-*' 2>/dev/null)" ] || fail "$mode: mount points left in the run's work directory"
done

# The engine killed with SIGKILL: no teardown of its own; the front end sweeps the run id.
start kill fsync 30
id=$(run_id_of "$T/kill.err")
engine=$(pgrep -P $pid | head -n1)
[ -n "$engine" ] || fail "no engine process under metis $pid"
kill -KILL "$engine"
wait $pid
rc=$?
[ $rc = 3 ] || fail "exit status $rc after the engine was killed, want 3"
assert_no_leftovers "$id"
echo PASS
