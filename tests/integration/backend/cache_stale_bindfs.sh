#!/usr/bin/env bash
# Attribute caching measured on a real daemon: bindfs (path-based libfuse, no use_ino) against
# tmpfs with hard links and writes, without `lacks = hardlinks`. The other name of a hard-linked
# file shows a stale size or link count through the kernel's attribute cache; read again past
# it, the difference goes away, so the run counts cache staleness (one line naming
# -o attr_timeout=0, summary.json's cache_stale) and makes no class of a stale size or link
# count, and no logical restore misses over one (each used to fall back to a replay).
. "$(dirname "$0")/../../lib/common.sh"
need_tools bindfs python3
B=$METIS_BIN
[ -x "$B/metis" ] || skip "$B/metis is not built"
[ -w /dev/fuse ] || skip "no /dev/fuse"
"$B/metis" run "$METIS_ROOT/tests/fixtures/fuse/bindfs-hardlink-alias.ini" --seconds 10 --out "$T/run" \
    >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { tail -20 "$T/out"; fail "metis run exited $rc, want 0 or 1"; }
assert_no_leftovers "$(run_id_of "$T/out")"
grep -q "^metis: cache staleness on bindfs: [0-9]* state differences\? went away .*-o attr_timeout=0" \
    "$T/out" || { tail -20 "$T/out"; fail "no cache-staleness line for bindfs"; }
python3 - "$T/run/summary.json" <<'PY' || fail "summary.json: cache staleness or a stale class"
import json, sys
s = json.load(open(sys.argv[1]))
stale = [x for x in s["cache_stale"] if x["fs"] == "bindfs"]
assert stale and stale[0]["differences"] >= 1 and stale[0]["option"] == "-o attr_timeout=0", s["cache_stale"]
bad = [c["signature"] for c in s["classes"] if c.get("attribute") in ("size", "nlink")]
assert not bad, bad
print("stale:", stale[0]["differences"], "first:", stale[0]["first"], "| classes:",
      [c["signature"] for c in s["classes"]])
PY
grep -q "logical restore of state [0-9]* missed" "$T/out" && fail "a logical restore missed"
echo "ok"
