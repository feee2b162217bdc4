#!/usr/bin/env bash
# The FUSE attribute-cache hint: bindfs (path-based libfuse, no use_ino) against tmpfs with hard
# links and writes, without `lacks = hardlinks`: the other name of a hard-linked file shows a
# stale size or link count, and that class's hint names FUSE attribute caching, use_ino and
# attr_timeout (summary.json and its detail file); the class stays a class.
. "$(dirname "$0")/../lib/common.sh"
need_tools bindfs python3
B=$METIS_BIN
[ -x "$B/metis" ] || skip "$B/metis is not built"
[ -w /dev/fuse ] || skip "no /dev/fuse"
"$B/metis" run "$METIS_ROOT/tests/fixtures/bindfs-hardlink-alias.ini" --seconds 10 --out "$T/run" \
    >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || { tail -20 "$T/out"; fail "metis run exited $rc, want 1 (discrepancies)"; }
assert_no_leftovers "$(run_id_of "$T/out")"
python3 - "$T/run" >"$T/hinted" <<'PY' || fail "no stale-attribute class got the attribute-cache hint"
import json, sys
run = sys.argv[1]
hinted = [c for c in json.load(open(run + "/summary.json"))["classes"]
          if c.get("attribute") in ("size", "nlink") and "attribute caching" in c.get("hint", "")]
for c in hinted:
    print(c["signature"], c["detail"], sep="|")
sys.exit(0 if hinted else 1)
PY
cat "$T/hinted"
IFS='|' read -r sig detail <"$T/hinted"
for word in use_ino attr_timeout "FUSE attribute caching"; do
    grep -q "^hint: .*$word" "$T/run/$detail" || fail "$sig: the detail file's hint does not name $word"
done
# A hint never folds classes: the hinted class is still listed with its own signature and hits.
grep -q "^class [0-9]*: $sig: " "$T/run/classes.txt" || fail "$sig is not listed in classes.txt"
echo "ok: $(wc -l <"$T/hinted") stale-attribute class(es) hinted, e.g. $sig"
