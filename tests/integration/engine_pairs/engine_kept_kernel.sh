#!/usr/bin/env bash
# Kernel file systems kept mounted (remount = 0): with the test hook that loses writes on the
# device, a checkpoint's remount check reports a class of its own (remount ext4 state content),
# triage shrinks it to a short trace that reproduces (exit 1); without the hook a kept pair runs
# clean with its remount checks; what the mode cannot do is refused in one line; nothing is left.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
need_tools mkfs.ext4 mkfs.ext2 losetup
R=$METIS_BIN/metis-replay

# configs/ref-vs-ext4.ini (its ext4 kept mounted) with checkpoints every $1 steps and $2 more
# [run] lines.
kept_config() {
  grep -q '^remount = 0$' configs/ref-vs-ext4.ini || fail "ref-vs-ext4.ini no longer keeps ext4 mounted"
  sed -e "s/^seconds = 60/seconds = 40\n$2/" \
      -e "s/^remount = 0$/remount = 0\nremount_every = $1/" configs/ref-vs-ext4.ini
}
remounted_config() { sed 's/^remount = 0$/remount = 1/' "$1"; }

# ---- the hook on: the remount check bites, and triage shrinks what it found ----
kept_config 16 "remount_test_lose = 512\nkeep_going = 1\nshrink_seconds = 20" > "$T/lose.ini"
"$METIS_BIN/metis" run "$T/lose.ini" --ops 4000 --out "$T/lose" 2> "$T/lose.err"
rc=$?
tail -n 3 "$T/lose.err"
assert_no_leftovers "$(run_id_of "$T/lose.err")"
[ $rc = 1 ] || fail "the lost-write hook: exit $rc, want 1 (a discrepancy)"
grep -q "remount ext4 state content" "$T/lose/classes.txt" ||
  fail "no class 'remount ext4 state content': $(head -n 3 "$T/lose/classes.txt")"
seq=$(sed -n 's/^discrepancy \([0-9]*\) fs=ext4 ret=same errno=same state=same remount=differs$/\1/p' \
  "$T/lose/log.txt" | head -n1)
[ -n "$seq" ] || fail "no remount discrepancy in the log"
d=$(grep -l "remount differs" "$T"/lose/discrepancy-*.txt | head -n1)
grep -q '^## remount check of ext4: the tree after a remount is not the live one' "$d" ||
  fail "no remount section in the report"
grep -q '^### tree after the remount' "$d" || fail "the report lacks the tree after the remount"
lost=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["backends"]["ext4"]["kept"]["lost_bytes"])' "$T/lose/summary.json")
[ "$lost" -ge 512 ] || fail "the hook took $lost bytes out of the image, want at least 512"

# Triage shrank the class (from the checkpoint before it, when the trace has a start record:
# the operations above it recreate that state); the trace reproduces it.
tr=$(ls "$T"/lose/class-*.trace 2>/dev/null | head -n1)
[ -n "$tr" ] || fail "triage wrote no trace: $(cat "$T/lose/classes.txt")"
n=$(awk '/^start /{n=0} /^op /{n++} END{print n}' "$tr")
[ "$n" -le 6 ] || fail "the shrunk trace has $n operations, want at most 6"
grep -q "remount=differs$" "$tr" || fail "the shrunk trace lost the remount discrepancy"
"$R" run "$tr" > "$T/run.out" 2>&1; rc=$?
cat "$T/run.out"
[ $rc = 1 ] || fail "metis-replay run of the shrunk trace: exit $rc, want 1 (reproduced)"
grep -q "fs ext4 fails its remount check" "$T/run.out" || fail "the replay does not name the remount check"
"$R" repro "$d" > "$T/repro.out" 2>&1; rc=$?
tail -n 1 "$T/repro.out"
[ $rc = 1 ] || fail "metis-replay repro: exit $rc, want 1"
grep -q "from the state after operation" "$T/repro.out" || fail "repro did not start from a checkpoint"

# ---- the hook off: a kept pair runs clean, restored logically, checked at its checkpoints ----
sed -e 's/^remount = 0$/remount = 0\nremount_every = 8/' \
    -e 's/^seconds = 600/seconds = 20/' configs/ext2-vs-ext4.ini > "$T/clean.ini"
"$METIS_BIN/metis" run "$T/clean.ini" --ops 20000 --out "$T/clean" 2> "$T/clean.err"
rc=$?
tail -n 1 "$T/clean.err"
assert_no_leftovers "$(run_id_of "$T/clean.err")"
[ $rc = 0 ] || fail "ext2 against ext4 kept mounted: exit $rc, want 0: $(head -n 3 "$T/clean/classes.txt" 2>/dev/null)"
python3 - "$T/clean/summary.json" <<'EOF' || fail "the kept pair's summary"
import json, sys
s = json.load(open(sys.argv[1]))
for name in ("ext2", "ext4"):
    b = s["backends"][name]
    assert b["restore"] == "logical", b
    k = b["kept"]
    assert k["remount_checks"] > 10, b
    assert b["verified"] == b["logical_restores"] > 100, b
    # where the checkpoints' time went: its parts, which make up (nearly) all of it
    parts = k["checkpoint_parts_s"]
    assert sorted(parts) == ["image", "mount", "resume", "settle", "unmount", "walk"], parts
    assert 0.9 * k["checkpoint_s"] <= sum(parts.values()) <= k["checkpoint_s"] + 0.01, b
    # each checkpoint settled the fs and read its device back on a view of its own, no remount
    assert k["view_checks"] == k["remount_checks"] and "view_off" not in k, k
    assert all(parts[p] > 0 for p in ("settle", "image", "mount", "walk")), k
EOF

# ---- what the mode cannot do: one line, exit 2 ----
refused() {   # NAME PATTERN: the config $T/NAME.ini is refused with a line matching PATTERN
  "$METIS_BIN/metis" check "$T/$1.ini" > "$T/$1.out" 2>&1; rc=$?
  [ $rc = 2 ] || fail "$1: exit $rc, want 2"
  [ "$(wc -l < "$T/$1.out")" = 1 ] || fail "$1: more than one line: $(cat "$T/$1.out")"
  grep -q "$2" "$T/$1.out" || fail "$1: $(cat "$T/$1.out")"
}
remounted_config configs/ref-vs-ext4.ini | sed 's/^seconds = 60/seconds = 60\nremount_test_lose = 1/' \
  > "$T/hook.ini"
refused hook "hook.ini:[0-9]*: remount_test_lose: no kernel file system with a device is kept mounted"
sed 's/^fstype = ext4/fstype = ext4\nremount = 0/' configs/crash-ext4.ini > "$T/crash.ini"
refused crash "crash.ini:[0-9]*: \[fs ext4\]: a crash check needs remount = 1: .*kept mounted (remount = 0) it is not"
remounted_config configs/ref-vs-ext4.ini | sed 's/^fstype = ext4/fstype = ext4\nremount_every = 8/' \
  > "$T/every.ini"
refused every "every.ini:[0-9]*: \[fs ext4\]: remount_every applies to a file system with an image kept mounted"
kept_config 16 "compare_mtime = 1" > "$T/mtime.ini"
refused mtime "mtime.ini:[0-9]*: \[fs ext4\]: kept mounted (remount = 0), .*compare_mtime needs remount = 1"
sed 's/^fstype = ext4/fstype = ext4\nremount = 0/' configs/faults-ext4.ini > "$T/faults.ini"
refused faults "faults.ini:[0-9]*: \[fs ext4\]: fault steps need remount = 1 (kept mounted, .*no image"
exit 0
