#!/usr/bin/env bash
# Replays match their record: a 2,000-operation trace recorded on ext2 against ext4 replays with
# every result, errno and abstract state equal, and so does the search path of an engine run.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
ROOT=$METIS_ROOT
for b in metis metis-replay reffs; do
    [ -x "$B/$b" ] || { echo "skip: $B/$b is not built"; exit 77; }
done
for m in mkfs.ext2 mkfs.ext4; do
    PATH=$PATH:/sbin:/usr/sbin command -v $m >/dev/null || { echo "skip: no $m"; exit 77; }
done
[ -e /dev/loop-control ] || { echo "skip: no loop devices"; exit 77; }

work=$(mktemp -d /tmp/metis-replay-ext.XXXXXX)
rid=re$$
cleanup() {
    # /metis-ID and a separator: run rm1's clean-up must not take run rm12's mounts
    awk -v w="/metis-$rid([/.]|$)" -v d="$work/" '$5 ~ w || index($5, d) == 1 { print $5 }' \
        /proc/self/mountinfo | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
    rm -rf "$work" "/tmp/metis-$rid" "/dev/shm/metis-$rid"
}
on_exit cleanup
FAIL_LOG=$work/out   # what fail shows
export METIS_RUN_ID=$rid
R=$B/metis-replay

# ext2 has no fallocate (EOPNOTSUPP where ext4 succeeds): leave it out to compare the rest.
cat >"$work/ext.ini" <<'EOF'
[run]
seed = 7

[fs ext2]
type = kernel
fstype = ext2
size = 256K

[fs ext4]
type = kernel
fstype = ext4
size = 256K

[ops]
fallocate_file = 0
EOF
"$R" record "$work/ext.ini" --ops 2000 -o "$work/ext.trace" >"$work/out" 2>&1 || fail "record failed"
n=$(grep -c '^op ' "$work/ext.trace")
[ "$n" = 2000 ] || fail "recorded $n operations, want 2000 (a discrepancy stopped it?)"
[ "$(grep -c '^res ' "$work/ext.trace")" = 4000 ] || fail "not two results per operation"
"$R" run "$work/ext.trace" --tries 1 >"$work/out" 2>&1
rc=$?
[ $rc = 0 ] || fail "run exited $rc, want 0 (the replay matches)"
grep -q '^replay: 2000 operations on 2 file systems .* 4002 of 4002 recorded results match; at the end: no discrepancy$' \
    "$work/out" || fail "not every line matched"
grep -q '^mismatch' "$work/out" && fail "mismatches reported"

# A changed record is caught: its first 100 operations, one result edited, must not match.
awk '/^op 101 / { exit } /^res 50 ext4 / { sub(/ret=[-0-9]*/, "ret=12345") } /^end / { next } { print }
     END { print "end ops=100" }' "$work/ext.trace" >"$work/edited.trace"
"$R" run "$work/edited.trace" --tries 2 >"$work/out" 2>&1
rc=$?
[ $rc = 4 ] || fail "an edited trace replayed with exit $rc, want 4"
grep -q '^mismatch op 50 fs=ext4: replayed ret=' "$work/out" || fail "the edited result was not named"
grep -q '^  try 2: 1 of 202 recorded results differ' "$work/out" || fail "the tries were not reported"

# The search path of an engine run replays too (the trace command's projection of log.txt).
"$B/metis" run "$ROOT/configs/smoke.ini" --ops 200 --out "$work/run" >"$work/out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "metis run exited $rc"
"$R" trace "$work/run" -o "$work/smoke.trace" 2>"$work/out" || fail "trace failed"
"$R" run "$work/smoke.trace" >"$work/out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "the smoke run's trace replayed with exit $rc"
grep -q '^replay: .* \([0-9]*\) of \1 recorded results match' "$work/out" ||
    fail "the smoke run's trace did not match line for line"
echo "PASS"
