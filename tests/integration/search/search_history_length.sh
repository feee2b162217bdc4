#!/usr/bin/env bash
# On a {dir}-backed FUSE target without snapshots, a search without [run] search_ops ends after 1,000 operations once it has run ten times its set-up, and says so once; with search_ops given, over a directory of the config's own, or with snapshots, a search runs on.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis reffs; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
ids=()

# run NAME CONFIG OPS: a run of OPS operations into $T/NAME, its stderr in $T/NAME.err.
run() {
  "$B/metis" run "$2" --ops "$3" --keep-going --out "$T/$1" >"$T/$1.out" 2>"$T/$1.err"
  echo $? >"$T/$1.rc"
  ids+=("$(run_id_of "$T/$1.err")")
}

# searches NAME: the run's searches (summary.json).
searches() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["searches"])' "$T/$1/summary.json"
}

command -v bindfs >/dev/null || skip "bindfs not installed (Debian package bindfs)"

# config TARGET_LINES [RUN_LINE]: RefFS against TARGET_LINES, files only.
config() {
  cat <<INI
[run]
seed = 1
keep_going = 1
shrink_seconds = 0
${2:-}
[fs ref]
type = reffs
size = 1M
[fs target]
type = fuse
$1
[pool]
dirs = 1
files = 2
depth = 1
xattr_names = 0
[ops]
chown_file = 0
chgrp_file = 0
mknod = 0
INI
}

# 1. bindfs over {dir} (Metis makes it empty for every set-up; restored logically): searches of
#    about 1,000 operations, said once.
config 'mount_cmd = bindfs {dir} {mnt}' >"$T/auto.ini"
run auto "$T/auto.ini" 6000
FAIL_LOG=$T/auto.err
n=$(searches auto)
[ "$n" -ge 2 ] || fail "6,000 operations made $n search(es) on a {dir}-backed target without snapshots, want 2 or more"
[ "$(grep -c 'keep traces short to shrink' "$T/auto.err")" = 1 ] ||
  fail "the history length is not said exactly once"
grep -q '^metis: search 1 ends after [0-9]* operations: a target without snapshots has a class.s trace in what it ran since its last fresh mount' \
  "$T/auto.err" || fail "no line says why search 1 ended"
grep -q 'initial .* state' "$T/auto.err" && fail "a later search did not start from an empty {dir}"

# 2. search_ops given: the config's length, said by nobody.
config 'mount_cmd = bindfs {dir} {mnt}' 'search_ops = 100000' >"$T/given.ini"
run given "$T/given.ini" 6000
FAIL_LOG=$T/given.err
[ "$(searches given)" = 1 ] || fail "search_ops = 100000 made $(searches given) searches"
grep -q 'keep traces short' "$T/given.err" && fail "search_ops given, the history length was said"

# 3. bindfs over a directory of the config's own: a next search would start on what the last
#    left there, so a search runs on.
mkdir "$T/backing"
config "mount_cmd = bindfs $T/backing {mnt}" >"$T/own.ini"
run own "$T/own.ini" 6000
FAIL_LOG=$T/own.err
[ "$(searches own)" = 1 ] || fail "a daemon over a directory of its own made $(searches own) searches"

# 4. RefFS answering the snapshot ioctls keeps no history: one search.
config 'mount_cmd = {bin}/reffs -o noopen,capacity=1M {mnt}' >"$T/snap.ini"
run snap "$T/snap.ini" 6000
FAIL_LOG=$T/snap.err
[ "$(searches snap)" = 1 ] || fail "a target with snapshots made $(searches snap) searches"

for id in "${ids[@]}"; do assert_no_leftovers "$id"; done
echo PASS
