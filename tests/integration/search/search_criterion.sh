#!/usr/bin/env bash
# search_criterion.py tells searches apart: a search ten times stronger than another meets the 5-seed criterion in nearly every simulated table, one of the same strength almost never, and that one made stronger passes more often.
. "$(dirname "$0")/../../lib/common.sh"
py=$METIS_ROOT/tests/mutations/search_criterion.py
# 12 rows; per row 30 searches of 1,000 operations. base: a report every 2nd search at
# 100 .. 900; strong: every search, at a tenth of base's; peer: base's samples in another
# order (as strong, other variants).
python3 - "$T/results.tsv" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    for row in range(12):
        base = [(100 + 27 * ((i * 7 + row) % 30)) if i % 2 else -1000 for i in range(30)]
        strong = [max(1, abs(s) // 10) for s in base]
        peer = base[::-1]
        for kind, samples in (("base", base), ("strong", strong), ("peer", peer)):
            for seed in range(3):
                cell = samples[seed * 10:(seed + 1) * 10]
                out.write("\t".join(["cell", f"MUT_ROW_{row}", kind, str(101 + seed), "ok"]
                                    + [str(s) for s in cell]) + "\n")
PY
p_met() {   # $1 label: the P(criterion met) of that line of the last output
  grep -F "| $1 |" "$T/out" | awk -F'|' '{ gsub(/ /, "", $5); print $5 }'
}
SC_TABLES=300 python3 "$py" "$T/results.tsv" strong base >"$T/out" || fail "strong base: exit $?"
cat "$T/out"
p=$(p_met "as measured")
awk -v p="$p" 'BEGIN { exit !(p >= 0.9) }' || fail "a search ten times stronger met the criterion in $p of the tables"
SC_TABLES=300 python3 "$py" "$T/results.tsv" peer base >"$T/out" || fail "peer base: exit $?"
cat "$T/out"
p=$(p_met "as measured") p6=$(p_met "made 6x stronger")
awk -v a="$p" -v b="$p6" 'BEGIN { exit !(a <= 0.05 && b > a + 0.3) }' ||
  fail "a search as strong met it in $p of the tables, made 6x stronger in $p6"
python3 "$py" "$T/results.tsv" strong nosuch 2>"$T/err" && fail "an unknown search was accepted"
grep -q "no mutation of .* has samples of both strong and nosuch" "$T/err" || fail "error: $(cat "$T/err")"
echo PASS
