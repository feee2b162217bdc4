#!/usr/bin/env bash
# Crash states from the recorded block stream (crash_states = flushes) on ext4 4 MiB: a
# recording device that lies about its flushes (the test hook crash_test_lie: the write before
# each flush never becomes durable) is caught as a crash discrepancy, which metis-replay run
# shows again, shrink keeps and the emit-c reproducer shows on a device of its own; the honest device on the same seed's steps finds nothing, with
# every state of every step checked; nothing is left behind.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (loop devices, mounts)"; exit 77; }
for t in mkfs.ext4 e2fsck losetup fusermount3; do
  command -v "$t" >/dev/null || { echo "skip: $t missing"; exit 77; }
done
[ -e /dev/fuse ] || { echo "skip: no /dev/fuse"; exit 77; }
R=$METIS_BIN/metis-replay

# run NAME LIE ARGS...: configs/crash-ext4.ini with crash_states = flushes and the hook set to
# LIE; sets $rc; checks the run left nothing behind.
run() {
  local name=$1 lie=$2; shift 2
  sed "s/^crash = fsync/crash = fsync\ncrash_states = flushes\ncrash_test_lie = $lie/" \
    configs/crash-ext4.ini > "$T/$name.ini"
  "$METIS_BIN/metis" run "$T/$name.ini" --out "$T/$name" "$@" 2> "$T/$name.err"
  rc=$?
  tail -n 1 "$T/$name.err"
  assert_no_leftovers "$(run_id_of "$T/$name.err")"
}

# ---- the lying device: caught ----
run lie 1 --ops 30 --seed 1
[ $rc = 1 ] || fail "the lying device: exit $rc, want 1 (a crash discrepancy)"
line=$(grep -m1 "^crash [0-9]* ext4 sync=fsync:.* recovered=[a-z]* states=" "$T/lie/log.txt" |
       grep -v "recovered=same")
[ -n "$line" ] || line=$(grep -m1 "^crash .* recovered=\(differs\|fsck\|mount\) states=" "$T/lie/log.txt")
[ -n "$line" ] || fail "no crash record of a state that differs, fails to mount or fails its check"
echo "$line" | grep -q "detail=state [0-9]* of [0-9]* (" || fail "the record does not name the state: $line"
seq=$(echo "$line" | cut -d' ' -f2)
grep -q "^discrepancy $seq fs=ext4 .* crash=" "$T/lie/log.txt" || fail "no crash discrepancy at operation $seq"
grep -q '^## crash check of ext4 (crash = fsync)' "$T/lie/discrepancy-1.txt" || fail "no crash section in the report"
grep -q "^### tree before the operation" "$T/lie/discrepancy-1.txt" || fail "the report lacks the tree before the operation"
[ -s "$T/lie/states/ext4-crash-$seq.img" ] || fail "the crash state was not saved"

# ---- replay and shrink ----
"$R" trace "$T/lie" -o "$T/lie.trace" || fail "trace failed"
"$R" run "$T/lie.trace" > "$T/run.out" 2>&1; rc=$?
[ $rc = 1 ] || { cat "$T/run.out"; fail "metis-replay run: exit $rc, want 1 (reproduced)"; }
grep -q "fails its crash check" "$T/run.out" || fail "the replay does not name the crash check"
"$R" shrink "$T/lie.trace" -o "$T/min.trace" 2> "$T/shrink.err"; rc=$?
tail -n1 "$T/shrink.err"
[ $rc = 1 ] || fail "metis-replay shrink: exit $rc, want 1"
grep -q "crash=[a-z]*$" "$T/min.trace" || fail "the shrunk trace lost the crash discrepancy"
[ "$(grep -c '^op ' "$T/min.trace")" -le "$seq" ] || fail "the shrunk trace is longer than the run"

# ---- the C reproducer: records the last step on its own faulty device and checks the states ----
"$R" emit-c "$T/min.trace" -o "$T/emit" > /dev/null || fail "emit-c failed"
grep -q "record on lie" "$T/emit/run.sh" || fail "the reproducer does not make its device lie as Metis's did"
repro_tmp=$(mktemp -d /dev/shm/crash-stream.XXXXXX)
on_exit "rm -rf --one-file-system $repro_tmp"
repro_loops() { losetup -n -l -O NAME,BACK-FILE | awk -v d="$repro_tmp/" 'index($2, d) == 1'; }
REPRO_TMP=$repro_tmp "$T/emit/run.sh" > "$T/emit.out" 2>&1; rc=$?
tail -n 4 "$T/emit.out"
[ $rc = 1 ] || fail "the emitted reproducer: exit $rc, want 1"
grep -q "^repro: crash state [0-9]* (flush: .* is not what a power cut may leave" "$T/emit.out" ||
  fail "the reproducer does not name the crash state"
wait_for 10 eval '[ -z "$(repro_loops)" ]'
[ -z "$(repro_loops)" ] || fail "the reproducer left loop devices: $(repro_loops)"
findmnt -rn -o TARGET | grep -q -- "^$repro_tmp/" && fail "the reproducer left a mount"
# The same reproducer with an honest device: every flush's state as promised.
sed 's/^cfg crash_test_lie = 1$/cfg crash_test_lie = 0/' "$T/min.trace" > "$T/honest.trace"
"$R" emit-c "$T/honest.trace" -o "$T/emit-honest" > /dev/null || fail "emit-c (honest) failed"
REPRO_TMP=$repro_tmp "$T/emit-honest/run.sh" > "$T/emit-honest.out" 2>&1; rc=$?
[ $rc = 0 ] || { cat "$T/emit-honest.out"; fail "the honest reproducer: exit $rc, want 0"; }
grep -q "^repro: \([1-9][0-9]*\) of \1 crash states checked" "$T/emit-honest.out" || fail "the honest reproducer did not check every state"

# ---- the honest device on the same steps: nothing ----
run honest 0 --ops 30 --seed 1
[ $rc = 0 ] || fail "the honest device: exit $rc, want 0"
checked=$(grep -c "^crash [0-9]* ext4 sync=.* recovered=same states=\([0-9]*\)/\1 distinct=[1-9][0-9]*$" "$T/honest/log.txt")
[ "$checked" = 30 ] || fail "the honest device: $checked of 30 operations with all their states checked"
# States whose images are byte-identical are recovered once: never more recovered than checked.
sed -n 's/^crash .* states=\([0-9]*\)\/[0-9]* distinct=\([0-9]*\)$/\1 \2/p' "$T/honest/log.txt" |
  awk '$2 > $1 { bad = bad " " $2 ">" $1 } END { if (bad != "") { print "distinct above checked:" bad; exit 1 } }' ||
  fail "a step recovered more states than it checked"
# Two states of a step can leave one image (a dropped write that a later write of the state
# overwrites, say): seen in most steps of this run; such a state is judged, not recovered again.
grep -q "states=\([0-9]*\)/.* distinct=\([0-9]*\)$" "$T/honest/log.txt" &&
  sed -n 's/^crash .* states=\([0-9]*\)\/[0-9]* distinct=\([0-9]*\)$/\1 \2/p' "$T/honest/log.txt" |
  awk '$2 < $1 { n++ } END { exit n ? 0 : 1 }' || fail "no step had two states with one image"
grep -q "states=[2-9][0-9]*/" "$T/honest/log.txt" || fail "no step made more than one state"
echo PASS
