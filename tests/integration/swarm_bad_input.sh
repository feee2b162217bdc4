#!/usr/bin/env bash
# Bad command lines and hosts files of metis swarm: one clear line, exit 2, nothing started.
. "$(dirname "$0")/../lib/swarm.sh"
swarm_require
CFG=$METIS_ROOT/configs/smoke.ini
printf '1/:\n' > "$SW/good"
printf '0/host\n' > "$SW/zero"
printf '# only a comment\n\n' > "$SW/empty"
printf '1/:\n1/:\n' > "$SW/twice"
printf '@grp/host\n' > "$SW/group"
printf 'oops\n' > "$SW/bad.ini"

expect() {  # NAME PATTERN ARGS...: exit 2 with one stderr line matching PATTERN
  local name=$1 pat=$2; shift 2
  swarm "$name" "$@"
  [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2"
  grep -q -e "$pat" "$SW/$name.err" || fail "$name: stderr does not say '$pat'"
  ! grep -qi 'segmentation\|abort\|sanitizer' "$SW/$name.err" || fail "$name: crashed"
}
expect nohosts '--hosts HOSTS is required' "$CFG"
expect noconfig 'expected a CONFIG' --hosts "$SW/good"
expect missing 'cannot read the hosts file' "$CFG" --hosts "$SW/nonexistent"
expect zero 'expected \[N/\]sshlogin' "$CFG" --hosts "$SW/zero"
expect empty 'no hosts' "$CFG" --hosts "$SW/empty"
expect twice 'repeated sshlogin' "$CFG" --hosts "$SW/twice"
expect group 'host groups' "$CFG" --hosts "$SW/group"
expect vts '--vts' "$CFG" --hosts "$SW/good" --vts 0
expect seconds '--seconds' "$CFG" --hosts "$SW/good" --seconds -3
expect seed '--swarm-seed' "$CFG" --hosts "$SW/good" --swarm-seed x
expect option "unknown option '--frobnicate'" "$CFG" --hosts "$SW/good" --frobnicate
expect config 'bad.ini' "$SW/bad.ini" --hosts "$SW/good"
expect two 'exactly one CONFIG' "$CFG" "$CFG" --hosts "$SW/good"
echo PASS
