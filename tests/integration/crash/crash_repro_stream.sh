#!/usr/bin/env bash
# The emit-c reproducer of a crash class found between two flushes (crash_states = stream) on
# ext4 4 MiB: a recording device whose flush does not order (the test hook crash_test_lie = 2:
# the first write after each flush is logged ahead of the writes the flush covered) passes
# every flush state (crash_states = flushes finds nothing in 30 operations) and is caught in a
# state with one write dropped or a prefix; the reproducer rebuilds the states Metis checked,
# in its order, fails in one between two flushes too, and with an honest device checks them
# all and exits 0.
# The oracle pasted into the reproducer bites on hand-made listings; nothing is left behind.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
need_tools mkfs.ext4 e2fsck losetup fusermount3
[ -e /dev/fuse ] || skip "no /dev/fuse"
R=$METIS_BIN/metis-replay

# run NAME STATES: configs/crash-ext4.ini with crash_states = STATES and the early lie, 30
# operations of seed 1; sets $rc; checks the run left nothing behind. op_timeout 60: at a load
# average of 20 (tests/shared-host.sh beside other work) the flushes run ended with exit 3 at
# operation 1, and a step on the recording device has been seen to pass the default 10 s at 18.
run() {
  local name=$1 states=$2
  sed -e "s/^crash = fsync/crash = fsync\ncrash_states = $states\ncrash_test_lie = 2/" \
      -e 's/^size = 4M/size = 4M\nop_timeout = 60/' configs/crash-ext4.ini > "$T/$name.ini"
  "$METIS_BIN/metis" run "$T/$name.ini" --out "$T/$name" --ops 30 --seed 1 2> "$T/$name.err"
  rc=$?
  case $rc in 0 | 1) tail -n 1 "$T/$name.err" ;; *) tail -n 5 "$T/$name.err" ;; esac
  assert_no_leftovers "$(run_id_of "$T/$name.err")"
}

# ---- the flush states alone do not show it ----
run flushes flushes
[ $rc = 0 ] || fail "crash_states = flushes with the early lie: exit $rc, want 0 (no flush state shows it)"
[ "$(grep -c '^crash [0-9]* ext4 .* recovered=same states=' "$T/flushes/log.txt")" = 30 ] ||
  fail "crash_states = flushes did not check 30 operations"

# ---- the stream's states do ----
run stream stream
[ $rc = 1 ] || fail "crash_states = stream with the early lie: exit $rc, want 1"
line=$(grep -m1 "^crash [0-9]* ext4 .* recovered=[a-z]* states=.* detail=state " "$T/stream/log.txt" |
       grep -v "recovered=same")
echo "$line" | grep -q "detail=state [0-9]* of [0-9]* (\(drop\|prefix\): " ||
  fail "the finding is not in a state between two flushes: $line"
state=$(echo "$line" | sed 's/.* detail=state \([0-9]*\) of [0-9]* (\([a-z]*\):.*/\1 \2/')

# ---- the reproducer: the same states, the same finding ----
"$R" trace "$T/stream" -o "$T/lie.trace" || fail "trace failed"
"$R" emit-c "$T/lie.trace" -o "$T/emit" > /dev/null || fail "emit-c failed"
grep -q "record on early" "$T/emit/run.sh" || fail "the reproducer's device does not lie as Metis's did"
grep -q -- '--states "$work/stream.log" stream 64' "$T/emit/run.sh" ||
  fail "the reproducer does not enumerate the stream's states with Metis's bound"
repro_tmp=$(mktemp -d /dev/shm/crash-repro-stream.XXXXXX)
on_exit "rm -rf --one-file-system $repro_tmp"
repro_loops() { losetup -n -l -O NAME,BACK-FILE | awk -v d="$repro_tmp/" 'index($2, d) == 1'; }
REPRO_TMP=$repro_tmp "$T/emit/run.sh" > "$T/emit.out" 2>&1; rc=$?
grep "^repro: " "$T/emit.out" | tail -n 4
[ $rc = 1 ] || fail "the emitted reproducer: exit $rc, want 1"
# The kernel's writes vary from run to run (the number of states too), so the reproducer's
# state need not have Metis's number, but it must lie between two flushes as Metis's did.
got=$(sed -n 's/^repro: crash state \([0-9]*\) (\([a-z]*\): .* is not what a power cut may leave$/\1 \2/p' "$T/emit.out")
echo "failing state: Metis's $state, the reproducer's $got"
case $got in
  *' drop' | *' prefix') ;;
  *) fail "the reproducer's failing state is '$got', not one between two flushes (Metis's: '$state')" ;;
