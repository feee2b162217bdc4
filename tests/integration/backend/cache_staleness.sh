#!/usr/bin/env bash
# A planted stale attribute cache told apart from a real defect on the same daemon: a RefFS
# mutant whose chmod replies carry the old mode (reffs-mutant -o stale_attr_replies; the
# kernel caches it for a day) gives the one-line cache note and no class; the same daemon that
# also drops the sticky bit a chmod gives (mutation=CHMOD_DROP_STICKY) still gives its class.
. "$(dirname "$0")/../../lib/common.sh"
need_tools python3
[ -x "$METIS_BIN/reffs-mutant" ] || skip "$METIS_BIN/reffs-mutant is not built"
[ -w /dev/fuse ] || skip "no /dev/fuse"
CFG=$METIS_ROOT/tests/fixtures/fuse/fuse-stale-attrs.ini
stale() {  # RUN: the stale count of fs mut in summary.json
    python3 -c 'import json,sys; print(sum(x["differences"] for x in json.load(open(sys.argv[1]))["cache_stale"] if x["fs"] == "mut"))' "$1/summary.json"
}

# 1. Stale replies alone: no class, one line with its option.
run_want stale "$CFG" 0
n=$(stale "$T/stale")
[ "$n" -ge 1 ] || fail "stale: no cache staleness counted"
[ "$(grep -c '^metis: cache staleness on mut: ' "$T/stale.out")" = 1 ] || fail "stale: not one cache line"
grep -q "^metis: cache staleness on mut: $n state differences\? went away .*mode of .* after chmod.*-o attr_timeout=0" \
    "$T/stale.out" || fail "stale: the line does not name the count, the first difference and the option"
[ "$(json_field "$T/stale/summary.json" discrepancy_classes)" = 0 ] || fail "stale: a class was made"
grep -q "^stale [0-9]* fs=mut what=mode of " "$T/stale/log.txt" || fail "stale: log.txt has no stale record"

# 2. The same daemon with a real chmod defect: its class stays.
sed 's/stale_attr_replies {mnt}/stale_attr_replies,mutation=CHMOD_DROP_STICKY {mnt}/' "$CFG" >"$T/sticky.ini"
run_want sticky "$T/sticky.ini" 1
python3 - "$T/sticky/summary.json" <<'PY' || fail "sticky: the real defect's class is missing"
import json, sys
s = json.load(open(sys.argv[1]))
sigs = [c["signature"] for c in s["classes"]]
assert "chmod mut state mode" in sigs, sigs
print("classes:", sigs, "| stale:", s["cache_stale"])
PY
echo "ok: $n stale differences counted, no class; the sticky defect is a class"
