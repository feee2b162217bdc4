#!/usr/bin/env bash
# SIGINT during crash-checked runs (crash = any, with its recovery mounts and checker, crash
# = fsync, and crash_states = stream with its two copies and a checker thread) stops them with
# status 130 and removes the crash copies, their loop devices and mount points with everything
# else; so does the front end's sweep when the engine is killed outright.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (loop devices, mounts)"; exit 77; }
command -v e2fsck >/dev/null || { echo "skip: e2fsck missing"; exit 77; }

# start NAME MODE N: starts a run of configs/crash-ext4.ini with crash = MODE (stream: fsync
# with crash_states = stream); waits until its log holds N crash checks; sets $pid.
start() {
  local set="crash = $2"
  [ "$2" = stream ] && set="crash = fsync\ncrash_states = stream"
  sed "s/^crash = fsync/$set/" configs/crash-ext4.ini > "$T/$1.ini"
  "$METIS_BIN/metis" run "$T/$1.ini" --seconds 120 --out "$T/$1" 2> "$T/$1.err" &
  pid=$!
  local name=$1 n=$3
  wait_for 300 eval 'lines_at_least "$T/$name/log.txt" "^crash " "$n" || gone $pid'
  lines_at_least "$T/$name/log.txt" "^crash " "$n" && return 0
  kill -INT $pid; wait $pid
  FAIL_LOG=$T/$name.err fail "$name: the run ended or hung before $n crash checks"
}

# copy_exists ID [FILE]: while a run goes, its crash copy FILE (ext4.crash.img; a stream's
# states have a second one, ext4.crash2.img) exists under its run id, on a loop device.
copy_exists() {
  local f=${2:-ext4.crash.img}
  ls /dev/shm/metis-"$1"/$f >/dev/null 2>&1 && losetup -a | grep -q "metis-$1/$f"
}

for mode in any fsync stream; do
  start "int-$mode" "$mode" 30
  id=$(run_id_of "$T/int-$mode.err")
  copy_exists "$id" || fail "$mode: no crash copy on a loop device while the run goes"
  [ $mode != stream ] || copy_exists "$id" ext4.crash2.img ||
    fail "stream: no second crash copy on a loop device while the run goes"
  kill -INT $pid
  wait $pid
  rc=$?
  tail -n 1 "$T/int-$mode.err"
  [ $rc = 130 ] || fail "$mode: exit status $rc after SIGINT, want 130"
  [ "$(json_field "$T/int-$mode/summary.json" status)" = interrupted ] || fail "$mode: summary does not say interrupted"
  assert_no_leftovers "$id"
  # (directories: the recording device's daemon log, mnt-ext4.faultdev.log, is a file and stays)
  [ -z "$(find "$T/int-$mode/work" -type d -name 'mnt-*' 2>/dev/null)" ] || fail "$mode: mount points left in the run's work directory"
done

# The engine killed with SIGKILL: no teardown of its own; the front end sweeps the run id (and
# a stream's second copy).
start kill stream 30
id=$(run_id_of "$T/kill.err")
engine=$(pgrep -P $pid | head -n1)
[ -n "$engine" ] || fail "no engine process under metis $pid"
kill -KILL "$engine"
wait $pid
rc=$?
[ $rc = 3 ] || fail "exit status $rc after the engine was killed, want 3"
assert_no_leftovers "$id"
echo PASS
