#!/usr/bin/env bash
# A kept kernel fs's checkpoint without an unmount: the fs settled (ext4: its journal
# checkpointed; xfs and btrfs: remounted read-only), its device read back through a read-only
# loop device of its own (a second mount of one UUID included); a write the device lost shows
# there as the remount class, and its trace reproduces; where the view cannot be had the
# checkpoints remount and summary.json says why; SIGINT and SIGKILL while a fs is settled with
# its view mounted leave no loop device or mount. The checkpoints keep their images from the
# blocks the device's trace says were written, held now and then to the whole image: a trace
# that misses writes is caught there (from the start, or later: the images since the last good
# check are dropped), one turned off from outside is noticed, and the run goes on clean with
# whole images.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root (loop devices, mounts)"
need_tools mkfs.ext4 mkfs.xfs mkfs.btrfs losetup
kernel_has_fs xfs || skip "no xfs in this kernel"
kernel_has_fs btrfs || skip "no btrfs in this kernel"

# config NAME BASE EVERY [RUN_LINES]: configs/BASE.ini with a checkpoint every EVERY steps
# and RUN_LINES (\n-separated) added to [run].
config() {
  sed -e "s/^seconds = 600$/seconds = 60\n${4:-}/" \
      -e "s/^remount = 0$/remount = 0\nremount_every = $3/" "configs/$2.ini" > "$T/$1.ini"
}

# checkpoints NAME WANT: every kept fs of run NAME took checkpoints, all on views (WANT=view)
# or all remounted with the reason (WANT=remounted, the reason matching $3). On views, where
# this kernel has tracefs, their images came from the traced writes, and every one held to the
# whole image was the same.
checkpoints() {
  python3 - "$T/$1/summary.json" "$2" "${3:-}" "$traced" <<'EOF' || fail "$1: its checkpoints"
import json, re, sys
s, want, why, traced = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
for name, b in s["backends"].items():
    k = b["kept"]
    assert k["remount_checks"] > 10, (name, k)
    if traced == "1" and want == "view":
        assert "trace_off" not in k, (name, k)
        assert k["image_catch_ups"] > k["remount_checks"] // 2, (name, k)
        assert k["image_checks"] >= 4, (name, k)
    parts = k["checkpoint_parts_s"]
    if want == "view":
        assert k["view_checks"] == k["remount_checks"] and "view_off" not in k, (name, k)
        assert parts["settle"] > 0 and parts["mount"] > 0, (name, k)
    else:
        assert k["view_checks"] == 0 and re.search(why, k["view_off"]), (name, k)
        assert parts["unmount"] > 0 and parts["mount"] > 0, (name, k)
EOF
}

traced=0
[ -d /sys/kernel/tracing/instances ] && [ -d /sys/kernel/tracing/events/block/block_bio_queue ] &&
  traced=1

# ---- both pairs run clean, every checkpoint on a view ----
for pair in ext4-vs-xfs ext4-vs-btrfs; do
  config "$pair" "$pair" 4
  "$METIS_BIN/metis" run "$T/$pair.ini" --ops 800 --seed 3 --out "$T/$pair" 2> "$T/$pair.err"
  rc=$?
  tail -n 1 "$T/$pair.err"
  assert_no_leftovers "$(run_id_of "$T/$pair.err")"
  FAIL_LOG=$T/$pair.err
  [ $rc = 0 ] || fail "$pair: exit $rc, want 0"
  checkpoints "$pair" view
done

# ---- a write xfs's device lost shows at a checkpoint's view, and its trace reproduces ----
config lose ext4-vs-xfs 8 "remount_test_lose = 512\nkeep_going = 1\nshrink_seconds = 20"
"$METIS_BIN/metis" run "$T/lose.ini" --ops 1500 --seed 3 --out "$T/lose" 2> "$T/lose.err"
rc=$?
tail -n 3 "$T/lose.err"
assert_no_leftovers "$(run_id_of "$T/lose.err")"
FAIL_LOG=$T/lose.err
[ $rc = 1 ] || fail "the lost-write hook on ext4-vs-xfs: exit $rc, want 1 (a discrepancy)"
cls=$(awk '$2 == "remount" && $3 == "xfs" && $4 == "state" && $5 == "content" { print $1; exit }' \
  "$T/lose/classes.txt")
[ -n "$cls" ] || fail "no class 'remount xfs state content': $(head -n 3 "$T/lose/classes.txt")"
python3 - "$T/lose/summary.json" <<'EOF' || fail "the lost-write run's summary"
import json, sys
s = json.load(open(sys.argv[1]))
k = [b["kept"] for b in s["backends"].values()]
assert sum(x["lost_bytes"] for x in k) >= 512, k
assert all(x["view_checks"] > 0 and "view_off" not in x for x in k), k
EOF
tr=$T/lose/class-$cls.trace
[ -f "$tr" ] || tr=
[ -n "$tr" ] || fail "triage wrote no trace: $(cat "$T/lose/classes.txt")"
"$METIS_BIN/metis-replay" run "$tr" > "$T/replay.out" 2>&1
rc=$?
tail -n 1 "$T/replay.out"
[ $rc = 1 ] || FAIL_LOG=$T/replay.out fail "metis-replay run of the trace: exit $rc, want 1"
grep -q "fs xfs fails its remount check" "$T/replay.out" ||
  FAIL_LOG=$T/replay.out fail "the replay does not name the remount check"

