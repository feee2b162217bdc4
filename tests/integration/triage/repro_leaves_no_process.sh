#!/usr/bin/env bash
# A reproducer's run.sh leaves no process behind: a target whose mount command also starts a
# process in a session of its own that names the mount point and holds nothing open under it
# (as an archivemount daemon spinning after its mount went), is gone when the triage's
# reproducer runs have ended, as are their files, also after a TERM during the clean-up.
. "$(dirname "$0")/../../lib/common.sh"
need_tools cc python3 pgrep setsid
B=$METIS_BIN
for b in metis metis-replay reffs reffs-mutant; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
export REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"
on_exit "pkill -9 -f -- '$REPRO_TMP/' 2>/dev/null"

# mount.sh BIN MNT: the mutant; for a reproducer's mount (below a metis-repro.* directory)
# also a process of its own session naming the mount point, its descriptors elsewhere (with
# HOLD set, one under the reproducer's work directory, which its clean-up waits for).
cat >"$T/mount.sh" <<'SH'
#!/bin/sh
bin=$1 mnt=$2
case $mnt in
*/metis-repro.*)
    if [ -n "${HOLD:-}" ]; then
        setsid sh -c 'exec 3>"$1.held"; while :; do sleep 1; done' orphan "$mnt" </dev/null >/dev/null 2>&1 &
    else
        setsid sh -c 'while :; do sleep 1; done' orphan "$mnt.orphan" </dev/null >/dev/null 2>&1 &
    fi ;;
esac
exec "$bin/reffs-mutant" -o "noopen,nosnapshots,capacity=256K,mutation=REMOVEXATTR_ENOENT" "$mnt"
SH
chmod +x "$T/mount.sh"
cat >"$T/orphan.ini" <<INI
[run]
seed = 3
keep_going = 1
max_depth = 10
shrink_seconds = 20

[fs ref]
type = reffs
size = 256K

[fs tgt]
type = fuse
mount_cmd = $T/mount.sh {bin} {mnt}
restore = logical

[pool]
dirs = 0
files = 1
depth = 0
xattr_names = 1
INI
"$B/metis" run "$T/orphan.ini" --ops 300 --out "$T/run" 2>"$T/err"
rc=$?
FAIL_LOG=$T/err
assert_no_leftovers "$(run_id_of "$T/err")"
[ $rc = 1 ] || fail "exit $rc, want 1 (the planted removexattr class)"
python3 - "$T/run/summary.json" <<'PY' || fail "no reproducer of the class ran"
import json, sys
runs = [c.get("repro_runs", 0) for c in json.load(open(sys.argv[1]))["classes"]]
assert sum(runs) >= 1, runs
PY
left=$(pgrep -a -f -- "$REPRO_TMP/")
[ -z "$left" ] || fail "processes a reproducer left: $left"
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "reproducer files left behind: $(ls -A "$REPRO_TMP")"

# A TERM to run.sh's group while it cleans up (the triage's at its time limit, when the run
# itself had just ended) does not cut the clean-up short: dash ran 'exit 130' inside the
# clean-up and left an archivemount daemon spinning and its work directory.
repro=$(ls -d "$T"/run/class-*-repro | head -n 1)
FAIL_LOG=$T/term.out
HOLD=1 setsid "$repro/run.sh" >"$T/term.out" 2>&1 &
rpid=$!
# The verdict is run.sh's last line before its exit runs the clean-up, which then waits (up to
# 10 s) for the process that holds a file under its work directory.
for _ in $(seq 1 1200); do
    grep -q '^repro: ' "$T/term.out" && break
    kill -0 "$rpid" 2>/dev/null || fail "run.sh ended before its verdict"
    sleep 0.05
done
grep -q '^repro: ' "$T/term.out" || fail "run.sh gave no verdict in 60 s"
work=$(ls -d "$REPRO_TMP"/metis-repro.* 2>/dev/null | head -n 1)
[ -n "$work" ] && [ -e "$work/mnt.held" ] || fail "the clean-up had nothing left to wait for"
kill -TERM -- "-$rpid"
wait "$rpid"
echo "run.sh exited $? after a TERM in its clean-up"
left=$(pgrep -a -f -- "$REPRO_TMP/")
[ -z "$left" ] || fail "a TERM in the clean-up left processes: $left"
[ -z "$(ls -A "$REPRO_TMP")" ] || fail "a TERM in the clean-up left files: $(ls -A "$REPRO_TMP")"
echo PASS