esac

# ---- the same reproducer with an honest device: every state checked, none fails ----
sed 's/^cfg crash_test_lie = 2$/cfg crash_test_lie = 0/' "$T/lie.trace" > "$T/honest.trace"
"$R" emit-c "$T/honest.trace" -o "$T/emit-honest" > /dev/null || fail "emit-c (honest) failed"
REPRO_TMP=$repro_tmp "$T/emit-honest/run.sh" > "$T/emit-honest.out" 2>&1; rc=$?
grep "crash states checked" "$T/emit-honest.out"
[ $rc = 0 ] || { tail -n 20 "$T/emit-honest.out"; fail "the honest reproducer: exit $rc, want 0"; }
n=$(sed -n 's/^repro: \([0-9]*\) of \([0-9]*\) crash states checked$/\1 \2/p' "$T/emit-honest.out")
set -- $n
[ -n "$1" ] && [ "$1" = "$2" ] && [ "$1" -gt 5 ] ||
  fail "the honest reproducer did not check every state of the stream: '$n'"
wait_for 10 eval '[ -z "$(repro_loops)" ]'
[ -z "$(repro_loops)" ] || fail "the reproducers left loop devices: $(repro_loops)"
findmnt -rn -o TARGET | grep -q -- "^$repro_tmp/" && fail "the reproducers left a mount"

# ---- the oracle in repro.c, on hand-made "list" files ----
oracle() { "$T/emit/repro" oracle "$T/pre" "$T/post" "$T/rec" "$@"; }
printf 'd / 0755 3 0 0 -\nf /a 0644 1 0 0 3 h1\nf /keep 0644 1 0 0 1 h2\n' > "$T/pre"
printf 'd / 0755 3 0 0 -\nf /b 0644 1 0 0 3 h1\nf /keep 0644 1 0 0 1 h2\n' > "$T/post"
cp "$T/post" "$T/rec"; oracle 1 0 > /dev/null || fail "the oracle refuses the rename done"
cp "$T/pre" "$T/rec"; oracle 1 0 > /dev/null || fail "the oracle refuses the rename not done"
printf 'd / 0755 3 0 0 -\nf /a 0644 1 0 0 3 h1\nf /b 0644 1 0 0 3 h1\nf /keep 0644 1 0 0 1 h2\n' > "$T/rec"
oracle 1 0 | grep -q "half there" || fail "the oracle misses a rename at both names (rule 2)"
oracle 0 0 > /dev/null || fail "the oracle holds the rename to all or nothing once its syncs began"
printf 'd / 0755 3 0 0 -\nf /b 0644 1 0 0 3 h1\nf /keep 0644 1 0 0 0 h0\n' > "$T/rec"
oracle 0 0 | grep -q "untouched by the operation" || fail "the oracle misses an untouched file changed (rule 1)"
oracle 0 0 /a /keep > /dev/null || fail "the oracle holds a name the operation gives as untouched (rule 1)"
oracle 1 0 /a /keep | grep -q "half there" || fail "the oracle lets a named entry change in flight (rule 2)"
printf 'd / 0755 3 0 0 -\nf /b 0644 1 0 0 3 h1\nf /keep 0644 1 0 0 1 h2\nf /new 0644 1 0 0 0 h0\n' > "$T/rec"
oracle 0 0 | grep -q "neither before nor after" || fail "the oracle misses garbage (rule 1)"
printf 'd / 0755 3 0 0 -\nf /a 0644 1 0 0 3 h1\nf /keep 0644 1 0 0 1 h2\n' > "$T/pre"
printf 'd / 0755 3 0 0 -\nf /a 0644 1 0 0 9 h9\nf /keep 0644 1 0 0 1 h2\n' > "$T/post"
printf 'd / 0755 3 0 0 -\nf /a 0644 1 0 0 5 h5\nf /keep 0644 1 0 0 1 h2\n' > "$T/rec"
oracle 1 1 > /dev/null || fail "the oracle holds a data operation's file to more than its type"
oracle 1 0 | grep -q "half there" || fail "the oracle lets a metadata operation's entry be neither"
echo PASS
