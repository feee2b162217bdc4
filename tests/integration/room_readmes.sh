#!/usr/bin/env bash
# Every room of the engine and the backend has a README that says what it owns and may use and names each of its sources (a source and its header by either name), and the layout maps name every room.
. "$(dirname "$0")/../lib/common.sh"

rooms=$(find fs-state/engine fs-state/backend -mindepth 1 -maxdepth 1 -type d | sort)
[ -n "$rooms" ] || fail "no rooms under fs-state/engine or fs-state/backend"
for room in $rooms; do
  readme=$room/README.md
  [ -f "$readme" ] || fail "$room has no README.md"
  grep -q '^## May use' "$readme" || fail "$readme does not say what the room may use (## May use)"
  for src in "$room"/*.c "$room"/*.h; do
    [ -e "$src" ] || continue
    base=$(basename "$src")
    grep -qF -e "$base" -e "${base%.*}.c" -e "${base%.*}.h" "$readme" || fail "$readme does not name $base"
  done
  name=$(basename "$room")
  top=$(dirname "$room")
  grep -qF "\`$name/\`" "$top/README.md" || fail "$top/README.md's table does not name the room $name/"
  grep -qE "^ +$name/ " fs-state/README.md || fail "fs-state/README.md's map does not name $top/$name/"
done
# A room of more than about 15 files is the sign it wants rooms of its own.
for room in $rooms; do
  n=$(find "$room" -maxdepth 1 -type f | wc -l)
  [ "$n" -le 18 ] || fail "$room holds $n files: give it rooms"
done
exit 0
