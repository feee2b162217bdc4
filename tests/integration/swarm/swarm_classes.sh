#!/usr/bin/env bash
# A keep-going swarm of 2 VTs (one per SSH test host) on a file system with two planted defects:
# the report merges each discrepancy class of both VTs into one row, with both VTs as hits, and
# names the VT that found it first and that VT's search shape.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
[ -x "$METIS_BIN/reffs-mutant" ] || { echo "no $METIS_BIN/reffs-mutant"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler for the reproducers"; exit 77; }
swarm_hosts_start "$SW/ssh" 2 || fail "could not start the SSH test hosts"
printf '# two test hosts, 1 VT each\n1/h1\n1/h2\n' > "$SW/hosts"
CFG=$METIS_ROOT/tests/fixtures/defects/two-defects.ini

swarm run "$CFG" --hosts "$SW/hosts" --vts 2 --seconds "${TRIAGE_SECONDS:-20}" --keep-going \
  --swarm-seed 5 --out "$SW/out"
[ "$rc" = 1 ] || fail "swarm exit $rc, expected 1 (discrepancies)"
python3 - "$SW/out/summary.json" <<'PY' || fail "the classes are not merged"
import json, sys
s = json.load(open(sys.argv[1]))
classes = {c["signature"]: c for c in s["classes"]}
want = {"mkdir bad state mode", "removexattr bad errno ENOENT, reference ENODATA"}
problems = []
if set(classes) != want:
    problems.append("classes %s, want %s" % (sorted(classes), sorted(want)))
for sig, c in classes.items():
    if sorted(c["vts"]) != [0, 1]:
        problems.append("%s: hit by VTs %s, want [0, 1]" % (sig, c["vts"]))
    per_vt = 0
    for v in (0, 1):
        run = json.load(open("%s/vt-%d/summary.json" % (sys.argv[1].rsplit("/", 1)[0], v)))
        per_vt += sum(k["hits"] for k in run["classes"] if k["signature"] == sig)
    if c["hits"] != per_vt:
        problems.append("%s: %s hits, the VTs have %s" % (sig, c["hits"], per_vt))
    if not c["first"]["repro"]:
        problems.append("%s: no reproducer named" % sig)
    # The first example is the VT's that found the class soonest into its run (ties: lowest VT).
    when = {}
    for v in (0, 1):
        run = json.load(open("%s/vt-%d/summary.json" % (sys.argv[1].rsplit("/", 1)[0], v)))
        when[v] = [k["first_s"] for k in run["classes"] if k["signature"] == sig][0]
    first = min((0, 1), key=lambda v: (when[v], v))
    if c["first"]["vt"] != first or abs(c["first"]["seconds"] - when[first]) > 0.001:
        problems.append("%s: first %s, want VT %d after %s s" % (sig, c["first"], first, when[first]))
    if c["first"]["shape"] != s["vt"][first]["shape"]:
        problems.append("%s: first shape %s, VT %d's is %s" % (sig, c["first"]["shape"], first,
                                                             s["vt"][first]["shape"]))
# Each VT runs its own search shape, recorded in vt.json and the summary: VT 0 the config's own.
for v in (0, 1):
    vt = json.load(open("%s/vt-%d/vt.json" % (sys.argv[1].rsplit("/", 1)[0], v)))
    if vt["shape"] != s["vt"][v]["shape"] or " shape=%s" % vt["shape"] not in vt["options"]:
        problems.append("VT %d: shape %s, options %s, summary %s" % (v, vt["shape"], vt["options"],
                                                                   s["vt"][v]["shape"]))
if s["vt"][0]["shape"] != "plain" or s["vt"][1]["shape"] == "plain":
    problems.append("shapes %s, %s: want plain and another" % (s["vt"][0]["shape"], s["vt"][1]["shape"]))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
grep -q '^2 discrepancy classes in 2 groups:$' "$SW/out/summary.txt" || fail "summary.txt does not list the classes"
[ "$(grep -cE ' hits  VTs 0,1  first found by VT [01] after [0-9.]+ s \(shape [a-z0-9]+\) at op [0-9]+, vt-' \
      "$SW/out/summary.txt")" = 2 ] ||
  fail "summary.txt does not show both classes hit by VTs 0 and 1 and which found each first"
grep -qE '^ +1 .* depth200 +[0-9]' "$SW/out/summary.txt" || fail "summary.txt does not show VT 1's shape"
[ "$(grep -vc '^#' "$SW/out/discrepancies.txt")" = 4 ] || fail "discrepancies.txt: not one line per class per VT"
assert_clean "$SW/out"
echo "PASS: $(grep -A4 'discrepancy classes' "$SW/out/summary.txt" | tr -s ' ' | tr '\n' ' ')"
