#!/usr/bin/env bash
# Bad configs and options are refused with file:line messages and exit 2, mounting nothing.
. "$(dirname "$0")/../lib/common.sh"
expect_refusal() {  # NAME EXPECTED-MESSAGE-REGEX ARGS...
  local name=$1 want=$2; shift 2
  "$METIS_BIN/metis" "$@" >"$T/out" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "$name: exit status $rc, want 2 ($(cat "$T/out"))"
  grep -Eq -- "$want" "$T/out" || fail "$name: message '$(cat "$T/out")' does not match '$want'"
  [ "$(wc -l <"$T/out")" -le 2 ] || fail "$name: more than a one-line error"
}
printf '[run]\nseed = 1\nbogus = 3\n[fs a]\ntype = reffs\n' >"$T/unknown-key.ini"
expect_refusal unknown-key "unknown-key.ini:3: " run "$T/unknown-key.ini"
printf '[run]\n[nonsense]\n' >"$T/unknown-section.ini"
expect_refusal unknown-section "unknown-section.ini:2: " run "$T/unknown-section.ini"
printf '[fs a]\ntype = kernel\nfstype = nosuchfs\n' >"$T/no-mkfs.ini"
expect_refusal missing-mkfs "no-mkfs.ini:3: .*mkfs" run "$T/no-mkfs.ini"
printf '[fs a]\ntype = kernel\nfstype = xfs\nsize = 1M\n' >"$T/small.ini"
expect_refusal too-small "small.ini:4: " run "$T/small.ini"
expect_refusal missing-file "nonexistent.ini: cannot open" run "$T/nonexistent.ini"
expect_refusal bad-option "--ops" run configs/smoke.ini --ops banana
expect_refusal unknown-option "unknown option" run configs/smoke.ini --frobnicate
"$METIS_BIN/metis" check configs/smoke.ini >/dev/null || fail "check of a good config failed"
ls /dev/shm | grep -q '^metis-' && ls /dev/shm | grep '^metis-' | grep -vq "$$" && true
exit 0
