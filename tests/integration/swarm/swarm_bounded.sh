#!/usr/bin/env bash
# A swarm of a bounded config splits one space: 2 VTs over SSH each search their share of the first two transitions, and the states they verified together are exactly the single run's (tests/fixtures/bounded/bounded-small.ini, depth 5), which the swarm's summary states; with [run] symmetry = names the union is the count up to renaming (tests/fixtures/bounded/bounded-symmetry.ini).
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
swarm_hosts_start "$SW/ssh" 1 || fail "could not start the SSH test host"
printf '2/h1\n' > "$SW/hosts"
CFG=$METIS_ROOT/tests/fixtures/bounded/bounded-small.ini
want=$(python3 "$METIS_ROOT/tests/lib/bounded_enum.py" 5) || fail "the enumerator failed"

"$METIS" run "$CFG" --seed 3 --out "$SW/alone" 2> "$SW/alone.err" || fail "the single run failed"
tail -n1 "$SW/alone.err" | grep -q "^metis: verified: $want states" || fail "single run: $(tail -n1 "$SW/alone.err")"

swarm run "$CFG" --hosts "$SW/hosts" --vts 2 --swarm-seed 8 --out "$SW/out"
[ "$rc" = 0 ] || fail "swarm exit $rc, expected 0"
python3 "$SWARM_PY" ok "$SW/out" 2 || fail "summary check"
for vt in 0 1; do
  grep -q "(share $((vt + 1)) of 2 of the first two transitions, [0-9]* states left to other VTs' claims): no discrepancy" "$SW/out/vt-$vt/stderr.txt" \
    || fail "VT $vt does not say it verified its share: $(tail -n1 "$SW/out/vt-$vt/stderr.txt")"
  case $(python3 "$SWARM_PY" get "$SW/out" vt $vt rerun) in
    *" --vts 2"*) ;; *) fail "VT $vt: its rerun command lacks --vts 2";; esac
  # pan is built without bitstate for a bounded config: the VT is described as it searched
  opts=$(python3 "$SWARM_PY" get "$SW/out" vt $vt options)
  case $opts in *"storage=exhaustive spin_seed="*" shape=bounded") ;;
    *) fail "VT $vt: its options are not the exhaustive bounded search it ran: $opts";; esac
done
grep -q "^metis swarm: verified together: $want states (the union of 2 VTs' shares), .*depth <= 5, .*: no discrepancy" \
  "$SW/run.out" || fail "the swarm does not say what its VTs verified together"
python3 - "$SW/out" "$SW/alone" "$want" <<'PY' || fail "the VTs' states are not the single run's"
import json, sys
out, alone, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = json.load(open(out + '/summary.json'))
b = s['bounded']
assert s['complete'] is True and b['verified'] is True and b['states'] == want, b
def keys(d):
    raw = open(d + '/bounded-states.bin', 'rb').read()
    n = json.load(open(d + '/summary.json'))['bounded']['states']
    k = len(raw) // n
    return {raw[i:i + k] for i in range(0, len(raw), k)}
single = keys(alone)
shares = [keys('%s/vt-%d' % (out, vt)) for vt in (0, 1)]
assert len(single) == want, len(single)
assert shares[0] | shares[1] == single, (len(shares[0] | shares[1]), len(single))
print('VT shares: %d and %d states, union %d = the single run\'s %d' %
      (len(shares[0]), len(shares[1]), len(shares[0] | shares[1]), len(single)))
PY
assert_clean "$SW/out"
# With [run] symmetry = names the VTs' keys are canonical and their union is the count up to
# renaming, which the swarm's verdict says.
sed 's/^search = bounded$/search = bounded\nsymmetry = names/' \
  "$METIS_ROOT/tests/fixtures/bounded/bounded-symmetry.ini" > "$SW/sym.ini"
want_sym=$(python3 "$METIS_ROOT/tests/lib/bounded_enum.py" 4 2 symmetry) || fail "the enumerator failed"
swarm run "$SW/sym.ini" --hosts "$SW/hosts" --vts 2 --swarm-seed 8 --out "$SW/sym"
[ "$rc" = 0 ] || fail "symmetry swarm exit $rc, expected 0"
grep -q "^metis swarm: verified together: $want_sym states up to renaming pool names of one kind (the union of 2 VTs' shares), " \
  "$SW/run.out" || fail "the symmetry swarm's verdict is not $want_sym states up to renaming"
assert_clean "$SW/sym"
echo PASS
