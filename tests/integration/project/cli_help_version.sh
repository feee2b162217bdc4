#!/usr/bin/env bash
# --help/-h of every program and subcommand prints its usage and exits 0; --version prints the Makefile's VERSION; bad options stay a one-line error.
. "$(dirname "$0")/../../lib/common.sh"
M=$METIS_BIN/metis R=$METIS_BIN/metis-replay
version=$(sed -n 's/^VERSION *:= *\([^ ]*\) *$/\1/p' Makefile)
[ -n "$version" ] || fail "no VERSION := in the Makefile"

# expect_ok WANT-REGEX CMD...: exit 0, WANT on stdout, nothing on stderr.
expect_ok() {
  local want=$1; shift
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ $rc -eq 0 ] || fail "$*: exit status $rc, want 0 ($(head -n3 "$T/err"))"
  grep -Eq -- "$want" "$T/out" || fail "$*: stdout '$(head -n3 "$T/out")' does not match '$want'"
  [ -s "$T/err" ] && fail "$*: wrote to stderr: $(head -n3 "$T/err")"
  return 0
}
# expect_bad CMD...: non-zero exit, exactly one line on stderr.
expect_bad() {
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ $rc -ne 0 ] || fail "$*: exit status 0, want an error"
  [ "$(wc -l <"$T/err")" -eq 1 ] || fail "$*: not a one-line error: $(cat "$T/err")"
}

for p in metis metis-replay reffsctl metis-faultdev; do
  expect_ok "^$p $version\$" "$METIS_BIN/$p" --version
done
for p in reffs reffs-mutant; do
  expect_ok "^$p $version " "$METIS_BIN/$p" --version
  expect_ok "^$p $version " "$METIS_BIN/$p" -V
done

for h in --help -h; do
  expect_ok '^usage: metis run' "$M" $h
  expect_ok '^usage: metis run CONFIG' "$M" run $h
  expect_ok '^usage: metis check CONFIG' "$M" check $h
  expect_ok '^usage: metis swarm CONFIG' "$M" swarm $h
  expect_ok '^usage: metis clean$' "$M" clean $h
  expect_ok '^usage: metis-replay trace' "$R" $h
  for c in trace check run repro shrink emit-c record; do
    expect_ok "^usage: metis-replay $c " "$R" $c $h
  done
  expect_ok '^usage: reffsctl' "$METIS_BIN/reffsctl" $h
  expect_ok '^usage: reffs ' "$METIS_BIN/reffs" $h
  expect_ok '^usage: metis-faultdev IMAGE MOUNTPOINT' "$METIS_BIN/metis-faultdev" $h
done
# A subcommand's own usage, not the whole list.
"$M" run --help | grep -q 'metis swarm' && fail "metis run --help prints the usage of other commands"
"$R" run --help | grep -q 'metis-replay shrink' && fail "metis-replay run --help prints the usage of other commands"
# Help wins over a CONFIG and other options: nothing is loaded or run.
expect_ok '^usage: metis run' "$M" run /nonexistent.ini --seconds 1 --help
expect_ok '^usage: metis check' "$M" check --help /nonexistent.ini
expect_ok '^usage: metis-replay record' "$R" record /nonexistent.ini -h
# An option's value that looks like -h stays a value.
expect_bad "$R" trace /nonexistent -o -h

expect_bad "$M" run configs/smoke.ini --frobnicate
expect_bad "$M" run configs/smoke.ini --ops
expect_bad "$M" check configs/smoke.ini --depth 0
expect_bad "$M" swarm --frobnicate
expect_bad "$METIS_BIN/metis-faultdev" --frobnicate
expect_bad "$METIS_BIN/metis-faultdev" /nonexistent.img /nonexistent
expect_bad "$M" clean --frobnicate
expect_bad "$R" run --frobnicate x.trace
expect_bad "$R" shrink --tries 0 x.trace
expect_bad "$R" record --frobnicate configs/smoke.ini
expect_bad "$METIS_BIN/reffsctl" frobnicate
expect_bad "$METIS_BIN/reffsctl" --frobnicate
echo "PASS"
