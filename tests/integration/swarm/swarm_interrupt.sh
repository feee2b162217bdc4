#!/usr/bin/env bash
# SIGINT to a swarm's primary stops and cleans every local and remote VT within seconds.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
swarm_hosts_start "$SW/ssh" 1 || fail "could not start the SSH test host"
printf '1/:\n2/h1\n' > "$SW/hosts"
CFG=$METIS_ROOT/configs/smoke.ini

"$METIS" swarm "$CFG" --hosts "$SW/hosts" --seconds 100 --ops 0 --swarm-seed 3 --out "$SW/out" \
  > "$SW/run.out" 2> "$SW/run.err" &
primary=$!
# Wait until all three VTs are searching (their logs hold operations), then interrupt.
searching() {
  id=$(swarm_ids)
  n=0
  [ -n "$id" ] && n=$(grep -l '^op ' /tmp/metis-swarm-"$id"/*/vt-*/log.txt 2>/dev/null | wc -l)
  [ "$n" = 3 ] || gone $primary
}
wait_for 300 searching
[ "$n" = 3 ] || { kill -INT $primary; wait $primary; fail "the VTs did not start searching"; }
sleep 1
t0=$(date +%s)
kill -INT $primary
wait $primary
rc=$?
took=$(( $(date +%s) - t0 ))
cat "$SW/run.out"; sed 's/^/    /' "$SW/run.err"
[ "$rc" = 130 ] || fail "primary exit $rc after SIGINT, expected 130"
[ "$took" -lt 45 ] || fail "the swarm took ${took}s to stop"
[ "$(python3 "$SWARM_PY" get "$SW/out" status)" = interrupted ] || fail "summary status is not interrupted"
for vt in 0 1 2; do
  st=$(python3 "$SWARM_PY" get "$SW/out" vt $vt status)
  [ "$st" = interrupted ] || fail "VT $vt: status $st, expected interrupted"
  grep -q '"status":"interrupted"' "$SW/out/vt-$vt/summary.json" || fail "VT $vt: the engine did not report the interrupt"
done
grep -q '"sshlogin":":"' "$SW"/out/vt-*/vt.json || fail "no VT ran on the local host"
grep -q '"sshlogin":"h1"' "$SW"/out/vt-*/vt.json || fail "no VT ran on h1"
assert_clean "$SW/out"
echo "PASS: stopped in ${took}s"
