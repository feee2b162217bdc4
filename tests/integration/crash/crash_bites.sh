#!/usr/bin/env bash
# Crash checks on ext4 4 MiB: with the test hook that leaves out the fsync of writes, crash =
# fsync reports a crash discrepancy within a few hundred operations (report, log, saved copy),
# and trace + run, repro, shrink and the emit-c reproducer show it again; keep_going goes on
# past it; without the hook fsync, syncfs and any find nothing; nothing is left behind.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (loop devices, mounts)"; exit 77; }
for t in mkfs.ext4 e2fsck losetup cc; do
  command -v "$t" >/dev/null || { echo "skip: $t missing"; exit 77; }
done
R=$METIS_BIN/metis-replay

# configs/crash-ext4.ini with [run] crash = $1 and, when $2 is given, crash_test_skip = $2.
make_config() {
  sed "s/^crash = fsync/crash = $1${2:+\ncrash_test_skip = $2}/" configs/crash-ext4.ini
}

# run NAME MODE HOOK ARGS...: runs metis; sets $rc; checks the run left nothing behind.
run() {
  local name=$1 mode=$2 hook=$3; shift 3
  make_config "$mode" "$hook" > "$T/$name.ini"
  "$METIS_BIN/metis" run "$T/$name.ini" --out "$T/$name" "$@" 2> "$T/$name.err"
  rc=$?
  tail -n 2 "$T/$name.err"
  assert_no_leftovers "$(run_id_of "$T/$name.err")"
}

# ---- the hook on: the check bites ----
run bite fsync write_file --ops 400 --seed 2
[ $rc = 1 ] || fail "crash = fsync with the hook: exit $rc, want 1 (a discrepancy)"
seq=$(sed -n 's/^discrepancy \([0-9]*\) fs=ext4 ret=same errno=same state=same crash=differs$/\1/p' "$T/bite/log.txt" | head -n1)
[ -n "$seq" ] || fail "no crash discrepancy in the log"
[ "$seq" -le 400 ] || fail "the crash discrepancy came only at operation $seq"
grep -q "^op $seq .* write_file " "$T/bite/log.txt" || fail "operation $seq is no write_file"
grep -q "^crash $seq ext4 sync=fsync-skipped-by-test-hook:.* recovered=differs detail=/" "$T/bite/log.txt" ||
  fail "no crash record naming what differs"
d=$T/bite/discrepancy-1.txt
grep -q '\[crash: differs\]' "$d" || fail "the report does not name the crash kind"
grep -q '^## crash check of ext4 (crash = fsync): differs' "$d" || fail "no crash section in the report"
grep -q '^### tree of the recovered copy' "$d" || fail "no recovered tree in the report"
[ -s "$T/bite/states/ext4-crash-$seq.img" ] || fail "the crash image was not saved"
grep -q '"crash":' "$T/bite/summary.json" || fail "time_per_op_us has no crash figure"

# The saved copy is what the power cut left: its journal still needs recovery.
dumpe2fs -h "$T/bite/states/ext4-crash-$seq.img" 2>/dev/null | grep -q needs_recovery ||
  fail "the saved crash image needs no recovery: was it saved after its recovery mount?"

# ---- replay ----
"$R" trace "$T/bite" -o "$T/bite.trace" || fail "trace failed"
grep -q "^discrepancy $seq fs=ext4 .* crash=differs$" "$T/bite.trace" || fail "the trace lost the crash kind"
"$R" run "$T/bite.trace" > "$T/run.out" 2>&1; rc=$?
cat "$T/run.out"
[ $rc = 1 ] || fail "metis-replay run: exit $rc, want 1 (reproduced)"
grep -q "fails its crash check: crash" "$T/run.out" || fail "the replay does not name the crash check"
"$R" repro "$T/bite" > "$T/repro.out" 2>&1; rc=$?
cat "$T/repro.out"
[ $rc = 1 ] || fail "metis-replay repro: exit $rc, want 1"
"$R" shrink "$T/bite.trace" -o "$T/min.trace" 2> "$T/shrink.err"; rc=$?
tail -n1 "$T/shrink.err"
[ $rc = 1 ] || fail "metis-replay shrink: exit $rc, want 1"
grep -q "crash=differs$" "$T/min.trace" || fail "the shrunk trace lost the crash discrepancy"
"$R" emit-c "$T/min.trace" -o "$T/emit" > /dev/null || fail "emit-c failed"
grep -q "crash_test_skip = write_file: Metis left this sync out" "$T/emit/repro.c" ||
  fail "the reproducer does not say the hook left the fsync out"
