#!/usr/bin/env bash
# Swarm faults: a crashed and a timed-out VT are reported and clean; --stop-on-discrepancy stops.
# alone: its VT time-out is four times a probe run timed just before; a neighbour test that starts
# between the two stretches the VTs' start past it (VT 0 timed out before its first operation,
# 2026-12-07, two at a time).
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
printf '2/:\n' > "$SW/hosts"
CFG=$METIS_ROOT/configs/smoke.ini

# VT 0 is killed (SIGKILL to its metis run) while searching; VT 1 overruns --vt-timeout. VT 0
# must be searching well before that time-out, which is therefore set from how long a run of
# the config takes here from its start to its end after one operation (pan's build and the
# set-up: a few seconds on an idle machine, many more on a busy one), four times over (two VTs
# build at once), and 15 s at least.
t0=$(date +%s.%N)
"$METIS" run "$CFG" --ops 1 --out "$SW/probe" >"$SW/probe.out" 2>&1 || { cat "$SW/probe.out"; fail "a run of one operation failed"; }
startup=$(echo "$(date +%s.%N) - $t0" | bc)
vt_timeout=$(echo "t = 4 * $startup + 1; if (t < 15) t = 15; scale = 0; t / 1" | bc)
echo "a run of one operation took $startup s (load $(cut -d' ' -f1 /proc/loadavg)): --vt-timeout $vt_timeout"
"$METIS" swarm "$CFG" --hosts "$SW/hosts" --vts 2 --seconds 100 --ops 0 --vt-timeout "$vt_timeout" \
  --swarm-seed 2 --out "$SW/out" > "$SW/run.out" 2> "$SW/run.err" &
primary=$!
pid=
vt0_searching() {
  id=$(swarm_ids)
  f=$(ls /tmp/metis-swarm-"$id"/*/vt-0/vt.json 2>/dev/null)
  if [ -n "$id" ] && [ -n "$f" ] && grep -qs '^op ' "$(dirname "$f")/log.txt"; then
    pid=$(sed -n 's/.*"pid":\([0-9]*\),.*/\1/p' "$f")
    return 0
  fi
  gone $primary
}
wait_for 300 vt0_searching
[ -n "$pid" ] || { kill -INT $primary; wait $primary; fail "VT 0 did not start searching"; }
kill -KILL "$pid"
wait $primary
rc=$?
cat "$SW/run.out"; sed 's/^/    /' "$SW/run.err"
[ "$rc" = 3 ] || fail "swarm exit $rc, expected 3 (VTs failed)"
[ "$(python3 "$SWARM_PY" get "$SW/out" vt 0 status)" = crashed ] || fail "VT 0 not reported crashed"
[ "$(python3 "$SWARM_PY" get "$SW/out" vt 0 exit)" = 137 ] || fail "VT 0 exit is not 128+SIGKILL"
[ "$(python3 "$SWARM_PY" get "$SW/out" vt 1 status)" = timeout ] || fail "VT 1 not reported timed out"
[ "$(python3 "$SWARM_PY" get "$SW/out" totals vts_failed)" = 2 ] || fail "vts_failed is not 2"
assert_clean "$SW/out"

# --stop-on-discrepancy: 6 VTs, 2 at a time, each soon finds the planted bug; once the first
# reports it no further VT starts.
MUTANT=$METIS_BIN/reffs-mutant
[ -x "$MUTANT" ] || { skip_part stop-on-discrepancy "no $MUTANT"; echo PASS; exit 0; }
sed '/^\[fs ext4\]/,/^$/d' "$CFG" > "$SW/mutant.ini"
printf '[fs mut]\ntype = reffs\nsize = 256K\nreffs_opts = mutation=MUT_RMDIR_NONEMPTY\n' >> "$SW/mutant.ini"
export METIS_REFFS_BIN=$MUTANT
swarm stop "$SW/mutant.ini" --hosts "$SW/hosts" --vts 6 --seconds 60 --ops 0 --swarm-seed 9 \
  --stop-on-discrepancy --out "$SW/out2"
[ "$rc" = 1 ] || fail "swarm exit $rc, expected 1 (discrepancy)"
[ "$(python3 "$SWARM_PY" get "$SW/out2" stopped)" = 1 ] || fail "summary does not say stopped"
grep -q '"status":"not-run"' "$SW/out2/summary.json" || fail "every VT ran despite --stop-on-discrepancy"
read -r vt dir seq fs detail < <(grep -v '^#' "$SW/out2/discrepancies.txt" | head -n1)
[ -n "${detail:-}" ] && [ -f "$detail" ] || fail "discrepancies.txt does not name a detail file"
[ "$dir" = "$SW/out2/vt-$vt" ] && [ "$fs" = mut ] || fail "discrepancies.txt: odd line: $vt $dir $seq $fs"
grep -q "^discrepancy $seq fs=mut" "$dir/log.txt" || fail "VT $vt's log has no discrepancy at $seq"
assert_clean "$SW/out2"
echo PASS
