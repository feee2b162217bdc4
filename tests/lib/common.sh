# The one prelude of every shell test and test helper (sourced): the tree and its binaries, a work dir, exit hooks, fail/skip, shared checks.
# Usage: . "$(dirname "$0")/../lib/common.sh" (from tests/bench/run.sh, tests/mutations), "$(dirname "$0")/../../lib/common.sh" (from a room of tests/integration or tests/bench).
# Afterwards the current directory is the tree's root, $T an empty directory removed at exit,
# and fail/skip end the script with status 1/77.
set -u
METIS_ROOT=${METIS_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
METIS_BIN=${METIS_BIN:-$METIS_ROOT/bin}
_metis_caller_dir=$PWD
cd "$METIS_ROOT" || exit 1
# from_caller PATH: PATH as the caller meant it (relative to the directory it ran the script in).
from_caller() { case $1 in /*) echo "$1" ;; *) echo "$_metis_caller_dir/$1" ;; esac; }
T=$(mktemp -d /tmp/metis-test.XXXXXX)

# on_exit CMD: CMD is evaluated when the script exits, the last registered first, before $T is
# removed. One EXIT trap for all, so that a helper's clean-up cannot replace another's.
_metis_exit_cmds=()
on_exit() { _metis_exit_cmds=("$1" "${_metis_exit_cmds[@]}"); }
_metis_at_exit() {
  local cmd
  # "|| true": a failing clean-up step must not change the script's status (under set -e)
  for cmd in "${_metis_exit_cmds[@]}"; do eval "$cmd" || true; done
  # not into a mount a clean-up could not undo
  rm -rf --one-file-system "$T" || true
}
trap _metis_at_exit EXIT

# fail MESSAGE: the test failed; ends the script with status 1. When FAIL_LOG names a file,
# its last 20 lines (the output of the command that failed) are shown too.
fail() {
  echo "FAIL: $*" >&2
  if [ -n "${FAIL_LOG:-}" ] && [ -f "$FAIL_LOG" ]; then tail -n 20 "$FAIL_LOG" >&2; fi
  exit 1
}

# skip REASON: the test cannot run here (a tool, a device, a binary is missing); status 77.
# run-integration.sh names it and fails the run unless tests/skip-allowed.txt excuses it.
skip() { echo "skip: $*"; exit 77; }

# skip_part PART REASON: one part of the test cannot run here and the rest goes on. The part
# is a skip all the same: run-integration.sh names it as TEST/PART (from METIS_SKIP_LOG) and
# holds it to the allow-list like a whole test.
skip_part() {
  local part=$1
  shift
  echo "skip: $part: $*"
  if [ -n "${METIS_SKIP_LOG:-}" ]; then printf '%s\t%s\n' "$part" "$*" >>"$METIS_SKIP_LOG"; fi
  return 0
}

# need_tools TOOL...: skips unless every TOOL is on the PATH.
need_tools() {
  local t
  for t in "$@"; do command -v "$t" >/dev/null || skip "$t missing"; done
}

# kernel_has_fs FSTYPE: 0 when the kernel knows FSTYPE, after trying to load its module by
# name and by its fs- alias, the names Metis's config check asks modprobe about: a module that
# is not loaded yet does not make the fs absent.
kernel_has_fs() {
  _metis_fs_listed "$1" && return 0
  modprobe -q "$1" 2>/dev/null || modprobe -q "fs-$1" 2>/dev/null || true
  _metis_fs_listed "$1"
}
_metis_fs_listed() { awk -v fs="$1" '$NF == fs { found = 1 } END { exit !found }' /proc/filesystems; }

# wait_for SECONDS CMD...: runs CMD every 0.1 s until it succeeds (status 0), or SECONDS of wall
# time have passed (status 1). The deadline only ends a test that would hang: it is no
# measure of speed, so make it generous (a shared host, with other runs building their pan,
# takes several times as long as an idle one), and let CMD also end the wait when the awaited
# thing can no longer come (the run it waits on has exited).
wait_for() {
  local _wait_end=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$_wait_end" ] || return 1
    sleep 0.1
  done
}

# lines_at_least FILE REGEX N: FILE exists and has N or more lines that match REGEX.
lines_at_least() {
  local n
  n=$(grep -c -- "$2" "$1" 2>/dev/null)
  [ "${n:-0}" -ge "$3" ]
}

# gone PID: the process PID has exited (or is a zombie not yet reaped).
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# Nothing of the run whose id is $1 may remain: mounts, loop devices, /dev/shm files.
assert_no_leftovers() {
  local id=$1
  # metis-ID followed by a separator: run m1144's check must not see run m11441's things.
  if findmnt -rn -o TARGET | grep -qE -- "metis-$id([/.]|$)"; then fail "mount of run $id left behind"; fi
  if losetup -a | grep -qE -- "metis-$id[/.]"; then fail "loop device of run $id left behind"; fi
  if ls /dev/shm | grep -qE -- "^metis-$id([/.]|$)"; then fail "/dev/shm file of run $id left behind"; fi
  if ls /sys/kernel/tracing/instances 2>/dev/null | grep -qE -- "^metis-$id-loop"; then
    fail "tracing instance of run $id left behind"
  fi
  return 0
}

# shield_run ID: holds run ID's lock shared, as each of its processes does, until unshield_run.
# Every Metis run on this host starts with a sweep of dead runs; a run a test kills outright so
# that its own next run or metis clean sweeps it then still looks live to any other's sweep
# (another test run, a swarm), and the sweep the test watches is the one that finds it dead.
# Call it while the run lives, so that no sweep can come in between.
shield_run() {
  local lock=/dev/shm/metis-$1/lock
  [ -e "$lock" ] || fail "run $1 has no lock file to hold"
  rm -f "$T/shield"
  ( exec 9<"$lock" && flock -s 9 && : >"$T/shield" && exec sleep 100000 ) &
  shield_pid=$! shield_id=$1
  on_exit _shield_drop
  wait_for 60 test -e "$T/shield" || fail "could not hold run $1's lock"
}
# unshield_run: lets the lock go: it is let go once the holder has exited. Before, it waits
# until the shield is the lock's only hold (the run's killed processes hold it until they have
# exited, and a run whose lock is held is live to a sweep). A sweep elsewhere on the host can
# still take the run in the moment before the test's own: swept_by_another tells.
unshield_run() {
  [ -n "${shield_pid:-}" ] || return 0
  wait_for 300 eval '[ "$(run_lock_holds "$shield_id")" -le 1 ]' ||
    echo "run $shield_id: its lock is still held $(run_lock_holds "$shield_id") times" >&2
  _shield_drop
}
_shield_drop() {
  [ -n "${shield_pid:-}" ] || return 0
  kill "$shield_pid" 2>/dev/null
  wait "$shield_pid" 2>/dev/null
  shield_pid=
}
# run_lock_holds ID: how many holds there are on run ID's lock file (one per open file that a
# process of the run, or a shield, locked).
run_lock_holds() {
  local dev ino
  read -r dev ino < <(stat -c '%d %i' "/dev/shm/metis-$1/lock" 2>/dev/null)
  [ -n "$ino" ] || { echo 0; return; }
  # /proc/locks names a file as MAJOR:MINOR (hex):INODE
  awk -v f="$(printf '%02x:%02x:%d' $(((dev >> 8) & 0xfff)) $(((dev & 0xff) | ((dev >> 12) & 0xfff00))) "$ino")" \
    '$6 == f' /proc/locks | wc -l
}
# swept_by_another ID: the test's own sweep did not name run ID, yet nothing of it is left: a
# sweep elsewhere on the host took it in the moment between unshield_run and the test's own.
swept_by_another() {
  [ ! -e "/dev/shm/metis-$1" ] && ! findmnt -rn -o TARGET | grep -qE -- "metis-$1([/.]|$)" &&
    ! losetup -a | grep -qE -- "metis-$1[/.]" && ! pgrep -f -- "metis-$1/" >/dev/null
}

# img_loops: the loop devices over a file that shows as "/img", one "NAME MAJ:MIN" a line
# (MAJ:MIN: of the fs that file is on). A faulty device's file shows so once its FUSE mount went
# lazily, and names no run: a test tells its own by that fs (faultdev_mounts while its run went)
# or by when they came.
img_loops() { losetup -n -l -O NAME,BACK-MAJ:MIN,BACK-FILE | awk '$3 == "/img" { print $1, $2 }' | sort; }
# faultdev_mounts ID: the MAJ:MIN of run ID's faulty devices' FUSE mounts, one a line.
faultdev_mounts() {
  findmnt -rn -o MAJ:MIN,FSTYPE,TARGET |
    awk -v p="/metis-$1/" '$2 == "fuse.faultdev" && index($3, p) { print $1 }'
}
# img_loops_over MAJ:MIN...: those of img_loops over one of these file systems.
img_loops_over() { img_loops | awk -v devs=" $* " 'index(devs, " " $2 " ")'; }

# The run id a run printed ("metis: run ID, output in DIR").
run_id_of() { sed -n 's/^metis: run \([^,]*\),.*/\1/p' "$1" | head -n1; }

# The pid of run $id's RefFS daemon serving its fs $1 (mount point mnt-$1), or nothing.
daemon_pid() { pgrep -f -- "^[^ ]*/reffs .*metis-$id/mnt-$1" | head -n1; }

# Starts `metis run ARGS... --out $T/run` in the background (stderr to $T/err), waits for its
# run id and for the RefFS daemon serving its fs FS (mount point mnt-FS), and sets metis_pid,
# id and victim (that daemon's pid). pan is built first (slow on a busy machine), then the fs
# is mounted and the steps begin.
run_and_find_daemon() {
  local fs=$1
  shift
  "$METIS_BIN/metis" run "$@" --out "$T/run" 2>"$T/err" &
  metis_pid=$!
  on_exit "kill $metis_pid 2>/dev/null"
  wait_for 300 eval '[ -n "$(run_id_of "$T/err")" ] || gone $metis_pid'
  id=$(run_id_of "$T/err")
  [ -n "$id" ] || fail "the run did not start"
  wait_for 300 eval '[ -n "$(daemon_pid "$fs")" ] || gone $metis_pid'
  victim=$(daemon_pid "$fs")
  [ -n "$victim" ] || fail "no RefFS daemon of run $id's fs $fs"
}

# Sends signal $2 to run $id's RefFS daemon of fs $1 as it is now, and sets victim to it: the
# daemon run_and_find_daemon saw may have been a set-up mount since replaced (seen under load).
signal_daemon() {
  local fs=$1 sig=$2
  # shellcheck disable=SC2016 # expanded by eval, each time
  if wait_for 60 eval 'victim=$(daemon_pid "$fs"); [ -n "$victim" ] && kill "-$sig" "$victim" 2>/dev/null'
  then return 0; fi
  fail "no RefFS daemon of run $id's fs $fs to send $sig"
}

# Runs CMD... in a process group of its own (so that a failure or timeout stops all of it),
# its output in $T/out, shown afterwards; fails when a mount below $T is left; returns CMD's exit.
run_grouped() {
  setsid "$@" >"$T/out" 2>&1 &
  local pgid=$!
  on_exit "kill -TERM -- -$pgid 2>/dev/null; sleep 1"
  wait $pgid
  local rc=$?
  cat "$T/out"
  if findmnt -rn -o TARGET | grep -q -- "$T"; then fail "a mount below $T was left behind"; fi
  return $rc
}

# `metis run CONFIG --seed S ARGS...` of a config with RefFS mutants (tests/mutations' daemon
# launcher), output in $T/out (FAIL_LOG) and the run in $T/run; returns its exit status.
run_mutant() {
  local cfg=$1 seed=$2
  shift 2
  FAIL_LOG=$T/out
  METIS_REFFS_BIN=$METIS_ROOT/tests/mutations/reffs-pick.sh \
    timeout -k 5 200 "$METIS_BIN/metis" run "$cfg" --seed "$seed" "$@" --out "$T/run" >"$T/out" 2>&1
}

# reffs_pair_ini FS MUTATION [LINE]: a config of a RefFS reference "ref" and a RefFS mutant FS
# (256 KiB each, keep_going, no shrinking), LINE added to the mutant's section.
reffs_pair_ini() {
  printf '[run]\nkeep_going = 1\nshrink_seconds = 0\n\n[fs ref]\ntype = reffs\nsize = 256K\n\n'
  printf '[fs %s]\ntype = reffs\nsize = 256K\nreffs_opts = mutation=%s\n%s\n' "$1" "$2" "${3:-}"
}

# setup_class_of SUMMARY SIGNATURE OPS [REF VALUE]: SUMMARY's run went on to OPS operations and
# holds the set-up class SIGNATURE at operation 0 (with the reference's and the fs's values).
setup_class_of() {
  python3 - "$@" <<'PY'
import json, sys
path, sig, ops = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.load(open(path))
c = {x["signature"]: x for x in s["classes"]}
assert s["ops"] >= ops, s["ops"]
assert sig in c, list(c)
assert c[sig]["first_op"] == 0, c[sig]
if len(sys.argv) > 5:
    assert (c[sig]["reference_value"], c[sig]["value"]) == (sys.argv[4], sys.argv[5]), c[sig]
PY
}

# run_want NAME CONFIG RC [ARGS...]: `metis run CONFIG ARGS...` into $T/NAME (output in
# $T/NAME.out, FAIL_LOG) must exit RC and leave nothing of its run behind.
run_want() {
  local name=$1 cfg=$2 want=$3
  shift 3
  FAIL_LOG=$T/$name.out
  timeout -k 5 200 "$METIS_BIN/metis" run "$cfg" "$@" --out "$T/$name" >"$T/$name.out" 2>&1
  local rc=$?
  [ $rc = "$want" ] || fail "$name: metis run exited $rc, want $want"
  assert_no_leftovers "$(run_id_of "$T/$name.out")"
}

json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# planted_lost_found CONFIG FS SEED [CLASSES]: `metis run CONFIG --seed SEED` (a config with
# fault_test_silent = write_file) must exit 1 with write_file's fault-lost on FS (or a class the
# extended regex CLASSES matches) as its first class; prints where and when, and sets id to the
# run's id and found to the class (output in $T/sSEED).
planted_lost_found() {
  local cfg=$1 fs=$2 seed=$3 classes=${4:-fault-lost} start rc
  start=$(date +%s.%N)
  "$METIS_BIN/metis" run "$cfg" --seed "$seed" --out "$T/s$seed" 2>"$T/s$seed.err"
  rc=$?
  FAIL_LOG=$T/s$seed.err
  [ $rc = 1 ] || fail "seed $seed: exit status $rc, want 1 (the planted lost write found)"
  found=$(grep -m1 -oE "^class [0-9]* fs=$fs id=1 new=1 hits=1 signature=write_file $fs ($classes)" "$T/s$seed/log.txt" |
    sed 's/.* //')
  [ -n "$found" ] || fail "seed $seed: the first class is not write_file's $classes: $(grep -m1 '^class' "$T/s$seed/log.txt")"
  printf 'seed %s: %s at operation %s after %.1f s (load %s)\n' "$seed" "$found" \
    "$(grep -m1 '^discrepancy' "$T/s$seed/log.txt" | cut -d' ' -f2)" \
    "$(echo "$(date +%s.%N) - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
  id=$(run_id_of "$T/s$seed.err")
  FAIL_LOG=
}

# faulting CONFIG NAME N: `metis run CONFIG` in the background (pid; output in $T/NAME), once N
# fault steps are done (id: its run id); fails if it ends first.
faulting() {
  local name=$2 n=$3
  "$METIS_BIN/metis" run "$1" --seconds 120 --keep-going --out "$T/$name" 2>"$T/$name.err" &
  pid=$!
  wait_for 300 eval 'lines_at_least "$T/$name/log.txt" "^faulted" "$n" || gone $pid'
  lines_at_least "$T/$name/log.txt" "^faulted" "$n" ||
    FAIL_LOG=$T/$name.err fail "$name: the run ended before $n fault steps"
  id=$(run_id_of "$T/$name.err")
}
