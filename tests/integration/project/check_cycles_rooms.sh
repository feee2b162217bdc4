#!/usr/bin/env bash
# scripts/check-cycles.py finds two rooms (a source with its header) that need each other only through a header, and two folders that do (under every --folders top), and passes the same tree once the shared type has a header of its own.
. "$(dirname "$0")/../../lib/common.sh"
command -v cc >/dev/null && command -v nm >/dev/null || skip "needs cc and nm"

# A tree of two folders: low/a.c (its header includes high/b.h for a type) and high/b.c,
# which calls a's function. No object calls back, so only the rooms and folders circle.
mk_tree() {
  local d=$1
  mkdir -p "$d/src/low" "$d/src/high" "$d/build/src/low" "$d/build/src/high"
  printf '#pragma once\n#include "high/b.h"\nint a_count(struct b_item *x);\n' >"$d/src/low/a.h"
  printf '#include "a.h"\nint a_count(struct b_item *x) { return x->n; }\n' >"$d/src/low/a.c"
  printf '#pragma once\nstruct b_item { int n; };\nint b_total(void);\n' >"$d/src/high/b.h"
  printf '#include "b.h"\n#include "low/a.h"\nint b_total(void) { struct b_item i = { 1 }; return a_count(&i); }\n' >"$d/src/high/b.c"
}
compile() {
  local d=$1 f
  for f in low/a high/b; do
    cc -c -I"$d/src" -o "$d/build/src/$f.o" "$d/src/$f.c" || fail "cannot compile $f.c"
  done
}
# check-cycles resolves includes as cc -Isrc does, from the tree's root.
run_check() { (cd "$1" && "$METIS_ROOT/scripts/check-cycles.py" --why --build build --folders src -I src src); }

mk_tree "$T/bad"
compile "$T/bad"
out=$(run_check "$T/bad" 2>&1) && fail "a circle of rooms through a header passed: $out"
echo "$out" | grep -q "rooms (a source with its header) use each other in a circle: src/high/b src/low/a$" \
  || fail "no room circle named: $out"
echo "$out" | grep -q "folders use each other in a circle: src/high src/low$" || fail "no folder circle named: $out"
echo "$out" | grep -q "src/low/a.h includes high/b.h" || fail "--why does not name the include: $out"
# --folders names each top laid out in rooms: the folder circle counts only when both tops are named.
one=$(cd "$T/bad" && "$METIS_ROOT/scripts/check-cycles.py" --build build --folders src/low -I src src 2>&1)
echo "$one" | grep -q "folders use each other" && fail "a folder outside --folders was counted: $one"
two=$(cd "$T/bad" && "$METIS_ROOT/scripts/check-cycles.py" --build build --folders src/low --folders src/high -I src src 2>&1)
echo "$two" | grep -q "folders use each other in a circle: src/high src/low$" \
  || fail "two --folders tops do not both count: $two"

# The fix a room circle asks for: the shared type in a header of its own, below both rooms.
mkdir -p "$T/good"
mk_tree "$T/good"
mkdir -p "$T/good/src/types"
printf '#pragma once\nstruct b_item { int n; };\n' >"$T/good/src/types/item.h"
printf '#pragma once\n#include "types/item.h"\nint a_count(struct b_item *x);\n' >"$T/good/src/low/a.h"
printf '#pragma once\n#include "types/item.h"\nint b_total(void);\n' >"$T/good/src/high/b.h"
compile "$T/good"
out=$(run_check "$T/good" 2>&1) || fail "the fixed tree still has a circle: $out"
echo "$out" | grep -q ", 0 circles" || fail "no count of circles: $out"

# The project itself has none.
scripts/check-cycles.py --build build --folders fs-state --folders replayer fs-state replayer reffs faultdev >"$T/self" 2>&1 \
  || { FAIL_LOG="$T/self"; fail "the project has circles"; }
exit 0
