# Helper of the swarm integration tests (sourced): set-up, SSH test hosts, leftover checks.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
METIS=$METIS_BIN/metis
SWARM_PY=$METIS_ROOT/tests/lib/swarm_summary.py
. "$METIS_ROOT/tests/lib/sshd-hosts.sh"

swarm_require() {
  [ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts, sshd)"
  need_tools parallel /usr/sbin/sshd ssh ssh-keygen rsync ss python3 findmnt losetup
  "$METIS" swarm --ping >/dev/null 2>&1 ||
    fail "$METIS has no swarm command ('metis swarm --ping' fails): is swarm_main linked in?"
}

SW=$T

# Swarm ids named in the primaries' stderr logs ("metis swarm ID: N VTs, ...").
swarm_ids() {
  cat "$SW"/*.err 2>/dev/null | sed -n 's/^metis swarm \([0-9a-f]*-[0-9]*-[0-9a-f]*\): .*/\1/p' | sort -u
}

# Run ids of a swarm's VTs: from the collected output, else from the workers' directories.
swarm_run_ids() {  # OUT
  python3 "$SWARM_PY" runids "$1"
  local id
  for id in $(swarm_ids); do
    cat /tmp/metis-swarm-"$id"/*/vt-*/vt.json 2>/dev/null | sed -n 's/.*"run_id":"\(m[0-9]*\)".*/\1/p'
  done
}

# Prints whatever the swarm's VTs left on this machine: mounts, loop devices, files, processes.
swarm_leftovers() {  # OUT
  local rid id pid
  for rid in $(swarm_run_ids "$1" | sort -u); do
    findmnt -rn -o TARGET | grep -F "/metis-$rid/" | sed 's/^/mount /'
    losetup -a | grep -F "/metis-$rid/" | sed 's/^/loop /'
    for d in /tmp/metis-"$rid" /dev/shm/metis-"$rid"; do [ -e "$d" ] && echo "file $d"; done
  done
  for id in $(swarm_ids); do
    [ -e /tmp/metis-swarm-"$id" ] && echo "file /tmp/metis-swarm-$id"
    [ -e /dev/shm/metis-claims-"$id" ] && echo "file /dev/shm/metis-claims-$id"
    for pid in $(pgrep -f "metis-swarm-$id"); do echo "process $pid $(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null)"; done
  done
}

# Trap: stop the sshd instances, end this test's VTs (by pid) and undo what they made.
swarm_cleanup() {
  local id pid rid m l
  swarm_hosts_stop "$SW/ssh"
  for id in $(swarm_ids); do
    for pid in $(pgrep -f "metis-swarm-$id"); do kill -KILL "$pid" 2>/dev/null; done
  done
  for rid in $(for o in "$SW"/out*; do swarm_run_ids "$o"; done 2>/dev/null | sort -u); do
    for m in $(findmnt -rn -o TARGET | grep -F "/metis-$rid/"); do umount -l "$m"; done
    for l in $(losetup -a | grep -F "/metis-$rid/" | cut -d: -f1); do losetup -d "$l"; done
    rm -rf /tmp/metis-"$rid" /dev/shm/metis-"$rid"
  done
  for id in $(swarm_ids); do rm -rf /tmp/metis-swarm-"$id" /dev/shm/metis-claims-"$id"; done
}
on_exit swarm_cleanup

# swarm NAME ARGS...: runs metis swarm with stdout/stderr in $SW/NAME.out/.err; sets $rc.
swarm() {
  local name=$1; shift
  "$METIS" swarm "$@" > "$SW/$name.out" 2> "$SW/$name.err"
  rc=$?
  echo "--- metis swarm $* -> $rc"; cat "$SW/$name.out"; sed 's/^/    /' "$SW/$name.err" | tail -n 30
}

assert_clean() {  # OUT
  local left
  left=$(swarm_leftovers "$1")
  [ -z "$left" ] || fail "the swarm left: $left"
}
