#!/usr/bin/env bash
# A target that cannot hold the free-space filler (here a file already stands where the filler
# directory goes) is left unequal with a warning naming the errno, and the run goes on, also
# when its restores replay; before, set-up ended the run with exit 3.
. "$(dirname "$0")/../../lib/common.sh"
for restore in logical replay; do
  cat > "$T/$restore.ini" <<INI
[run]
ops = 150
[fs ref]
type = reffs
size = 64M
[fs other]
type = fuse
restore = $restore
mount_cmd = {bin}/reffs -o noopen,nosnapshots,capacity=128M {mnt} && touch {mnt}/.metis-filler
[pool]
dirs = 2
files = 2
[ops]
open_unlink = 0
INI
  "$METIS_BIN/metis" run "$T/$restore.ini" --out "$T/$restore" 2>"$T/$restore.err"
  rc=$?
  cat "$T/$restore.err"
  [ $rc -eq 0 ] || fail "restore = $restore: exit status $rc"
  grep -q "metis: warning: fs other: equalizing free space: cannot make a filler: Not a directory; left unequal" \
    "$T/$restore.err" || fail "restore = $restore: no warning naming the errno"
  python3 - "$T/$restore/summary.json" <<'PY' || fail "restore = $restore: summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["discrepancies"] == 0 and s["ops"] == 150, (s["discrepancies"], s["ops"])
assert s["backends"]["other"]["unequal_bytes"] > 0, s["backends"]["other"]
PY
  assert_no_leftovers "$(run_id_of "$T/$restore.err")"
done
echo "a refused filler is a warning; the run went on with logical and replayed restores"
