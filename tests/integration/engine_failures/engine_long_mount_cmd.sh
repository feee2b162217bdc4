#!/usr/bin/env bash
# A mount command longer than one INI line (300 characters) runs when its value goes on over
# indented lines; the same command on one line is refused, naming the key and how to continue.
. "$(dirname "$0")/../../lib/common.sh"
pad=$(printf 'p%.0s' $(seq 1 120))
cat > "$T/long.ini" <<INI
[run]
ops = 200
[fs ref]
type = reffs
size = 64M
[fs other]
type = fuse
mount_cmd = test -n "$pad" &&
    test -n "$pad" &&
    {bin}/reffs -o noopen,nosnapshots,capacity=64M {mnt}
    && test -d {mnt}   ; the daemon forks, so the command returns once it is mounted
[pool]
dirs = 2
files = 2
[ops]
open_unlink = 0
INI
"$METIS_BIN/metis" run "$T/long.ini" --out "$T/run" 2>"$T/err"
rc=$?
cat "$T/err"
[ $rc -eq 0 ] || fail "exit status $rc with a continued mount_cmd"

grep -q "ops=200 " "$T/err" || fail "the run did not do its 200 operations"
assert_no_leftovers "$(run_id_of "$T/err")"

python3 - "$T/long.ini" "$T/one.ini" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r"\n    ", " ", t)
open(sys.argv[2], "w").write(t)
PY
grep -q "^mount_cmd = [^;]\{300,\}" "$T/one.ini" || fail "the one-line command is not 300 characters"
"$METIS_BIN/metis" run "$T/one.ini" --out "$T/run1" 2>"$T/err1" && fail "a 300-character line was accepted"
cat "$T/err1"
grep -q "one.ini:8: mount_cmd: line too long (at most 198 characters): continue the value on indented lines" "$T/err1" ||
  fail "the error does not name the key and the way to continue"
echo "continued mount_cmd ran; the one-line form was refused by name"
