#!/usr/bin/env bash
# A target whose root comes up with another mode and owner than the reference's gets the
# reference's at set-up (said on stderr, root_equalized in summary.json), also after each fresh
# mount when restores replay; the run then starts from equal trees and finds nothing.
. "$(dirname "$0")/../../lib/common.sh"

# mode restore: the fixture's own (logical), then a copy that remounts and replays
run_root_case() {
  local cfg=$1 out=$2
  "$METIS_BIN/metis" run "$cfg" --out "$out" 2>"$out.err"
  local rc=$?
  cat "$out.err"
  [ $rc -eq 0 ] || fail "$cfg: exit status $rc (a root difference would show at operation 0)"
  grep -q "other: root set to the reference's: mode 0777 -> 0755, owner 1000:1000 -> 0:0" "$out.err" ||
    fail "$cfg: set-up did not say it equalized the root"
  python3 - "$out/summary.json" <<'PY' || fail "$cfg: summary.json does not show the root equalized"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["discrepancies"] == 0, s["discrepancies"]
assert s["backends"]["other"]["root_equalized"] is True
assert s["backends"]["ref"]["root_equalized"] is False
assert s["ops"] >= 100, s["ops"]
PY
  assert_no_leftovers "$(run_id_of "$out.err")"
}

run_root_case tests/fixtures/fuse/root-differs.ini "$T/logical"
sed -e 's/^\[fs other\]$/[fs other]\nrestore = replay/' -e 's/^ops = 300$/ops = 120/' \
  tests/fixtures/fuse/root-differs.ini > "$T/replay.ini"
run_root_case "$T/replay.ini" "$T/replay"
grep -q '"replays": *[1-9]' "$T/replay/summary.json" || fail "the replay case never replayed"
echo "root equalized with logical and replayed restores"
