#!/usr/bin/env bash
# A bounded swarm's VTs on one host share a claim table (--claims): a VT leaves a state to another VT that claims it with as much budget, and their states united stay exactly the single run's (tests/fixtures/bounded/bounded-small.ini, depth 5); VT 1 run after VT 0 on a table held open does fewer transitions than without it; the swarm removes its table, metis clean one nobody holds, and a planted defect (MUT_RMDIR_NONEMPTY) is still found.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
CFG=$METIS_ROOT/tests/fixtures/bounded/bounded-small.ini
want=$(python3 "$METIS_ROOT/tests/lib/bounded_enum.py" 5) || fail "the enumerator failed"
TABLE=/dev/shm/metis-claims-it$$
on_exit "rm -f $TABLE"

"$METIS" run "$CFG" --seed 3 --out "$SW/alone" 2> "$SW/alone.err" || fail "the single run failed"
tail -n1 "$SW/alone.err" | grep -q "^metis: verified: $want states" || fail "single run: $(tail -n1 "$SW/alone.err")"

# vt NAME I [OPTIONS]: VT I of 2, swarm seed 8, into $SW/NAME.
vt() {
  local name=$1 i=$2; shift 2
  "$METIS" run "$CFG" --vt "$i" --vts 2 --swarm-seed 8 "$@" --out "$SW/$name" 2> "$SW/$name.err" \
    || fail "$name: exit $?: $(tail -n1 "$SW/$name.err")"
}
vt plain0 0
vt plain1 1
# The table held open here, VT 1 starts only after VT 0 ended and still finds all its claims:
# it leaves to them every state VT 0 explored with as much budget, the most a claim can save.
exec 9<>"$TABLE"
flock -s 9
vt claims0 0 --claims "it$$"
vt claims1 1 --claims "it$$"
grep -q "(share 2 of 2 of the first two transitions, [1-9][0-9]* states left to other VTs' claims): no discrepancy" \
  "$SW/claims1.err" || fail "VT 1 does not say it left states to VT 0's claims: $(tail -n1 "$SW/claims1.err")"
python3 - "$SW" "$want" <<'PY' || fail "the VTs' states or transitions with claims are wrong"
import json, sys
sw, want = sys.argv[1], int(sys.argv[2])
def summary(name):
    return json.load(open('%s/%s/summary.json' % (sw, name)))['bounded']
def keys(name):
    raw = open('%s/%s/bounded-states.bin' % (sw, name), 'rb').read()
    n = summary(name)['states']
    k = len(raw) // n
    return {raw[i:i + k] for i in range(0, len(raw), k)}
single = keys('alone')
assert len(single) == want, len(single)
for mode in ('plain', 'claims'):
    union = keys(mode + '0') | keys(mode + '1')
    assert union == single, (mode, len(union), len(single))
t = {n: summary(n)['transitions'] for n in ('plain0', 'plain1', 'claims0', 'claims1')}
d = {n: summary(n)['deferred'] for n in ('claims0', 'claims1')}
assert summary('claims1')['claims'] is True and summary('plain1')['claims'] is False
assert d['claims0'] == 0 and d['claims1'] > 0, d            # VT 0 ran alone: nothing to defer to
assert t['claims0'] == t['plain0'], t                      # ... so it searched as without
assert t['claims1'] < t['plain1'], t
print('transitions without claims %d + %d, with %d + %d (VT 1 left %d states to VT 0); union %d'
      ' = the single run\'s %d' % (t['plain0'], t['plain1'], t['claims0'], t['claims1'],
                                  d['claims1'], len(keys('claims0') | keys('claims1')), want))
PY
[ -f "$TABLE" ] || fail "the table went while this test held it"
exec 9>&-
"$METIS" clean > "$SW/clean.out" 2>&1 || fail "metis clean: $(cat "$SW/clean.out")"
[ ! -e "$TABLE" ] || fail "metis clean left the claim table nobody holds"
grep -q "claim table" "$SW/clean.out" || fail "metis clean does not say it removed a claim table: $(cat "$SW/clean.out")"

# The swarm gives its VTs its id as the table's name; the last to end removes it.
swarm_hosts_start "$SW/ssh" 1 || fail "could not start the SSH test host"
printf '2/h1\n' > "$SW/hosts"
swarm run "$CFG" --hosts "$SW/hosts" --vts 2 --swarm-seed 8 --out "$SW/out"
[ "$rc" = 0 ] || fail "swarm exit $rc, expected 0"
grep -q "^metis swarm: verified together: $want states (the union of 2 VTs' shares), " "$SW/run.out" \
  || fail "the swarm does not say it verified $want states together"
for i in 0 1; do
  grep -q "(share $((i + 1)) of 2 of the first two transitions, [0-9]* states left to other VTs' claims): no discrepancy" \
    "$SW/out/vt-$i/stderr.txt" || fail "VT $i ran without the claim table: $(tail -n1 "$SW/out/vt-$i/stderr.txt")"
done
assert_clean "$SW/out"

# A planted defect three operations deep is found by the swarm with claims.
sed 's/^\[fs other\]$/[fs mut]\nreffs_opts = mutation=MUT_RMDIR_NONEMPTY/' "$CFG" > "$SW/mut.ini"
swarm mut "$SW/mut.ini" --hosts "$SW/hosts" --vts 2 --swarm-seed 8 --out "$SW/out-mut"
[ "$rc" = 1 ] || fail "mutant swarm exit $rc, expected 1"
grep -q "^metis swarm: not verified: " "$SW/mut.out" || fail "the mutant swarm's verdict is not 'not verified'"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert any(c["signature"].startswith("rmdir mut ") for c in s["classes"]), s["classes"]' \
  "$SW/out-mut/summary.json" || fail "the swarm found no rmdir class"
assert_clean "$SW/out-mut"
echo PASS