# ---- a trace that misses writes: the images held to the whole one show it ----
# traced_run NAME HOOK: ext4-vs-xfs, 400 operations, with METIS_TEST_WRITE_TRACE=HOOK; exit 0.
traced_run() {
  config "$1" ext4-vs-xfs 4
  METIS_TEST_WRITE_TRACE=$2 "$METIS_BIN/metis" run "$T/$1.ini" --ops 400 --seed 3 \
    --out "$T/$1" 2> "$T/$1.err"
  rc=$?
  tail -n 1 "$T/$1.err"
  assert_no_leftovers "$(run_id_of "$T/$1.err")"
  FAIL_LOG=$T/$1.err
  [ $rc = 0 ] || fail "METIS_TEST_WRITE_TRACE=$2: exit $rc, want 0 (whole images instead)"
}
if [ $traced = 1 ]; then
  # from the first take: the first check (the first image) fails, nothing is dropped
  traced_run miss miss
  python3 - "$T/miss/summary.json" <<'EOF' || fail "the missing trace's summary"
import json, sys
for name, b in json.load(open(sys.argv[1]))["backends"].items():
    k = b["kept"]
    assert k["image_catch_ups"] == 0 and k["image_checks"] == 1, (name, k)
    assert k["images_dropped"] == 0 and "not the device's" in k["trace_off"], (name, k)
EOF
  # from the 10th take: the check at the 32nd image fails; the images caught up since the 4th
  # (the last good check) are dropped, and the run still ends clean
  traced_run late miss:10
  python3 - "$T/late/summary.json" <<'EOF' || fail "the late-missing trace's summary"
import json, sys
for name, b in json.load(open(sys.argv[1]))["backends"].items():
    k = b["kept"]
    assert k["image_catch_ups"] == 32 and k["image_checks"] == 5, (name, k)
    assert k["images_dropped"] > 0 and "not the device's" in k["trace_off"], (name, k)
EOF
  # this run's own instance turned off from outside (as a reset of every instance would):
  # every take after it fails, and those checkpoints read the image whole
  config outside ext4-vs-xfs 4
  "$METIS_BIN/metis" run "$T/outside.ini" --seconds 12 --seed 3 --out "$T/outside" \
    2> "$T/outside.err" &
  pid=$!
  on_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
  wait_for 60 eval 'grep -q "output in" "$T/outside.err" || gone $pid'
  id=$(run_id_of "$T/outside.err")
  wait_for 60 eval 'ls /sys/kernel/tracing/instances | grep -q "^metis-$id-loop" || gone $pid'
  sleep 3
  for inst in /sys/kernel/tracing/instances/metis-"$id"-loop*; do
    echo 0 > "$inst/events/block/block_bio_queue/enable"
  done
  wait $pid
  rc=$?
  assert_no_leftovers "$id"
  FAIL_LOG=$T/outside.err
  [ $rc = 0 ] || fail "a trace turned off from outside: exit $rc, want 0"
  python3 - "$T/outside/summary.json" <<'EOF' || fail "the trace turned off from outside"
import json, sys
for name, b in json.load(open(sys.argv[1]))["backends"].items():
    k = b["kept"]
    assert k["image_catch_ups"] > 0 and k["trace_failures"] > 0, (name, k)
    assert k["remount_checks"] > k["image_catch_ups"] + 10, (name, k)
EOF
fi

# ---- no view: the checkpoints remount, and summary.json says why ----
config refuse ext4-vs-btrfs 4
METIS_TEST_DEVICE_VIEW=refuse "$METIS_BIN/metis" run "$T/refuse.ini" --ops 400 --seed 3 \
  --out "$T/refuse" 2> "$T/refuse.err"
rc=$?
tail -n 1 "$T/refuse.err"
assert_no_leftovers "$(run_id_of "$T/refuse.err")"
FAIL_LOG=$T/refuse.err
[ $rc = 0 ] || fail "without views: exit $rc, want 0"
checkpoints refuse remounted "test hook: the settled device's view refused"

# ---- stopped or killed while settled, its view mounted: nothing is left ----
# settled_run NAME: starts ext4-vs-xfs with a pause in its checkpoints; waits until one pauses
# with xfs settled and its view mounted; sets pid and id.
settled_run() {
  local name=$1
  config "$name" ext4-vs-xfs 4
  METIS_TEST_DEVICE_VIEW=pause:5 "$METIS_BIN/metis" run "$T/$name.ini" --seconds 120 \
    --out "$T/$name" 2> "$T/$name.err" &
  pid=$!
  on_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
  wait_for 300 eval 'grep -q "test hook: fs xfs settled" "$T/$name.err" || gone $pid'
  FAIL_LOG=$T/$name.err
  grep -q "test hook: fs xfs settled" "$T/$name.err" || fail "$name: no checkpoint paused"
  id=$(run_id_of "$T/$name.err")
  findmnt -rn -o TARGET | grep -qE -- "metis-$id/mnt-xfs\.view$" ||
    fail "$name: the view is not mounted while the checkpoint pauses"
}
settled_run int
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || FAIL_LOG=$T/int.err fail "SIGINT while settled: exit $rc, want 130"
assert_no_leftovers "$id"

settled_run kill
engine=$(pgrep -P $pid | head -n1)
[ -n "$engine" ] || fail "no engine process under metis $pid"
kill -KILL "$engine"
wait $pid
rc=$?
[ $rc = 3 ] || FAIL_LOG=$T/kill.err fail "the engine killed while settled: exit $rc, want 3"
assert_no_leftovers "$id"
echo PASS
