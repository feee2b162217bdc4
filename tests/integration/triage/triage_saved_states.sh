#!/usr/bin/env bash
# Shrinking from saved states on a slow, image-backed FUSE target: fuse2fs (1.47.0's known xattr
# defects: removexattr of an absent name returns 0, setxattr ignores XATTR_CREATE and
# XATTR_REPLACE) against ext4. For the two classes with the longest search paths, a replay of its
# search path from the empty fs is timed; with two thirds of that time as the budget, shrink (from
# the run's exported states) still gives a trace of at most 3 operations that starts from a saved
# state. Both times are printed. The reproducer of a trace that starts from a saved state
# recreates it and bites. (A shrink of the same path from the empty fs is not compared: since the
# shrinker tries the shortest traces and the backward slice first, it finds these one- and
# two-operation defects from the empty fs in a few seconds too, so which of the two meets a
# budget says nothing about saved states.)
# alone: its budget is two thirds of a replay timed just before it; a neighbour test that starts
# between the two moves it by more than that.
. "$(dirname "$0")/../../lib/common.sh"
need_tools fuse2fs mkfs.ext4 python3 bc cc
B=$METIS_BIN
for b in metis metis-replay; do [ -x "$B/$b" ] || skip "$B/$b is not built"; done
[ -w /dev/fuse ] || skip "no /dev/fuse"
export REPRO_TMP=$T/repro-tmp
mkdir -p "$REPRO_TMP"
"$B/metis" run "$METIS_ROOT/tests/fixtures/triage/fuse2fs-slow.ini" --seconds 25 --out "$T/run" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || { tail -20 "$T/out"; fail "metis run exited $rc, want 1"; }
assert_no_leftovers "$(run_id_of "$T/out")"
# The two classes (defects) whose first examples have the longest search paths: a short path
# costs little more to replay than the file systems cost to set up, so it would prove nothing.
python3 - "$T/run" >"$T/classes" <<'PY' || fail "not two xattr defects found"
import json, sys
cs = [c for c in json.load(open(sys.argv[1] + "/summary.json"))["classes"]
      if c["signature"].split()[0].split("/")[0] in ("setxattr", "removexattr")]
for c in cs:
    print(c["signature"].split()[0].split("/")[0], c["detail"])
sys.exit(0 if len(cs) >= 2 else 1)
PY
while read -r op detail; do
    k=${detail%.txt}
    "$B/metis-replay" trace "$T/run/$detail" -o "$T/$k.full" >/dev/null 2>&1 || fail "$op: no search path"
    echo "$(grep -c '^op ' "$T/$k.full") $op $detail"
done <"$T/classes" | sort -rn | head -2 | cut -d' ' -f2- >"$T/picked"
[ "$(wc -l <"$T/picked")" = 2 ] || fail "no search paths for two classes"
now() { date +%s.%N; }
while read -r op detail; do
    d=$T/run/$detail k=${detail%.txt}
    path=$(grep -c '^op ' "$T/$k.full")
    t0=$(now)
    "$B/metis-replay" run "$T/$k.full" --config "$T/run/config.ini" --tries 1 >"$T/$k.run" 2>&1
    rc=$?
    empty=$(echo "$(now) - $t0" | bc)
    [ $rc = 1 ] || { tail -3 "$T/$k.run"; fail "$op: the search path did not reproduce from the empty fs (exit $rc)"; }
    budget=$(echo "scale=2; $empty * 2 / 3" | bc)
    t0=$(now)
    "$B/metis-replay" shrink "$d" --config "$T/run/config.ini" --fs fuse2fs --seconds "$budget" \
        -o "$T/$k.trace" >/dev/null 2>"$T/$k.shrink"
    rc=$?
    saved=$(echo "$(now) - $t0" | bc)
    [ $rc = 1 ] || { cat "$T/$k.shrink"; fail "$op: shrink from saved states exited $rc within $budget s"; }
    grep -q "starts from the saved state" "$T/$k.shrink" || fail "$op: the shrunk trace does not start from a saved state"
    grep -q "^start " "$T/$k.trace" && grep -q "^state fuse2fs " "$T/$k.trace" ||
        fail "$op: the trace has no start record or no saved state files"
    n=$(sed -n '/^start /,$p' "$T/$k.trace" | grep -c '^op ')
    [ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "$op: $n operations after the saved state, want 1..3"
    echo "$op ($detail): search path $path operations; replay from the empty fs ${empty} s; budget ${budget} s;" \
         "shrunk from a saved state to $n operation(s) in ${saved} s"
    last=$k
done <"$T/picked"
# The reproducer of a trace that starts from a saved state recreates it, then bites.
"$B/metis-replay" emit-c "$T/$last.trace" --config "$T/run/config.ini" --fs fuse2fs -o "$T/repro" \
    >"$T/emit" 2>&1 || { tail -5 "$T/emit"; fail "emit-c failed"; }
grep -q "The saved state the trace starts from" "$T/repro/repro.c" || fail "repro.c does not recreate the saved state"
"$T/repro/run.sh" >"$T/repro.fuse2fs" 2>&1
rc=$?
[ $rc = 1 ] || { tail -5 "$T/repro.fuse2fs"; fail "the reproducer exited $rc on fuse2fs, want 1"; }
"$T/repro/run.sh" ext4 >"$T/repro.ext4" 2>&1
rc=$?
[ $rc = 0 ] || { tail -5 "$T/repro.ext4"; fail "the reproducer exited $rc on ext4, want 0"; }
echo "ok: the reproducer exits 1 on fuse2fs and 0 on ext4"
