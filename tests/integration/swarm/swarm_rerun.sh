#!/usr/bin/env bash
# A swarm VT re-run alone with its recorded command makes the same first 1,000 operations.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
swarm_hosts_start "$SW/ssh" 1 || fail "could not start the SSH test host"
printf '2/h1\n' > "$SW/hosts"
CFG=$METIS_ROOT/configs/smoke.ini
N=1000

swarm run "$CFG" --hosts "$SW/hosts" --ops $N --seconds 50 --swarm-seed 4 --out "$SW/out"
[ "$rc" = 0 ] || fail "swarm exit $rc, expected 0"
python3 "$SWARM_PY" ok "$SW/out" 2 || fail "summary check"
for vt in 0 1; do
  cmd=$(python3 "$SWARM_PY" get "$SW/out" vt $vt rerun)
  case $cmd in "metis run "*" --vt $vt --swarm-seed 4"*) ;; *) fail "VT $vt: odd rerun command: $cmd";; esac
  eval "\"\$METIS\" ${cmd#metis }" --out "$SW/alone$vt" 2> "$SW/alone$vt.err" || fail "VT $vt alone failed"
  grep '^op ' "$SW/out/vt-$vt/log.txt" | head -n $N > "$SW/swarm$vt.ops"
  grep '^op ' "$SW/alone$vt/log.txt" | head -n $N > "$SW/alone$vt.ops"
  [ "$(wc -l < "$SW/swarm$vt.ops")" = $N ] || fail "VT $vt made fewer than $N operations in the swarm"
  cmp "$SW/swarm$vt.ops" "$SW/alone$vt.ops" || fail "VT $vt alone made other operations than in the swarm"
  seed=$(python3 "$SWARM_PY" get "$SW/out" vt $vt input_seed)
  grep -q "^run .* seed=$seed " "$SW/alone$vt/log.txt" || fail "VT $vt alone: input seed is not $seed"
  echo "VT $vt: the first $N operations agree ($(python3 "$SWARM_PY" get "$SW/out" vt $vt options))"
done
cmp -s "$SW/swarm0.ops" "$SW/swarm1.ops" && fail "VT 0 and VT 1 made the same operations"
assert_clean "$SW/out"
echo PASS
