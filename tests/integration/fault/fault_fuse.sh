#!/usr/bin/env bash
# Fault steps on image-backed FUSE targets: fuse2fs given the faulty device's file as its image reports the planted lost write (fault_test_silent) as fault-lost (or fault-mount, the loss having taken metadata with it) for 3 seeds, repro re-arms it, the reproducer of its shrunk trace exits 1, a kept fs (remount = 0) is refused in one line, ntfs-3g and exfat-fuse run fault steps, and nothing is left behind, after SIGKILL of the engine either.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (FUSE mounts, loop devices)"
need_tools fuse2fs mkfs.ext4 e2fsck
[ -e /dev/fuse ] || skip "no /dev/fuse"
R=$METIS_BIN/metis-replay

# no_daemon ID: no faulty device's daemon of run ID is left.
no_daemon() { pgrep -f "metis-faultdev .*/metis-$1/" >/dev/null && fail "run $1: the faulty device's daemon is left"; return 0; }
# fault_conf CONFIG: CONFIG with a fault step at every operation, 60 s, no shrink.
fault_conf() {
  sed -e 's/^faults = .*/faults = 1/' -e 's/^seconds = .*/seconds = 60/' "$1" |
    sed 's/^\[run\]$/[run]\nshrink_seconds = 0/'
}
fault_conf configs/faults-fuse2fs.ini | sed 's/^\[run\]$/[run]\nfault_test_silent = write_file/' > "$T/bite.ini"

# Losing every write of a write_file can take fuse2fs's metadata with it (it writes no journal),
# and the image then does not mount again: fault-mount says the loss was seen as well; at least
# one seed must show fault-lost itself.
lost=0
for seed in 1 2 3; do
  planted_lost_found "$T/bite.ini" fuse2fs $seed 'fault-lost|fault-mount'
  [ "$found" = fault-lost ] && lost=$((lost + 1))
  assert_no_leftovers "$id"
  no_daemon "$id"
done
[ $lost -ge 1 ] || fail "no seed reported the planted lost write as fault-lost"

# Triage re-arms the fault; the reproducer of the shrunk trace starts fuse2fs on the faulty device.
"$R" repro "$T/s1" --config "$T/s1/config.ini" >"$T/repro.out" 2>&1
[ $? = 1 ] || fail "repro does not reproduce it: $(tail -n 3 "$T/repro.out")"
grep -qE "fails its fault check: fault-(lost|mount)" "$T/repro.out" || fail "repro does not name the fault check"
"$R" trace "$T/s1" -o "$T/s1.trace" || fail "no trace"
"$R" shrink "$T/s1" --config "$T/s1/config.ini" --seconds 60 -o "$T/short.trace" >"$T/shrink.out" 2>&1
[ $? = 1 ] || fail "shrink: $(tail -n 3 "$T/shrink.out")"
"$R" emit-c "$T/short.trace" --config "$T/s1/config.ini" -o "$T/emit" >"$T/emit.out" 2>&1 ||
  fail "emit-c: $(cat "$T/emit.out")"
REPRO_TMP=$T "$T/emit/run.sh" >"$T/run.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the reproducer exited $rc, want 1: $(tail -n 5 "$T/run.out")"
grep -q "^repro: the defect shows: first difference: fault check: " "$T/run.out" ||
  fail "the reproducer does not name the fault check: $(tail -n 3 "$T/run.out")"
ls "$T"/metis-repro.* >/dev/null 2>&1 && fail "the reproducer left its work directory"

# A kept fs cannot be mounted from the faulty device for one step: refused before the run.
fault_conf configs/faults-fuse2fs.ini | sed 's/^unmount_cmd = .*/&\nremount = 0/' > "$T/kept.ini"
"$METIS_BIN/metis" run "$T/kept.ini" --ops 5 --out "$T/kept" 2>"$T/kept.err"
rc=$?
[ $rc = 2 ] || fail "faults with remount = 0: exit status $rc, want 2: $(cat "$T/kept.err")"
grep -q "fault steps need remount = 1" "$T/kept.err" || fail "the refusal does not say why: $(cat "$T/kept.err")"

# ntfs-3g and exfat-fuse: fault steps run (their checkers included) and leave nothing.
for spec in ntfs-3g:lowntfs-3g:ntfsfix exfat-fuse:mount.exfat-fuse:fsck.exfat; do
  fs=${spec%%:*} tools=${spec#*:}
  if ! command -v "${tools%%:*}" >/dev/null || ! command -v "${tools#*:}" >/dev/null; then
    skip_part "$fs" "no ${tools%%:*} or ${tools#*:}"
    continue
  fi
  fault_conf "configs/faults-$fs.ini" > "$T/$fs.ini"
  "$METIS_BIN/metis" run "$T/$fs.ini" --ops 30 --seed 2 --keep-going --out "$T/$fs" 2>"$T/$fs.err"
  rc=$?
  FAIL_LOG=$T/$fs.err
  [ $rc = 0 ] || [ $rc = 1 ] || fail "$fs: exit status $rc with fault steps"
  n=$(grep -c "^faulted [0-9]* $fs " "$T/$fs/log.txt")
  echo "$fs: $n fault steps, $(grep "^faulted [0-9]* $fs " "$T/$fs/log.txt" | grep -vc 'failed=0 lost=0') of them hit a request"
  [ "$n" -ge 30 ] || fail "$fs: $n fault steps"
  id=$(run_id_of "$T/$fs.err")
  assert_no_leftovers "$id"
  no_daemon "$id"
done
FAIL_LOG=

# SIGKILL of the engine while fuse2fs's fault steps go: the front end's sweep leaves nothing.
fault_conf configs/faults-fuse2fs.ini > "$T/kill.ini"
faulting "$T/kill.ini" kill 10
pgrep -f "metis-faultdev .*/metis-$id/" >/dev/null || fail "no faulty device while the run goes"
kill -KILL "$(pgrep -P $pid | head -n1)"
wait $pid
rc=$?
[ $rc = 3 ] || fail "SIGKILL of the engine: exit status $rc, want 3"
assert_no_leftovers "$id"
no_daemon "$id"
echo PASS