# The reproducer's image and mount point go in a directory of this test's own, on tmpfs as by
# default: loop devices over files there are its own, not another run's or reproducer's.
repro_tmp=$(mktemp -d /dev/shm/crash-bites.XXXXXX)
on_exit "rm -rf --one-file-system $repro_tmp"
repro_loops() { losetup -n -l -O NAME,BACK-FILE | awk -v d="$repro_tmp/" 'index($2, d) == 1'; }
REPRO_TMP=$repro_tmp "$T/emit/run.sh" > "$T/emit.out" 2>&1; rc=$?
cat "$T/emit.out"
[ $rc = 1 ] || fail "the emitted reproducer: exit $rc, want 1"
grep -q "the recovered copy is not what the sync promised" "$T/emit.out" || fail "the reproducer does not show the loss"
wait_for 10 eval '[ -z "$(repro_loops)" ]'
left=$(repro_loops)
[ -z "$left" ] || fail "the reproducer left loop devices: $left"
findmnt -rn -o TARGET | grep -q -- "^$repro_tmp/" && fail "the reproducer left a mount"

# ---- syncfs with the hook: the run, the replay and the reproducer leave the syncfs out ----
run bite-syncfs syncfs write_file --ops 400 --seed 2
[ $rc = 1 ] || fail "crash = syncfs with the hook: exit $rc, want 1"
grep -q "^crash [0-9]* ext4 sync=syncfs-skipped-by-test-hook recovered=differs" "$T/bite-syncfs/log.txt" ||
  fail "crash = syncfs: no crash record of the skipped syncfs"
"$R" trace "$T/bite-syncfs" -o "$T/syncfs.trace" || fail "trace (syncfs) failed"
"$R" run "$T/syncfs.trace" > /dev/null 2>&1; rc=$?
[ $rc = 1 ] || fail "metis-replay run (syncfs): exit $rc, want 1"
"$R" emit-c "$T/syncfs.trace" -o "$T/emit-syncfs" > /dev/null || fail "emit-c (syncfs) failed"
"$T/emit-syncfs/run.sh" > "$T/emit-syncfs.out" 2>&1; rc=$?
[ $rc = 1 ] || { cat "$T/emit-syncfs.out"; fail "the syncfs reproducer: exit $rc, want 1"; }

# ---- keep_going: on past the first crash discrepancy ----
run keep fsync write_file --ops 500 --seed 2 --keep-going
[ $rc = 1 ] || fail "keep_going run: exit $rc, want 1"
[ "$(json_field "$T/keep/summary.json" ops)" = 500 ] || fail "keep_going stopped before 500 operations"
n=$(json_field "$T/keep/summary.json" discrepancies)
[ "$n" -ge 2 ] || fail "keep_going found $n discrepancies, want 2 or more"
# Only a class's first example gets a detail file, and so a crash image.
k=$(json_field "$T/keep/summary.json" discrepancy_classes)
[ "$(ls "$T"/keep/states/ext4-crash-*.img | wc -l)" = "$k" ] || fail "not one crash image per discrepancy class"

# ---- the hook off: nothing to find in any mode ----
for mode in fsync syncfs any; do
  run "clean-$mode" "$mode" "" --ops 300 --seed 5
  [ $rc = 0 ] || fail "crash = $mode without the hook: exit $rc, want 0"
  checked=$(grep -c "^crash [0-9]* ext4 sync=.* recovered=same$" "$T/clean-$mode/log.txt")
  [ "$checked" = 300 ] || fail "crash = $mode: $checked of 300 operations checked"
done
grep -q "^crash [0-9]* ext4 sync=syncfs recovered=same" "$T/clean-syncfs/log.txt" || fail "syncfs not logged"
grep -q "^crash [0-9]* ext4 sync=none recovered=same" "$T/clean-any/log.txt" || fail "any not logged"
echo PASS
