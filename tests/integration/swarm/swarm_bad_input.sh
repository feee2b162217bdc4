#!/usr/bin/env bash
# Bad command lines and hosts files of metis swarm: one stderr line naming the problem, nothing on stdout, exit 2, nothing started (no swarm id, output directory or staging directory).
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
CFG=$METIS_ROOT/configs/smoke.ini
printf '1/:\n' > "$SW/good"
printf '0/host\n' > "$SW/zero"
printf '# only a comment\n\n' > "$SW/empty"
printf '1/:\n1/:\n' > "$SW/twice"
printf '@grp/host\n' > "$SW/group"
printf 'oops\n' > "$SW/bad.ini"

expect() {  # NAME PATTERN ARGS...: exit 2 with one stderr line matching PATTERN, nothing made
  local name=$1 pat=$2; shift 2
  # In an empty directory of its own, where the default output directory would go; in the
  # background for its pid, which a swarm's id and staging directory carry.
  mkdir "$SW/cwd-$name"
  (cd "$SW/cwd-$name" && exec "$METIS" swarm "$@") >"$SW/$name.out" 2>"$SW/$name.err" &
  local pid=$!
  wait $pid
  local rc=$?
  echo "--- metis swarm $* -> $rc"; cat "$SW/$name.out" "$SW/$name.err"
  [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2"
  [ "$(wc -l <"$SW/$name.err")" -eq 1 ] || fail "$name: not a one-line error"
  [ ! -s "$SW/$name.out" ] || fail "$name: wrote to stdout"
  grep -q -e "$pat" "$SW/$name.err" || fail "$name: stderr does not say '$pat'"
  [ -z "$(ls -A "$SW/cwd-$name")" ] || fail "$name: made $(ls -A "$SW/cwd-$name")"
  ! ls -d /tmp/metis-swarm-*-"$pid"-* 2>/dev/null || fail "$name: staged a swarm"
}
expect nohosts '^metis swarm: --hosts HOSTS is required$' "$CFG"
expect noconfig '^metis swarm: expected a CONFIG$' --hosts "$SW/good"
expect missing 'cannot read the hosts file' "$CFG" --hosts "$SW/nonexistent"
expect zero 'expected \[N/\]sshlogin' "$CFG" --hosts "$SW/zero"
expect empty 'no hosts' "$CFG" --hosts "$SW/empty"
expect twice 'repeated sshlogin' "$CFG" --hosts "$SW/twice"
expect group 'host groups' "$CFG" --hosts "$SW/group"
expect vts "--vts: '0' is not a number" "$CFG" --hosts "$SW/good" --vts 0
expect seconds "--seconds: '-3' is not a number" "$CFG" --hosts "$SW/good" --seconds -3
expect seed "--swarm-seed: 'x' is not a non-negative integer" "$CFG" --hosts "$SW/good" --swarm-seed x
expect option "unknown option '--frobnicate'" "$CFG" --hosts "$SW/good" --frobnicate
expect config 'bad.ini:1: syntax error' "$SW/bad.ini" --hosts "$SW/good"
expect two '^metis swarm: expected exactly one CONFIG$' "$CFG" "$CFG" --hosts "$SW/good"
echo PASS
