#!/usr/bin/env bash
# A swarm with an unreachable host runs on the other one and reports the unreachable host.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
swarm_hosts_start "$SW/ssh" 1 || fail "could not start the SSH test host"
swarm_hosts_dead_alias "$SW/ssh" gone || fail "no free port for the dead host"
printf '2/h1\n2/gone\n' > "$SW/hosts"
CFG=$METIS_ROOT/configs/smoke.ini

start=$(date +%s.%N)
swarm check "$CFG" --check --hosts "$SW/hosts"
probe=$(echo "$(date +%s.%N) - $start" | bc)
[ "$rc" = 3 ] || fail "--check: exit $rc, expected 3 (a host is unreachable)"
grep -q '^gone .*unreachable' "$SW/check.out" || fail "--check does not call gone unreachable"
grep -q '^h1 .* ready ' "$SW/check.out" || fail "--check does not call h1 ready"

start=$(date +%s.%N)
swarm run "$CFG" --hosts "$SW/hosts" --seconds 3 --ops 0 --swarm-seed 5 --out "$SW/out"
[ "$rc" = 0 ] || fail "swarm exit $rc, expected 0 (every VT that could run ran)"
# The dead host is written off at once, not waited on: the hosts' probe, alone in --check,
# ends before its 30-s time-out, which a host that did not refuse would cost; and so does the
# run's time outside its VTs' (the same probe, the kit's copy, the collection) beyond the
# probe's. The VTs' own time (pan's build: many times as long on a busy machine) is
# summary.json's wall_seconds.
total=$(echo "$(date +%s.%N) - $start" | bc)
vts=$(python3 "$SWARM_PY" get "$SW/out" wall_seconds)
echo "--check took $probe s; the swarm $total s, its VTs $vts s of them (load $(cut -d' ' -f1 /proc/loadavg))"
[ "$(echo "$probe < 30" | bc)" = 1 ] || fail "--check took $probe s: the dead host was waited on"
[ "$(echo "$total - $vts - $probe < 30" | bc)" = 1 ] ||
  fail "the swarm spent $total s, $vts s of them in its VTs (--check: $probe s): the dead host held it up"
python3 "$SWARM_PY" ok "$SW/out" 2 || fail "summary check"
[ "$(python3 "$SWARM_PY" get "$SW/out" hosts 1 state)" = unreachable ] || fail "gone not reported unreachable"
python3 "$SWARM_PY" get "$SW/out" hosts 1 error | grep -q 'refused' || fail "no ssh error recorded for gone"
[ "$(python3 "$SWARM_PY" get "$SW/out" hosts_lost)" = 1 ] || fail "hosts_lost is not 1"
grep -q 'host gone .*unreachable' "$SW/out/summary.txt" || fail "summary.txt does not report gone"
grep -q 'gone: unreachable, not used' "$SW/run.err" || fail "no warning about gone on stderr"
assert_clean "$SW/out"

# Asking for more VTs than the live host has slots: they queue on it instead of failing.
swarm more "$CFG" --hosts "$SW/hosts" --vts 3 --seconds 1 --ops 0 --swarm-seed 5 --out "$SW/out2"
[ "$rc" = 0 ] || fail "swarm --vts 3: exit $rc, expected 0"
python3 "$SWARM_PY" ok "$SW/out2" 3 || fail "summary check (--vts 3)"
assert_clean "$SW/out2"
echo "PASS"
