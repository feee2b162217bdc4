#!/usr/bin/env bash
# Confirms outside Metis that CryFS deadlocks once its base directory is full: three writers fill a 2-MiB base, and gdb shows the daemon's threads stuck in the fork handler its error path's backtrace runs (cpputils::ThreadSystem::_stopAllThreadsForRestart).
# usage: tests/findings/fuse/cryfs-full-hang/run.sh   (root; about 1 to 2 min: CryFS's scrypt at mount)
# Exit 0 when a call hung and the daemon's stacks show one thread joining in
# _stopAllThreadsForRestart while another waits there for its mutex; 1 when no call hung or the
# stacks differ; 77 when cryfs or gdb is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/mounts.sh"
command -v cryfs >/dev/null && command -v gdb >/dev/null || { echo "skip: cryfs or gdb: not installed"; exit 77; }
mkdir -p "$W/base" "$W/mnt" "$W/home"
mount -t tmpfs -o size=2M tmpfs "$W/base" || exit 2
echo metis | HOME="$W/home" CRYFS_FRONTEND=noninteractive CRYFS_NO_UPDATE_CHECK=true \
  cryfs --cipher aes-256-gcm --blocksize 4096 "$W/base" "$W/mnt" >"$W/cryfs.log" 2>&1 || { cat "$W/cryfs.log"; exit 2; }
pid=$(pgrep -f "^cryfs .*$W/base" | head -n 1)
[ -n "$pid" ] || { echo "no cryfs daemon found"; exit 2; }
# The daemon is killed before mounts.sh unmounts: a deadlocked FUSE daemon never answers.
trap 'kill -9 "$pid" 2>/dev/null; sleep 1; _finding_cleanup' EXIT

writer() {   # $1 kind (f, d, s): entries of that kind until a call fails, or hangs for 20 s
  local i=0 rc
  while [ $i -lt 3000 ]; do
    case $1 in
      f) timeout -s KILL 20 sh -c "head -c 3000 /dev/urandom >'$W/mnt/f$i'" ;;
      d) timeout -s KILL 20 mkdir "$W/mnt/d$i" ;;
      s) timeout -s KILL 20 ln -s "target-$i-of-some-length-for-a-block" "$W/mnt/s$i" ;;
    esac
    rc=$?
    [ $rc = 137 ] && { echo "$1: call $i hung (killed after 20 s)"; return; }
    [ $rc != 0 ] && { echo "$1: call $i failed (exit $rc)"; return; }
    i=$((i + 1))
  done
  echo "$1: 3000 calls, none failed"
}
echo "cryfs $(dpkg-query -W -f '${Version}' cryfs 2>/dev/null), base: a 2-MiB tmpfs"
writer f >"$W/f.out" 2>/dev/null & a=$!; writer d >"$W/d.out" 2>/dev/null & b=$!; writer s >"$W/s.out" 2>/dev/null & c=$!
wait $a $b $c
cat "$W/f.out" "$W/d.out" "$W/s.out"
echo "base $(df --output=pcent "$W/base" | tail -n 1 | tr -d ' ') full"
grep -q hung "$W/f.out" "$W/d.out" "$W/s.out" || { echo "no call hung"; exit 1; }
timeout 120 gdb -q -batch -p "$pid" -ex "thread apply all bt 12" >"$W/gdb.txt" 2>/dev/null
waiting=$(grep -c "___pthread_mutex_lock" "$W/gdb.txt")
in_handler=$(grep -c "_stopAllThreadsForRestart" "$W/gdb.txt")
joining=$(grep -A1 "join_noexcept" "$W/gdb.txt" | grep -c "_stopAllThreadsForRestart")
echo "daemon stacks: $in_handler in _stopAllThreadsForRestart (under __libc_fork, from cpputils::backtrace), $joining of them joining a thread, $waiting waiting for a mutex"
[ "$joining" -ge 1 ] && [ "$in_handler" -ge 2 ]
