#!/usr/bin/env bash
# The fault check bites: with fault_test_silent = write_file the faulty device drops one write of each write_file step where no flush tells the fs, and every seed of 5 reports fault-lost within 60 s; its trace replays (run, repro), shrinks to at most 5 operations, and the emit-c reproducer (which builds and arms the faulty device itself) exits 1. Without the hook, fault steps that fail writes or reads find nothing.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, FUSE and kernel mounts)"
need_tools e2fsck mkfs.ext4 losetup cc pkg-config
[ -e /dev/fuse ] || skip "no /dev/fuse"
R=$METIS_BIN/metis-replay

# conf KEY=VALUE...: configs/faults-ext4.ini with a fault step at every operation, the [run] keys
# given added.
conf() {
  sed -e 's/^faults = .*/faults = 1/' -e 's/^seconds = .*/seconds = 60/' configs/faults-ext4.ini
}
conf | sed 's/^\[run\]$/[run]\nfault_test_silent = write_file\nshrink_seconds = 0/' > "$T/bite.ini"

for seed in 1 2 3 4 5; do
  planted_lost_found "$T/bite.ini" ext4 $seed
done

# Triage of seed 1: the trace carries the fault, and every replay re-arms it.
"$R" trace "$T/s1" -o "$T/s1.trace" || fail "no trace"
grep -q '^fault [0-9]* kind=lost_write at=' "$T/s1.trace" || fail "the trace records no fault"
"$R" run "$T/s1.trace" >"$T/run.out" 2>&1
[ $? = 1 ] || fail "replay does not reproduce it: $(tail -n 3 "$T/run.out")"
grep -q "fails its fault check: fault-lost" "$T/run.out" || fail "the replay does not name the fault check"
"$R" repro "$T/s1" >"$T/repro.out" 2>&1
[ $? = 1 ] || fail "repro does not reproduce it: $(tail -n 3 "$T/repro.out")"
"$R" shrink "$T/s1" -o "$T/s1.shrunk" 2>"$T/shrink.err" || [ $? = 1 ] || fail "shrink failed: $(tail -n 3 "$T/shrink.err")"
n=$(grep -c '^op ' "$T/s1.shrunk")
echo "shrunk to $n operations: $(tail -n 1 "$T/shrink.err")"
[ "$n" -le 5 ] || fail "the shrunk trace has $n operations, want at most 5"
grep -q 'fault=lost' "$T/s1.shrunk" || fail "the shrunk trace ends in another class"
"$R" emit-c "$T/s1.shrunk" -o "$T/repro" >/dev/null || fail "emit-c failed"
[ -f "$T/repro/faultdev.c" ] || fail "emit-c wrote no faultdev.c beside the reproducer"
# Without Metis's daemon: the faulty device built from faultdev.c alone, as run.sh builds it
# where no metis-faultdev is found.
grep -q 'cc -O1 -o "$here/faultdev" "$here/faultdev.c" $(pkg-config --cflags --libs fuse3)' \
  "$T/repro/run.sh" || fail "run.sh does not build faultdev.c where no daemon is found"
cc -O1 -o "$T/faultdev" "$T/repro/faultdev.c" $(pkg-config --cflags --libs fuse3) 2>"$T/cc.err" ||
  fail "faultdev.c does not build alone: $(head -n 3 "$T/cc.err")"
METIS_FAULTDEV=$T/faultdev "$T/repro/run.sh" >"$T/repro.run" 2>&1
rc=$?
[ $rc = 1 ] || fail "the reproducer exits $rc, want 1: $(tail -n 5 "$T/repro.run")"
grep -q "fault check: acknowledged, and not there after the remount" "$T/repro.run" ||
  fail "the reproducer does not say what it found: $(tail -n 5 "$T/repro.run")"

# Without the hook: fault steps that fail writes or reads from a drawn request on find nothing.
conf | sed 's/^fault_kinds = .*/fault_kinds = eio_write,eio_read/' > "$T/eio.ini"
"$METIS_BIN/metis" run "$T/eio.ini" --ops 300 --seed 3 --out "$T/eio" 2>"$T/eio.err"
rc=$?
FAIL_LOG=$T/eio.err
[ $rc = 0 ] || fail "300 eio fault steps: exit status $rc: $(grep -m1 '^class' "$T/eio/log.txt")"
hit=$(grep '^faulted' "$T/eio/log.txt" | grep -vc 'failed=0 lost=0')
echo "300 fault steps with EIO, $hit of them hit a request: no finding"
[ "$hit" -ge 50 ] || fail "only $hit of 300 fault steps hit a request"
echo PASS
