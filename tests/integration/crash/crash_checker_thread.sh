#!/usr/bin/env bash
# The checker of a stream's crash state runs in a thread beside the next state's recovery: when it refuses a state, the finding names that state (not the one recovered meanwhile), with its own counts; a fake e2fsck first in PATH refuses its Nth call.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
need_tools mkfs.ext4 e2fsck losetup fusermount3
[ -e /dev/fuse ] || skip "no /dev/fuse"
real=$(command -v e2fsck)
mkdir -p "$T/path"
cat > "$T/path/e2fsck" <<EOF
#!/bin/sh
n=\$((\$(cat "$T/calls" 2>/dev/null || echo 0) + 1))
echo \$n > "$T/calls"
[ "\$n" = "\$FAKE_FSCK_FAIL_AT" ] && { echo "fake checker refuses call \$n"; exit 4; }
exec "$real" "\$@"
EOF
chmod +x "$T/path/e2fsck"
sed 's/^crash = fsync/crash = fsync\ncrash_states = stream\nshrink_seconds = 0/' configs/crash-ext4.ini > "$T/c.ini"

# run N: one operation whose Nth checker call fails; sets $line (its crash record) and $rc.
run() {
  rm -f "$T/calls"
  PATH="$T/path:$PATH" FAKE_FSCK_FAIL_AT=$1 "$METIS_BIN/metis" run "$T/c.ini" --ops 1 --seed 1 \
    --out "$T/r$1" 2> "$T/r$1.err"
  rc=$?
  assert_no_leftovers "$(run_id_of "$T/r$1.err")"
  line=$(grep -m1 "^crash 1 ext4 " "$T/r$1/log.txt")
  echo "$line" | cut -c1-300
}

run 1
[ $rc = 1 ] || fail "checker refusing the base: exit $rc, want 1 (a crash discrepancy)"
echo "$line" | grep -q " recovered=fsck states=1/[0-9]* distinct=1 detail=state 1 of [0-9]* (base: .*fake checker refuses call 1" ||
  fail "the base's refusal is not named as state 1 with its counts: $line"
n=$(echo "$line" | sed 's/.* states=1\/\([0-9]*\) .*/\1/')
[ "$n" -ge 2 ] || fail "the step made $n states: no second state was recovered beside the checker"
grep -q "^### tree of the recovered copy" "$T/r1/discrepancy-1.txt" || fail "no recovered tree in the report"
sed -n '/^### tree of the recovered copy/,$p' "$T/r1/discrepancy-1.txt" | grep -q "^/d0 d " ||
  fail "the report's recovered tree is not the base's"

run 2
[ $rc = 1 ] || fail "checker refusing the second recovered state: exit $rc, want 1"
k=$(echo "$line" | sed -n 's/.* recovered=fsck states=\([0-9]*\)\/[0-9]* distinct=2 detail=state \1 of .*fake checker refuses call 2.*/\1/p')
[ -n "$k" ] && [ "$k" -ge 2 ] || fail "the second recovered state's refusal is not named with its counts: $line"
echo PASS
