#!/usr/bin/env bash
# Bad configs and options are refused with one file:line message line and exit 2, leaving nothing behind (no output directory, mount, loop device or /dev/shm file).
. "$(dirname "$0")/../../lib/common.sh"
expect_refusal() {  # NAME EXPECTED-MESSAGE-REGEX ARGS...
  local name=$1 want=$2; shift 2
  # In an empty directory of its own (a default output directory would go there), in the
  # background for its pid: the run id a refused run must not have used is m<pid>.
  mkdir "$T/cwd-$name"
  (cd "$T/cwd-$name" && exec "$METIS_BIN/metis" "$@") >"$T/out" 2>&1 &
  local pid=$!
  wait $pid
  local rc=$?
  [ $rc -eq 2 ] || fail "$name: exit status $rc, want 2 ($(cat "$T/out"))"
  grep -Eq -- "$want" "$T/out" || fail "$name: message '$(cat "$T/out")' does not match '$want'"
  [ "$(wc -l <"$T/out")" -eq 1 ] || fail "$name: not a one-line error: $(cat "$T/out")"
  [ -z "$(ls -A "$T/cwd-$name")" ] || fail "$name: left $(ls -A "$T/cwd-$name") in its directory"
  assert_no_leftovers "m$pid"
  [ ! -e "/tmp/metis-m$pid" ] || fail "$name: left /tmp/metis-m$pid"
}
smoke=$METIS_ROOT/configs/smoke.ini
printf '[run]\nseed = 1\nbogus = 3\n[fs a]\ntype = reffs\n' >"$T/unknown-key.ini"
expect_refusal unknown-key "unknown-key.ini:3: " run "$T/unknown-key.ini"
printf '[run]\n[nonsense]\n' >"$T/unknown-section.ini"
expect_refusal unknown-section "unknown-section.ini:2: " run "$T/unknown-section.ini"
printf '[fs a]\ntype = kernel\nfstype = nosuchfs\n' >"$T/no-mkfs.ini"
expect_refusal missing-mkfs "no-mkfs.ini:3: .*mkfs" run "$T/no-mkfs.ini"
printf '[fs a]\ntype = kernel\nfstype = xfs\nsize = 1M\n' >"$T/small.ini"
expect_refusal too-small "small.ini:4: .*below the smallest xfs" run "$T/small.ini"
expect_refusal missing-file "nonexistent.ini: cannot open" run "$T/nonexistent.ini"
expect_refusal bad-option "--ops: 'banana' is not" run "$smoke" --ops banana
expect_refusal unknown-option "unknown option '--frobnicate'" run "$smoke" --frobnicate
"$METIS_BIN/metis" check "$smoke" >/dev/null || fail "check of a good config failed"
exit 0
