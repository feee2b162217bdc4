#!/usr/bin/env bash
# scripts/findings.py (make campaign's last step) fails when a bug row of the cause table lacks its confirmation, cause location or search record, names the row's line, leaves withdrawn rows alone, and passes the project's own configs/targets/causes.md.
. "$(dirname "$0")/../../lib/common.sh"
need_tools python3

# A project tree of one profile that was not installed (no class problems), a cause table of
# three rows and a report: what the check is to judge is the table alone.
mk_tree() {  # DIR: the tree with a good table
  local d=$1
  mkdir -p "$d/configs/targets/reports" "$d/tests/findings/fuse/demo" "$d/camp/demo"
  printf '; package: demo\n; reference: tmpfs\n' >"$d/configs/targets/demo.ini"
  echo "not installed" >"$d/camp/demo/campaign-status"
  printf '# demo: a title\n\n## Code location\n\nsrc/demo.c:42, demo_open\n\n## Upstream search\n\nissues searched for "open": none\n' \
    >"$d/configs/targets/reports/demo-open.md"
  cat >"$d/configs/targets/causes.md" <<'EOF'
## Causes

| component | cause | tested version | upstream status | confirmation, rate | trace |
|---|---|---|---|---|---|
| demo | open fails ([report](configs/targets/reports/demo-open.md)) | 1.0 | not found upstream | `tests/findings/fuse/demo`: 5 of 5 | 1 |
| demo | mkdir masks the mode (src/demo.c, demo_mkdir) | 1.0 | fixed: commit 0123abcd | `tests/findings/fuse/demo`: 3 of 3 | 1 |
| demo | **withdrawn as a bug** (design) | 1.0 | https://example.org/1 | none | — |
EOF
}
findings() {  # DIR: findings.py over the tree; its output in DIR/out
  python3 scripts/findings.py "$1/camp" "$1/F.md" "$1/configs/targets/demo.ini" >"$1/out" 2>&1
}

mk_tree "$T/good"
findings "$T/good" || fail "a table with every bug row complete failed: $(cat "$T/good/out")"
grep -q "^## Causes" "$T/good/F.md" || fail "FINDINGS.md does not open with the cause table"

mk_tree "$T/noconf"
sed -i 's|`tests/findings/fuse/demo`: 5 of 5|rate not measured|' "$T/noconf/configs/targets/causes.md"
findings "$T/noconf" && fail "a bug row without a confirmation passed: $(cat "$T/noconf/out")"
grep -q "causes.md:5: bug 'demo' lacks a confirmation" "$T/noconf/out" || fail "row not named: $(cat "$T/noconf/out")"
[ "$(grep -c lacks "$T/noconf/out")" = 1 ] || fail "more than the confirmation flagged: $(cat "$T/noconf/out")"

mk_tree "$T/gone"
sed -i 's|`tests/findings/fuse/demo`: 3 of 3|`tests/findings/fuse/gone`: 3 of 3|' "$T/gone/configs/targets/causes.md"
findings "$T/gone" && fail "a confirmation path that does not exist passed"
grep -q "causes.md:6: bug 'demo' lacks a confirmation" "$T/gone/out" || fail "row not named: $(cat "$T/gone/out")"

mk_tree "$T/noloc"
printf '# demo\n\n## Upstream search\n\nnone\n' >"$T/noloc/configs/targets/reports/demo-open.md"
findings "$T/noloc" && fail "a report without a code location passed"
grep -q "causes.md:5: bug 'demo' lacks a cause location" "$T/noloc/out" || fail "row not named: $(cat "$T/noloc/out")"

mk_tree "$T/nosearch"
sed -i 's|fixed: commit 0123abcd|fixed upstream|' "$T/nosearch/configs/targets/causes.md"
findings "$T/nosearch" && fail "a fixed row without its commit or link passed"
grep -q "causes.md:6: bug 'demo' lacks a search record" "$T/nosearch/out" || fail "row not named: $(cat "$T/nosearch/out")"

# --causes rewrites only the cause section of a FINDINGS.md and keeps the classes below it.
mk_tree "$T/only"
printf '# F\n\n## Causes\n\nold table\n\n## Classes per target\n\nclass rows kept\n' >"$T/only/F.md"
python3 scripts/findings.py --causes "$T/only/F.md" "$T/only/configs/targets" >"$T/only/out" 2>&1 ||
  fail "--causes failed on a complete table: $(cat "$T/only/out")"
grep -q "old table" "$T/only/F.md" && fail "--causes kept the old cause table"
grep -q "^| demo | open fails" "$T/only/F.md" || fail "--causes did not write the table"
grep -q "class rows kept" "$T/only/F.md" || fail "--causes lost the classes below the table"
sed -i 's|`tests/findings/fuse/demo`: 5 of 5|rate not measured|' "$T/only/configs/targets/causes.md"
python3 scripts/findings.py --causes "$T/only/F.md" "$T/only/configs/targets" >"$T/only/out" 2>&1 &&
  fail "--causes passed a bug row without a confirmation"

# --causes also puts the hand-written sections in, the matrix campaign's file from its own
# folder, once however often it runs, replaced when edited, before Metis's false positives.
mk_tree "$T/hand"
mkdir -p "$T/hand/configs/matrix"
printf '## Matrix\n\n### Table\n\nrow one\n' >"$T/hand/configs/matrix/CAMPAIGN.md"
printf '## Metis false positives x\n\nfixes\n' >"$T/hand/configs/targets/metis-fixes.md"
printf '# F\n\n## Causes\n\nold\n\n## Classes per target\n\nkept\n' >"$T/hand/F.md"
for round in 1 2; do
  [ $round = 2 ] && sed -i 's/row one/row two/' "$T/hand/configs/matrix/CAMPAIGN.md"
  python3 scripts/findings.py --causes "$T/hand/F.md" "$T/hand/configs/targets" >"$T/hand/out" 2>&1 ||
    fail "--causes failed with hand-written sections: $(cat "$T/hand/out")"
done
[ "$(grep -c '^## Matrix' "$T/hand/F.md")" = 1 ] || fail "the campaign section is not there once: $(cat "$T/hand/F.md")"
grep -q 'row one' "$T/hand/F.md" && fail "the edited campaign section kept its old text"
[ "$(grep -n -e '^## Matrix' -e '^## Metis false' "$T/hand/F.md" | cut -d: -f2 | tr '\n' ' ')" = "## Matrix ## Metis false positives x " ] ||
  fail "the sections are out of order: $(grep -n '^##' "$T/hand/F.md")"

out=$(python3 scripts/cause_check.py . configs/targets/causes.md 2>&1) ||
  fail "the project's cause table fails its own check: $out"
echo "$out"
echo "pass: a bug row lacking its confirmation, location or search record fails findings.py; --causes refreshes the hand-written sections in place; the project's table passes"
