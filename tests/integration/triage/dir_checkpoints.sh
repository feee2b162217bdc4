#!/usr/bin/env bash
# Saved states of a slow {dir}-backed FUSE target (tests/fixtures/triage/bindfs-slow-dirs.ini): with
# remount_every = 4 its directories are kept every 4th step it runs (unmounted, copied, mounted
# again and its tree checked), the report exports the newest of them, and the class's trace (what
# the fs ran since its last fresh mount, restores included) starts there, so triage shrinks it
# within its budget. The same run without checkpoints (remount_every = 0) has only the initial
# state to start from: its history is timed from there, and with two thirds of that time as the
# budget a shrink of it runs out of time, while the shrink of the checkpointed run bites.
# alone: its budget is two thirds of a replay timed just before it; a neighbour test that starts
# between the two moves it by more than that.
. "$(dirname "$0")/../../lib/common.sh"
need_tools bindfs strace mountpoint fusermount3 python3 bc
B=$METIS_BIN
for b in metis metis-replay; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
FIX=$METIS_ROOT/tests/fixtures/triage/bindfs-slow-dirs.ini
export REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"

# run NAME REMOUNT_EVERY SHRINK_SECONDS: one run of the fixture, exit 1 (the planted defect)
run() {
  sed -e "s/^remount_every = 4/remount_every = $2/" -e "s/^shrink_seconds = 0/shrink_seconds = $3/" \
    "$FIX" >"$T/$1.ini"
  "$B/metis" run "$T/$1.ini" --out "$T/$1" >"$T/$1.out" 2>&1
  local rc=$?
  [ $rc = 1 ] || { tail -20 "$T/$1.out"; fail "$1: metis run exited $rc, want 1"; }
  assert_no_leftovers "$(run_id_of "$T/$1.out")"
  [ -f "$T/$1/discrepancy-1.txt" ] || fail "$1: no discrepancy-1.txt"
}

# With checkpoints, triage inside the run: shrunk from a kept state, a reproducer that bites.
run kept 4 20
python3 - "$T/kept/summary.json" <<'PY' || fail "kept: no checkpoints, or the class not shrunk from one"
import json, sys
s = json.load(open(sys.argv[1]))
ck = s["backends"]["slowbind"]["dir_checkpoints"]
print("checkpoints:", ck)
assert ck["every"] == 4 and ck["taken"] >= 1, ck
c = s["classes"][0]
print("class 1:", c["signature"], "|", c["triage"], "|", c["trace_start"])
assert c["triage"].startswith("shrunk") and "time limit" not in c["triage"], c["triage"]
assert c["repro_exit_target"] == 1, c
PY
grep -q '^state sid=[1-9][0-9]* .*fs=slowbind file=.*/states/slowbind-[0-9]*\.dirs$' "$T/kept/discrepancy-1.txt" ||
  fail "kept: the detail file exports no kept directories of slowbind"
grep -q '^fresh [1-9][0-9]* slowbind sid=' "$T/kept/log.txt" || fail "kept: no fresh mount on kept directories logged"

# Without checkpoints: the same search, only the initial state to start from.
run bare 0 0
python3 - "$T/bare/summary.json" <<'PY' || fail "bare: checkpoints taken with remount_every = 0"
import json, sys
assert json.load(open(sys.argv[1]))["backends"]["slowbind"]["dir_checkpoints"]["taken"] == 0
PY
grep -q 'fs=slowbind file=.*\.dirs$' "$T/bare/discrepancy-1.txt" && fail "bare: directories exported without checkpoints"
"$B/metis-replay" trace "$T/bare/discrepancy-1.txt" -o "$T/bare.full" >/dev/null 2>&1 || fail "bare: no trace"
"$B/metis-replay" trace "$T/kept/discrepancy-1.txt" -o "$T/kept.full" >/dev/null 2>&1 || fail "kept: no trace"
steps() { grep -c '^op \|^call ' "$1"; }
[ $(($(steps "$T/kept.full") * 2)) -lt "$(steps "$T/bare.full")" ] ||
  fail "kept: its history ($(steps "$T/kept.full") steps) is not cut by the checkpoints (bare: $(steps "$T/bare.full"))"
now() { date +%s.%N; }
t0=$(now)
"$B/metis-replay" run "$T/bare.full" --config "$T/bare/config.ini" --tries 1 >"$T/bare.run" 2>&1
rc=$?
full=$(echo "$(now) - $t0" | bc)
[ $rc = 1 ] || { tail -3 "$T/bare.run"; fail "bare: its history did not reproduce from the initial state (exit $rc)"; }
budget=$(echo "scale=2; $full * 2 / 3" | bc)
shrink() {  # NAME: shrink its class within the budget
  "$B/metis-replay" shrink "$T/$1/discrepancy-1.txt" --config "$T/$1/config.ini" --fs slowbind \
    --seconds "$budget" -o "$T/$1.trace" >/dev/null 2>"$T/$1.shrink"
}
shrink bare
rc=$?
[ $rc = 3 ] && grep -q "time limit came before the \(whole trace was replayed once\|discrepancy reproduced\)" "$T/bare.shrink" ||
  { cat "$T/bare.shrink"; fail "bare: a shrink from the initial state met the budget (exit $rc): the test proves nothing"; }
t0=$(now)
shrink kept
rc=$?
took=$(echo "$(now) - $t0" | bc)
[ $rc = 1 ] || { cat "$T/kept.shrink"; fail "kept: shrink with checkpoints exited $rc within $budget s"; }
echo "ok: history $(steps "$T/bare.full") steps without checkpoints, $(steps "$T/kept.full") with them;" \
     "its replay from the initial state ${full} s; budget ${budget} s: without checkpoints out of time," \
     "with them shrunk in ${took} s: $(grep -o 'shrink: [0-9]* -> [0-9]* operations[^,]*' "$T/kept.shrink" | head -1)," \
     "$(grep -o 'starts from [^(]*' "$T/kept.shrink" | head -1)"
