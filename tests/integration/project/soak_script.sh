#!/usr/bin/env bash
# scripts/soak.sh: chunks recorded in a ledger until the wanted operations, a second call resumes (runs nothing more once reached), the table, and bad settings refused.
. "$(dirname "$0")/../../lib/common.sh"
cd "$METIS_ROOT" || fail "no project root"
export SOAK_DIR=$T/soak SOAK_CHUNK_S=3 SOAK_OPS=5000 SOAK_JOBS=2
scripts/soak.sh configs/reffs-only.ini configs/smoke.ini >"$T/out" 2>&1
rc=$?
cat "$T/out"
[ $rc -eq 0 ] || fail "soak exited $rc, want 0"
for n in reffs-only smoke; do
  l=$SOAK_DIR/$n.ledger
  [ -s "$l" ] || fail "no ledger for $n"
  ops=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ops=/) { sub("ops=", "", $i); s += $i } } END { print s + 0 }' "$l")
  [ "$ops" -ge 5000 ] || fail "$n: $ops operations in its ledger, want >= 5000"
  grep -qv ' status=0 ' "$l" && fail "$n: a chunk that was not clean: $(cat "$l")"
done
# smoke.ini stops at 300 operations by itself; a chunk must not (--ops 0).
grep -q ' ops=300 ' "$SOAK_DIR/smoke.ledger" && fail "a smoke chunk stopped at the config's ops limit"
lines=$(cat "$SOAK_DIR"/*.ledger | wc -l)
scripts/soak.sh configs/reffs-only.ini configs/smoke.ini >"$T/again" 2>&1 || fail "the resumed soak failed"
[ "$(cat "$SOAK_DIR"/*.ledger | wc -l)" -eq "$lines" ] || fail "a soak that had reached its count ran more chunks"
grep -q '^| reffs-only | [0-9]* | [0-9]* |' "$T/again" || fail "no table row for reffs-only: $(cat "$T/again")"
SOAK_OPS=ten scripts/soak.sh configs/smoke.ini 2>"$T/bad"; rc=$?
[ $rc -eq 2 ] && grep -q "SOAK_OPS must be" "$T/bad" || fail "SOAK_OPS=ten: exit $rc: $(cat "$T/bad")"
scripts/soak.sh configs/nonesuch.ini 2>"$T/bad"; rc=$?
[ $rc -eq 2 ] && grep -q "no config" "$T/bad" || fail "a missing config: exit $rc"
echo PASS
