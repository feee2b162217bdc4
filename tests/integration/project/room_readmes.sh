#!/usr/bin/env bash
# Every room of the folders laid out in rooms (the engine, the backend, the command line, report.html, the swarm, the replayer, the integration tests, the findings' runners) has a README that says what it owns and may use and names each of its sources and tests (a source and its header by either name), and the layout maps name every room; no integration test stands outside a room or shares its NAME.
. "$(dirname "$0")/../../lib/common.sh"

# The folders laid out in rooms; each has a README.md whose table names its rooms.
tops="fs-state/lib fs-state/engine fs-state/backend fs-state/backend/logical fs-state/front/cli
      fs-state/front/report fs-state/front/swarm replayer reffs/lib tests/integration
      tests/findings"
# The map that names a top's rooms: fs-state/README.md's tree for fs-state, the top README's
# Layout row for the replayer, reffs/README.md's module table for RefFS's library; the
# integration tests' and the findings' own READMEs are their maps (checked below).
in_map() {
  case $1 in
    tests/integration|tests/findings) return 0 ;;
    replayer) grep '^| `replayer/` |' README.md | grep -qF "\`$2/\`" ;;
    reffs/lib) grep -qF "| \`lib/$2/\` |" reffs/README.md ;;
    *) grep -qE "^ +$2/ " fs-state/README.md ;;
  esac
}

rooms=$(for top in $tops; do find "$top" -mindepth 1 -maxdepth 1 -type d; done | sort)
for top in $tops; do
  [ -n "$(find "$top" -mindepth 1 -maxdepth 1 -type d)" ] || fail "$top has no rooms"
done
for room in $rooms; do
  readme=$room/README.md
  [ -f "$readme" ] || fail "$room has no README.md"
  grep -q '^## May use' "$readme" || fail "$readme does not say what the room may use (## May use)"
  for src in "$room"/*.c "$room"/*.h "$room"/*.sh; do
    [ -e "$src" ] || continue
    base=$(basename "$src")
    grep -qF -e "$base" -e "${base%.*}.c" -e "${base%.*}.h" "$readme" || fail "$readme does not name $base"
  done
  name=$(basename "$room")
  top=$(dirname "$room")
  grep -qF "\`$name/\`" "$top/README.md" || fail "$top/README.md's table does not name the room $name/"
  in_map "$top" "$name" || fail "the layout map does not name $top/$name/"
done
# A room of more than about 15 files is the sign it wants rooms of its own; a top keeps its
# sources in its rooms but for a few (a main, the build rules, its READMEs).
for room in $rooms; do
  n=$(find "$room" -maxdepth 1 -type f | wc -l)
  [ "$n" -le 18 ] || fail "$room holds $n files: give it rooms"
done
for top in $tops; do
  n=$(find "$top" -maxdepth 1 -type f -name '*.[ch]' | wc -l)
  [ "$n" -le 8 ] || fail "$top holds $n sources beside its rooms: move them into rooms"
done
# run-integration.sh runs tests/integration/*/*.sh: a test beside the rooms would never run, and
# a test is named by its NAME alone (logs, verdicts, skip-allowed.txt).
for t in tests/integration/*.sh; do
  [ -e "$t" ] && fail "$t stands outside a room of tests/integration: move it into one"
done
dups=$(for t in tests/integration/*/*.sh; do basename "$t"; done | sort | uniq -d)
[ -z "$dups" ] || fail "tests/integration: test names in more than one room: $dups"
# A finding's runner is a folder in a room (findings_confirm.sh runs tests/findings/*/*/run.sh):
# its room's README names the folder and each of its files, the index (tests/findings/README.md)
# names the folder; a runner is named by its folder alone, so no two rooms share one.
for cause in tests/findings/*/*/; do
  cause=${cause%/}
  readme=$(dirname "$cause")/README.md
  grep -qF "\`$(basename "$cause")/\`" "$readme" || fail "$readme does not name the runner $(basename "$cause")/"
  grep -qF "\`$(basename "$cause")/\`" tests/findings/README.md || fail "tests/findings/README.md's index does not name $cause/"
  for f in "$cause"/*; do
    grep -qF "$(basename "$f")" "$readme" || fail "$readme does not name $f"
  done
done
dups=$(for c in tests/findings/*/*/; do basename "$c"; done | sort | uniq -d)
[ -z "$dups" ] || fail "tests/findings: runner names in more than one room: $dups"
exit 0
