#!/usr/bin/env bash
# A logical restore that misses in link counts alone meets the target's own convention and
# learns it once: a RefFS mutant without snapshots whose unlink leaves the count of a file's
# other links as it was (MUT_UNLINK_NLINK) says so in one line, and its restores stand (no
# replay of the path on each such backtrack; before, 6 in 3000 operations); its class stays.
# The same daemon without the mutation learns nothing.
. "$(dirname "$0")/../lib/common.sh"
need_tools python3
[ -x "$METIS_BIN/reffs-mutant" ] || skip "$METIS_BIN/reffs-mutant is not built"
[ -w /dev/fuse ] || skip "no /dev/fuse"
CFG=$METIS_ROOT/tests/fixtures/fuse-links-unkept.ini
counts() {  # RUN: "FALLBACKS LINKS_UNKEPT" of fs mut
    python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["backends"]["mut"]; print(b["fallbacks"], b["links_unkept"])' "$1/summary.json"
}
run_want mut "$CFG" 1 --ops 3000
read -r fallbacks unkept <<<"$(counts "$T/mut")"
echo "mutant: fallbacks=$fallbacks links_unkept=$unkept"
[ "$unkept" -ge 1 ] || fail "no restore met the link-count convention"
[ "$fallbacks" = 0 ] || fail "$fallbacks restores still fell back to a replay"
[ "$(grep -c '^metis: fs mut: a logical restore brings every entry back but its link count .*learnt once' "$T/mut.out")" = 1 ] ||
    fail "the convention is not said exactly once"
grep -q '^class [0-9]*: unlink mut state nlink: ' "$T/mut/classes.txt" || fail "the unlink class is gone"

sed 's/,mutation=UNLINK_NLINK//' "$CFG" >"$T/plain.ini"
run_want plain "$T/plain.ini" 0 --ops 3000
read -r fallbacks unkept <<<"$(counts "$T/plain")"
[ "$unkept" = 0 ] && [ "$fallbacks" = 0 ] || fail "plain RefFS: fallbacks=$fallbacks links_unkept=$unkept"
grep -q "learnt once" "$T/plain.out" && fail "plain RefFS learnt a convention"
echo "ok"
