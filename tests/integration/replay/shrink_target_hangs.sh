#!/usr/bin/env bash
# A target that hangs in a shrink's candidate (archivemount at its unmount once a FIFO is made) does not end the shrink: the candidate is not the class and the session starts afresh, twice; a third hang stops the shrink at the shortest trace so far, which still reproduces (METIS_TEST_SHRINK_HANGS plants a hang every Nth candidate).
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis-replay reffs reffs-mutant; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
export METIS_REFFS_BIN=$METIS_ROOT/tests/mutations/reffs-pick.sh
cat >"$T/c.ini" <<'INI'
[run]
seed = 2

[fs ref]
type = reffs
size = 1M

[fs mut]
type = reffs
size = 1M
reffs_opts = mutation=MUT_UNLINK_NLINK

[pool]
dirs = 1
files = 2
depth = 1
INI
# A walk from the initial state (no saved state to start from) to the mutant's class.
FAIL_LOG=$T/rec.err
"$B/metis-replay" record "$T/c.ini" --ops 2000 -o "$T/t.trace" 2>"$T/rec.err" || fail "record failed"
total=$(awk '$1 == "end" { sub("ops=", "", $2); print $2 }' "$T/t.trace")
grep -q '^discrepancy .* fs=mut ' "$T/t.trace" || fail "the walk found no discrepancy of the mutant"
ops_of() { awk '$1 == "end" { sub("ops=", "", $2); print $2 }' "$1"; }
shrink() {  # NAME HANGS: shrink with a hang every HANGS-th candidate (0: none); exit 1 wanted
    FAIL_LOG=$T/$1.err
    METIS_TEST_SHRINK_HANGS=$2 "$B/metis-replay" shrink "$T/t.trace" --config "$T/c.ini" \
        -o "$T/$1.trace" >/dev/null 2>"$T/$1.err"
    local rc=$?
    [ $rc = 1 ] || fail "$1: shrink exited $rc, want 1 (reproduced and shrunk)"
    echo "$1: $total -> $(ops_of "$T/$1.trace") operations, $(grep -c 'the target hung' "$T/$1.err") hangs"
}
shrink plain 0
plain=$(ops_of "$T/plain.trace")
# Two hangs: each candidate is not the class, and the shrink ends where it ends without them.
shrink two 25
[ "$(grep -c 'the target hung in a candidate .*: not the class; the session starts afresh$' "$T/two.err")" = 2 ] ||
    fail "two: not 2 hangs that the shrink went on after"
grep -q 'stopped after' "$T/two.err" && fail "two: the shrink stopped after 2 hangs"
[ "$(ops_of "$T/two.trace")" = "$plain" ] || fail "two: $(ops_of "$T/two.trace") operations, $plain without hangs"
# A third hang stops it with the shortest trace so far, which reproduces.
shrink three 4
grep -q 'the target hung in a candidate .*and the shrink stops at the shortest trace so far' "$T/three.err" ||
    fail "three: the third hang did not stop the shrink"
grep -q "$total -> [0-9]* operations .*stopped after the target failed or hung in candidates" "$T/three.err" ||
    fail "three: the result does not say why it stopped"
[ "$(ops_of "$T/three.trace")" -lt "$total" ] || fail "three: nothing cut before the hangs"
FAIL_LOG=$T/run.out
"$B/metis-replay" run "$T/three.trace" --config "$T/c.ini" >"$T/run.out" 2>&1
[ $? = 1 ] || fail "the trace kept after the third hang does not reproduce"
echo PASS
