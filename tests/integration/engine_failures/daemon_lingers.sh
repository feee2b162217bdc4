#!/usr/bin/env bash
# A daemon that lives on after its unmount (archivemount's save of a FIFO or socket never ends) is the target's failure once, a class; after that, in later searches too, an unmount that throws the daemon's state away (a restore's fresh mount) kills one still there after 0.2 s instead of failing after op_timeout each time, and counts it, also when the mount command exits later than set-up waits for one that daemonizes; nothing is left behind.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis metis-replay reffs; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
command -v setsid >/dev/null || skip "no setsid"
on_exit "pkill -9 -f -- 'lingerer $T/' 2>/dev/null"
# mount.sh BIN MNT: RefFS, and beside it a process of its own session that names the mount
# point and outlives the unmount, as a daemon still saving its archive does.
cat >"$T/mount.sh" <<'SH'
#!/bin/sh
setsid sh -c 'while :; do sleep 1; done' lingerer "$2" </dev/null >/dev/null 2>&1 &
exec "$1/reffs" -o noopen,nosnapshots,capacity=1M "$2"
SH
chmod +x "$T/mount.sh"
# slow.sh: the same, but the command exits 0.5 s after its daemon mounted, later than set-up
# waits for a command that daemonizes (as one may under load): the daemon is then taken for a
# foreground one, and the lingerer must still be found by its arguments.
cat >"$T/slow.sh" <<'SH'
#!/bin/sh
setsid sh -c 'while :; do sleep 1; done' lingerer "$2" </dev/null >/dev/null 2>&1 &
"$1/reffs" -o noopen,nosnapshots,capacity=1M "$2" && sleep 0.5
SH
chmod +x "$T/slow.sh"
cat >"$T/linger.ini" <<INI
[run]
seed = 2
keep_going = 1
shrink_seconds = 0

[fs ref]
type = reffs
size = 1M

[fs tgt]
type = fuse
mount_cmd = $T/mount.sh {bin} {mnt}
restore = replay
op_timeout = 4
INI
FAIL_LOG=$T/err
start=$(date +%s)
"$B/metis" run "$T/linger.ini" --ops 120 --out "$T/run" >"$T/out" 2>"$T/err"
rc=$?
took=$(( $(date +%s) - start ))
assert_no_leftovers "$(run_id_of "$T/err")"
[ $rc -eq 1 ] || fail "exit status $rc, want 1 (the lingering daemon's class), never 3"
left=$(pgrep -a -f -- "lingerer $T/")
[ -z "$left" ] || fail "lingering processes left: $left"
python3 - "$T/run/summary.json" "$took" <<'PY' || fail "summary.json: the lingering daemon was not learnt once"
import json, sys
s, took = json.load(open(sys.argv[1])), int(sys.argv[2])
b = s["backends"]["tgt"]
print("replays", b["replays"], "lingering_killed", b.get("lingering_killed"), "classes",
      [(c["signature"], c["hits"]) for c in s["classes"]], "in", took, "s")
assert b["replays"] >= 10, b
# the first lingering daemon is a class, one hit; every replay's unmount after it kills one
assert [(c["signature"], c["hits"]) for c in s["classes"]] == [("unmount-failed tgt", 1)], s["classes"]
assert b.get("lingering_killed", 0) >= b["replays"] - 1, b
# at op_timeout / 2 (2 s) each they would have taken twice as long at least
assert took < 2 * b["replays"], (took, b["replays"])
PY
grep -q "still running 2 s after the unmount" "$T/err" "$T/run"/discrepancy-*.txt "$T/run"/search-*/discrepancy-*.txt 2>/dev/null ||
    fail "the first lingering daemon is no class of the target's"

# The command that exits late: its lingerer is the same one class, then killed.
sed "s|$T/mount.sh|$T/slow.sh|" "$T/linger.ini" >"$T/slow.ini"
"$B/metis" run "$T/slow.ini" --ops 30 --out "$T/slow" >"$T/out" 2>"$T/err"
rc=$?
assert_no_leftovers "$(run_id_of "$T/err")"
[ $rc -eq 1 ] || fail "a late-exiting command: exit status $rc, want 1 (the lingering daemon's class)"
python3 - "$T/slow/summary.json" <<'PY' || fail "a late-exiting command: the lingering daemon was not learnt once"
import json, sys
s = json.load(open(sys.argv[1]))
b = s["backends"]["tgt"]
assert [(c["signature"], c["hits"]) for c in s["classes"]] == [("unmount-failed tgt", 1)], s["classes"]
assert b["replays"] >= 3 and b.get("lingering_killed", 0) >= b["replays"] - 1, b
PY
left=$(pgrep -a -f -- "lingerer $T/")
[ -z "$left" ] || fail "lingering processes left: $left"
echo PASS
