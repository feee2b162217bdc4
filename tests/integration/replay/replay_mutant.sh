#!/usr/bin/env bash
# The replayer end to end on the deliberately defective RefFS (MUT_RMDIR_NONEMPTY): the run stops
# at a discrepancy, repro reproduces it from a saved state, shrink brings it to the known minimal
# 3 operations (mkdir, create inside, rmdir), and the emit-c program built from it shows the defect.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis metis-replay reffs reffs-mutant; do
    [ -x "$B/$b" ] || { echo "skip: $B/$b is not built"; exit 77; }
done
[ -w /dev/fuse ] || { echo "skip: no /dev/fuse"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler for emit-c"; exit 77; }
"$B/reffs-mutant" -o mutation=list | grep -q '^MUT_RMDIR_NONEMPTY' ||
    { echo "skip: reffs-mutant has no MUT_RMDIR_NONEMPTY"; exit 77; }

work=$(mktemp -d /tmp/metis-replay-mutant.XXXXXX)
rid=rm$$
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

cat >"$work/mutant.ini" <<'EOF'
; ref: RefFS; bad: the same RefFS with rmdir of a non-empty directory allowed.
[run]
seed = 3
ops = 3000
max_depth = 30
ring = 10

[fs ref]
type = reffs
size = 256K

[fs bad]
type = reffs
size = 256K
reffs_opts = mutation=MUT_RMDIR_NONEMPTY

[pool]
dirs = 1
files = 2
depth = 1
xattr_names = 1

[ops]
fallocate_file = 0
setxattr = 0
removexattr = 0
link = 0
chown_file = 0
chgrp_file = 0

[sizes]
write_size = uniform:4
write_offset = uniform:4
trunc_size = uniform:4
EOF

# 1. The run stops with a discrepancy and exports the last states of its search path.
"$B/metis" run "$work/mutant.ini" --out "$work/run" >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "metis run exited $rc, want 1 (a discrepancy)"
grep -q '^discrepancy [0-9]* fs=bad ret=differs errno=differs' "$work/run/log.txt" ||
    fail "the log has no ret/errno discrepancy on fs bad"
ls "$work/run/states/"*.pickle >/dev/null 2>&1 || fail "no exported states"

# 2. trace: the search path only, ending at the discrepancy.
"$R" trace "$work/run" -o "$work/path.trace" 2>"$work/out" || fail "trace failed"
last=$(grep '^op ' "$work/path.trace" | tail -1)
case $last in *" rmdir "*) ;; *) fail "the path does not end with the rmdir: $last";; esac
all=$(grep -c '^op ' "$work/run/log.txt")
path=$(grep -c '^op ' "$work/path.trace")
[ "$path" -lt "$all" ] || fail "the trace has every operation ($path of $all), not the path"

# 3. repro: from the newest saved state plus the last operation.
"$R" repro "$work/run" >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "repro exited $rc, want 1"
grep -q 'reproduced .* from the state after operation [0-9]* (sid [0-9]*) + 1 operation in' "$work/out" ||
    fail "repro did not reproduce from the newest saved state"

# 4. shrink: the known minimum for this defect is 3 operations.
"$R" shrink "$work/run" -o "$work/min.trace" >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "shrink exited $rc, want 1"
n=$(grep -c '^op ' "$work/min.trace")
[ "$n" = 3 ] || fail "shrink left $n operations, want 3"
grep -q 'shrink: [0-9]* -> 3 operations in [0-9.]* s' "$work/out" || fail "shrink did not report its time"
grep '^op ' "$work/min.trace" | tail -1 | grep -q ' rmdir ' || fail "the minimal trace does not end with rmdir"
grep -q '^discrepancy [0-9]* fs=bad ret=differs errno=differs' "$work/min.trace" ||
    fail "the minimal trace does not record the same discrepancy"
"$R" run "$work/min.trace" >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "run of the minimal trace exited $rc, want 1 (reproduces)"
# Removing any one operation makes it disappear.
ops=$(grep -n '^op ' "$work/min.trace" | cut -d: -f1)
for l in $ops; do
    awk -v l="$l" 'NR == l { skip = 1; next } skip && /^(res|discrepancy) / { next } { skip = 0; print }' \
        "$work/min.trace" | sed 's/^end ops=3$/end ops=2/' >"$work/less.trace"
    "$R" run "$work/less.trace" --tries 1 >"$work/out" 2>&1
    rc=$?
    [ $rc = 0 ] || [ $rc = 4 ] || fail "without its line $l the minimal trace gives exit $rc"
    grep -q '^replay: 2 operations .* at the end: no discrepancy' "$work/out" ||
        fail "without its line $l the discrepancy is still there"
done

# 5. emit-c: a standalone program that shows the defect on the mutant and not on plain RefFS.
"$R" emit-c "$work/min.trace" -o "$work/emit" >"$work/out" 2>&1 || fail "emit-c failed"
[ -f "$work/emit/repro.c" ] && [ -x "$work/emit/run.sh" ] || fail "emit-c wrote no program"
grep -q 'metis\|libmetis' <(grep '#include' "$work/emit/repro.c") && fail "the program includes Metis"
REFFS_BIN=$B/reffs-mutant "$work/emit/run.sh" >"$work/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "the emitted program on the mutant exited $rc, want 1"
grep -q 'rmdir path=/d0 -> ret=0 errno=0; reference ref: ret=-1 errno=ENOTEMPTY.*DIFFERS' "$work/out" ||
    fail "the emitted program does not show the defect"
REFFS_BIN=$B/reffs "$work/emit/run.sh" ref >"$work/out" 2>&1
rc=$?
[ $rc = 0 ] || fail "the emitted program on plain RefFS exited $rc, want 0"

leaked=$(awk -v w="/metis-$rid([/.]|$)" '$5 ~ w' /proc/self/mountinfo | wc -l)
[ "$leaked" = 0 ] || fail "$leaked mounts left behind"
echo "PASS"
