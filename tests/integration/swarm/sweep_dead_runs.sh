#!/usr/bin/env bash
# A run killed outright (SIGKILL to its whole process group, as a CI timeout or the OOM killer does) leaves its RefFS mount and daemon, its ext4 loop device and its /dev/shm files; the next metis run sweeps them at its start and says so, while a third run that still goes keeps all of its own and ends with exit 0. metis clean sweeps a lockless directory of a dead pid, not one of a live pid, and a dead run's tracing instance.
. "$(dirname "$0")/../../lib/common.sh"
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
  local name=$1 pid
  pid=$(eval echo "\$${name}_pid")
  wait_for 300 eval 'lines_at_least "$T/$name/log.txt" "^op " 101 || gone $pid'
  lines_at_least "$T/$name/log.txt" "^op " 101 || FAIL_LOG=$T/$name.err fail "$name: it ended before 100 operations"
  eval "${name}_id=$(run_id_of "$T/$name.err")"
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
  for rid in "${dead_id:-}" "${live_id:-}" "$(run_id_of "$T/next1.err" 2>/dev/null)" \
             "$(run_id_of "$T/next2.err" 2>/dev/null)"; do
    [ -n "$rid" ] || continue
    for m in $(findmnt -rn -o TARGET | grep -F "/metis-$rid/mnt-"); do umount -l "$m"; done
    for l in $(loop_of "$rid"); do losetup -d "$l"; done
    rm -rf "/dev/shm/metis-$rid"
  done
}
on_exit forget

# attempt K: a run killed outright, a live one, the next run's sweep (output in $T/deadK,
# liveK, nextK); 1 when a sweep elsewhere on the host took the dead run in the moment between
# the shield's end and the next run's sweep (then it is tried once more).
attempt() {
  local k=$1 rc
  start "dead$k" 60
  under_way "dead$k"
  eval "dead_pid=\$dead${k}_pid dead_id=\$dead${k}_id"
  [ "$(ps -o pgid= -p "$dead_pid" | tr -d ' ')" = "$dead_pid" ] || fail "the run does not lead its process group"
  id=$dead_id
  dead_daemon=$(daemon_pid ref)
  [ -n "$dead_daemon" ] || fail "no RefFS daemon of the run to kill found"
  # Every run on this host sweeps dead runs as it starts (the live one below, and any other's):
  # until the next run, the sweep this test watches, the test holds the dead run's lock.
  shield_run "$dead_id"

  kill -KILL -- "-$dead_pid"
  wait "$dead_pid" 2>/dev/null
  wait_for 60 eval '! pgrep -f "$T/dead$k/work/pan" >/dev/null' || fail "the killed run's pan outlived it by 60 s"
  mounted "$dead_id" && kill -0 "$dead_daemon" && [ -n "$(loop_of "$dead_id")" ] && [ -d "/dev/shm/metis-$dead_id" ] ||
    fail "the killed run left nothing to sweep: this test no longer tests anything"

  # A run that lives while the next run sweeps, started only now: its time budget then has to
  # cover the sweep alone, not also the other run's set-up (long on a busy host).
  start "live$k" 15
  under_way "live$k"
  eval "live_pid=\$live${k}_pid live_id=\$live${k}_id"
  id=$live_id
  live_daemon=$(daemon_pid ref)
  live_loop=$(loop_of "$live_id")
  [ -n "$live_daemon" ] && [ -n "$live_loop" ] || fail "no RefFS daemon or loop device of the live run found"

  # The next run sweeps before it builds its pan: the live run is looked at while that goes on.
  unshield_run
  "$METIS_BIN/metis" run configs/ref-vs-ext4.ini --seconds 2 --out "$T/next$k" 2>"$T/next$k.err" &
  next_pid=$!
  on_exit "kill $next_pid 2>/dev/null"
  wait_for 300 eval 'grep -q "swept the leftovers\|^metis: run " "$T/next$k.err" || gone $next_pid'
  FAIL_LOG=$T/live$k.err
  kill -0 "$live_pid" 2>/dev/null || fail "the live run is gone before its time"
  kill -0 "$live_daemon" 2>/dev/null || fail "the live run's RefFS daemon was killed"
  mounted "$live_id" || fail "the live run's RefFS was unmounted"
  [ "$(loop_of "$live_id")" = "$live_loop" ] || fail "the live run's loop device was detached"
  [ -e "/dev/shm/metis-$live_id/ext4.img" ] || fail "the live run's image was removed"

  wait "$next_pid"
  rc=$?
  FAIL_LOG=$T/next$k.err
  [ $rc = 0 ] || fail "the next run: exit status $rc, want 0"
  said=$(grep 'swept the leftovers of dead runs' "$T/next$k.err")
  if ! grep -Eq "$dead_id \(" <<<"$said" && swept_by_another "$dead_id"; then
    FAIL_LOG=$T/live$k.err
    wait "$live_pid" || fail "the live run: exit status $?, want 0"
    return 1
  fi
  [ "$(grep -c 'swept the leftovers' "$T/next$k.err")" = 1 ] ||
    fail "the next run does not say in one line what it swept; lock holders: $(lock_holders "$dead_id")"
  # RefFS and ext4 stay mounted (a checkpoint mounts ext4's device view for a moment); the kept
  # ext4 has two loop devices, its own and its view's
  grep -Eq "$dead_id \(1 daemon, [1-3] mounts?, 2 loop devices, " <<<"$said" ||
    fail "the sweep does not name the dead run's daemon, mounts and loop device: $said"
  grep -qw "$live_id" <<<"$said" && fail "the sweep names the live run $live_id: $said"
  echo "$said"
  wait_for 30 eval '! kill -0 "$dead_daemon" 2>/dev/null'
  kill -0 "$dead_daemon" 2>/dev/null && fail "the dead run's RefFS daemon $dead_daemon still lives"
  assert_no_leftovers "$dead_id"

  FAIL_LOG=$T/live$k.err
  wait "$live_pid"
  rc=$?
  [ $rc = 0 ] || fail "the live run: exit status $rc, want 0"
  assert_no_leftovers "$live_id"
  assert_no_leftovers "$(run_id_of "$T/next$k.err")"
  return 0
}
if ! attempt 1; then
  echo "another run's sweep took the dead run $dead_id before the next run: once more"
  attempt 2 || fail "twice another run's sweep took the dead run before the next run"
fi

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

# A tracing instance is all a dead run left (a kept kernel fs's, whose files went): found and
# removed by its name alone.
inst=/sys/kernel/tracing/instances
if [ -d "$inst" ]; then
  on_exit "rmdir $inst/metis-m$gone-loop7 2>/dev/null"
  mkdir "$inst/metis-m$gone-loop7" || fail "cannot make a tracing instance"
  "$METIS_BIN/metis" clean >"$T/clean2" 2>&1 || fail "metis clean: exit status $? ($(cat "$T/clean2"))"
  cat "$T/clean2"
  [ ! -e "$inst/metis-m$gone-loop7" ] && grep -q "m$gone (1 directory)" "$T/clean2" ||
    fail "metis clean did not remove a dead run's tracing instance"
fi
echo PASS
