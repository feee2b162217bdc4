#!/usr/bin/env bash
# A run killed outright (SIGKILL to its whole process group, as a CI timeout or the OOM killer does) leaves its RefFS mount and daemon, its ext4 loop device and its /dev/shm files; the next metis run sweeps them at its start and says so, while a third run that still goes keeps all of its own and ends with exit 0. metis clean sweeps a lockless directory of a dead pid, not one of a live pid.
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
need_tools setsid losetup findmnt

# start NAME SECONDS: a run of configs/ref-vs-ext4.ini leading a process group of its own, as
# `setsid metis run` from a shell makes it; sets NAME_pid.
start() {
  setsid "$METIS_BIN/metis" run configs/ref-vs-ext4.ini --seconds "$2" --out "$T/$1" 2>"$T/$1.err" &
  eval "${1}_pid=$!"
  on_exit "kill -KILL -- -$! 2>/dev/null"
}

# under_way NAME: waits until its search has done 100 operations (pan's build may be slow on a
# busy machine), then sets NAME_id.
under_way() {
  local n
  for _ in $(seq 600); do
    n=$(grep -c '^op ' "$T/$1/log.txt" 2>/dev/null)
    if [ "${n:-0}" -gt 100 ]; then eval "${1}_id=$(run_id_of "$T/$1.err")"; return 0; fi
    sleep 0.1
  done
  fail "$1: fewer than 100 operations in 60 s"
}

loop_of() { losetup -a | grep -F "(/dev/shm/metis-$1/" | cut -d: -f1; }
# The processes that hold run $1's lock, for a failure's message.
lock_holders() {
  local ino p
  ino=$(stat -c %i "/dev/shm/metis-$1/lock" 2>/dev/null) || { echo "no lock file"; return; }
  for p in $(awk -v i=":$ino " 'index($0, i) { print $5 }' /proc/locks); do
    echo "$p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
  done
}
mounted() { findmnt -rn -o TARGET | grep -qF "/metis-$1/mnt-"; }

# Whatever a failure leaves of our runs, and only of them (on_exit: after their processes).
forget() {
  local rid m l
  [ -n "${dead_daemon:-}" ] && kill -KILL "$dead_daemon" 2>/dev/null
  for rid in "${dead_id:-}" "${live_id:-}" "$(run_id_of "$T/next.err" 2>/dev/null)"; do
    [ -n "$rid" ] || continue
    for m in $(findmnt -rn -o TARGET | grep -F "/metis-$rid/mnt-"); do umount -l "$m"; done
    for l in $(loop_of "$rid"); do losetup -d "$l"; done
    rm -rf "/dev/shm/metis-$rid"
  done
}
on_exit forget

start dead 60
start live 15
under_way dead
under_way live
[ "$(ps -o pgid= -p "$dead_pid" | tr -d ' ')" = "$dead_pid" ] || fail "the run does not lead its process group"
id=$dead_id
dead_daemon=$(daemon_pid ref)
id=$live_id
live_daemon=$(daemon_pid ref)
live_loop=$(loop_of "$live_id")
[ -n "$dead_daemon" ] && [ -n "$live_daemon" ] && [ -n "$live_loop" ] || fail "no RefFS daemon or loop device found"

kill -KILL -- "-$dead_pid"
wait "$dead_pid" 2>/dev/null
for _ in $(seq 100); do pgrep -f "$T/dead/work/pan" >/dev/null || break; sleep 0.1; done
pgrep -f "$T/dead/work/pan" >/dev/null && fail "the killed run's pan outlived it by 10 s"
mounted "$dead_id" && kill -0 "$dead_daemon" && [ -n "$(loop_of "$dead_id")" ] && [ -d "/dev/shm/metis-$dead_id" ] ||
  fail "the killed run left nothing to sweep: this test no longer tests anything"

# The next run sweeps before it builds its pan: the live run is looked at while that goes on.
"$METIS_BIN/metis" run configs/ref-vs-ext4.ini --seconds 2 --out "$T/next" 2>"$T/next.err" &
next_pid=$!
on_exit "kill $next_pid 2>/dev/null"
for _ in $(seq 300); do grep -q 'swept the leftovers\|^metis: run ' "$T/next.err" && break; sleep 0.1; done
FAIL_LOG=$T/live.err
kill -0 "$live_pid" 2>/dev/null || fail "the live run is gone before its time"
kill -0 "$live_daemon" 2>/dev/null || fail "the live run's RefFS daemon was killed"
mounted "$live_id" || fail "the live run's RefFS was unmounted"
[ "$(loop_of "$live_id")" = "$live_loop" ] || fail "the live run's loop device was detached"
[ -e "/dev/shm/metis-$live_id/ext4.img" ] || fail "the live run's image was removed"

wait "$next_pid"
rc=$?
FAIL_LOG=$T/next.err
[ $rc = 0 ] || fail "the next run: exit status $rc, want 0"
said=$(grep 'swept the leftovers of dead runs' "$T/next.err")
[ "$(grep -c 'swept the leftovers' "$T/next.err")" = 1 ] ||
  fail "the next run does not say in one line what it swept; lock holders: $(lock_holders "$dead_id")"
# RefFS stays mounted; ext4 is mounted only around each step
grep -Eq "$dead_id \(1 daemon, [12] mounts?, 1 loop device, " <<<"$said" ||
  fail "the sweep does not name the dead run's daemon, mounts and loop device: $said"
grep -qw "$live_id" <<<"$said" && fail "the sweep names the live run $live_id: $said"
echo "$said"
for _ in $(seq 20); do kill -0 "$dead_daemon" 2>/dev/null || break; sleep 0.1; done
kill -0 "$dead_daemon" 2>/dev/null && fail "the dead run's RefFS daemon $dead_daemon still lives"
assert_no_leftovers "$dead_id"

FAIL_LOG=$T/live.err
wait "$live_pid"
rc=$?
[ $rc = 0 ] || fail "the live run: exit status $rc, want 0"
assert_no_leftovers "$live_id"
assert_no_leftovers "$(run_id_of "$T/next.err")"

# Directories without a lock file, as a build older than the lock leaves them: swept when the
# pid their id names is gone, not while it lives, never when the id names no process.
sleep 60 &
alive=$!
on_exit "kill $alive 2>/dev/null"
sh -c 'exit 0' &
gone=$!
wait "$gone"
on_exit "rm -rf /dev/shm/metis-m$gone /dev/shm/metis-m$alive /dev/shm/metis-x$$"
for d in "m$gone" "m$alive" "x$$"; do mkdir -p "/dev/shm/metis-$d" && : >"/dev/shm/metis-$d/f.img"; done
"$METIS_BIN/metis" clean >"$T/clean" 2>&1 || fail "metis clean: exit status $? ($(cat "$T/clean"))"
cat "$T/clean"
grep -q "m$gone (1 file, 1 directory)" "$T/clean" && [ ! -e "/dev/shm/metis-m$gone" ] ||
  fail "metis clean did not sweep the directory of a dead pid"
[ -e "/dev/shm/metis-m$alive/f.img" ] || fail "metis clean swept the directory of a live pid"
grep -q "left alone.*metis-x$$" "$T/clean" && [ -e "/dev/shm/metis-x$$/f.img" ] ||
  fail "metis clean did not leave alone an id that names no process"
echo PASS
