#!/usr/bin/env bash
# Swarm over two SSH test hosts: 4 VTs come back distinct, totals add up, nothing is left.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
swarm_hosts_start "$SW/ssh" 2 || fail "could not start the SSH test hosts"
printf '# two test hosts, 2 VTs each\n2/h1\n2/h2\n' > "$SW/hosts"
CFG=$METIS_ROOT/configs/smoke.ini

swarm check "$CFG" --check --hosts "$SW/hosts"
[ "$rc" = 0 ] || fail "--check: exit $rc, expected 0"
[ "$(grep -c ' ready ' "$SW/check.out")" = 2 ] || fail "--check does not call both hosts ready"
grep -q 'mkfs.ext4' "$SW/check.out" || fail "--check does not name the config's mkfs tool"

swarm run "$CFG" --hosts "$SW/hosts" --seconds 4 --ops 0 --swarm-seed 11 --out "$SW/out"
[ "$rc" = 0 ] || fail "swarm exit $rc, expected 0"
python3 "$SWARM_PY" ok "$SW/out" 4 || fail "summary check"
[ "$(ls -d "$SW"/out/vt-* | wc -l)" = 4 ] || fail "expected 4 VT directories"
for h in h1 h2; do
  n=$(grep -l "\"sshlogin\":\"$h\"" "$SW"/out/vt-*/vt.json | wc -l)
  [ "$n" = 2 ] || fail "host $h ran $n VTs, expected 2"
done
grep -q '^ all ' "$SW/out/summary.txt" || fail "summary.txt has no totals line"
cmp -s "$SW/run.out" "$SW/out/summary.txt" || fail "the printed table is not summary.txt"
assert_clean "$SW/out"
echo "PASS: 4 VTs on 2 hosts, $(python3 "$SWARM_PY" get "$SW/out" totals ops) ops in all"
