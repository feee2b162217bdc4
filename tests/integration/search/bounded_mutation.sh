#!/usr/bin/env bash
# search = bounded finds a planted RefFS defect (MUT_RMDIR_NONEMPTY: rmdir removes a directory that holds a file, three operations deep) on every seed, the seed changing only the order; its verdict says not verified; a run kept going past the defect can reuse its --out (search-N/ with saved states from the run before).
. "$(dirname "$0")/../../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
sed 's/^\[fs other\]$/[fs mut]\nreffs_opts = mutation=MUT_RMDIR_NONEMPTY/' \
  tests/fixtures/bounded/bounded-small.ini >"$T/mut.ini"
for seed in 1 2 3 4; do
  rm -rf "$T/run"   # a run directory keeps search-N/ of the run before it: a fresh one each
  run_mutant "$T/mut.ini" "$seed"
  rc=$?
  [ $rc -eq 1 ] || fail "seed $seed: exit status $rc, not 1"
  grep -q '^rmdir mut ' <(python3 -c 'import json,sys; [print(c["signature"]) for c in json.load(open(sys.argv[1]))["classes"]]' "$T/run/summary.json") \
    || fail "seed $seed: no rmdir class"
  last=$(tail -n1 "$T/out")
  echo "seed $seed: $last"
  [[ $last == "metis: not verified: 1 discrepancy class within depth <= 3 "* ]] \
    || fail "seed $seed: the verdict is not the defect's, three operations deep: $last"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["bounded"]["verified"] is False' \
    "$T/run/summary.json" || fail "seed $seed: summary.json calls it verified"
  assert_no_leftovers "$(run_id_of "$T/out")"
done
# --keep-going past the defect saves states into search-3/states/; the same --out again once
# failed moving the next run's states/ onto that directory (exit 3, "Directory not empty").
sed -i 's/^max_depth = 5/max_depth = 4/' "$T/mut.ini"
for round in 1 2; do
  run_mutant "$T/mut.ini" 1 --keep-going
  rc=$?
  [ $rc -eq 1 ] || fail "--keep-going, --out used the $round. time: exit status $rc, not 1"
  [ -d "$T/run/search-3/states" ] || fail "--keep-going: no search-3/states/, the reuse tests nothing"
  tail -n1 "$T/out" | grep -q "^metis: not verified: 1 discrepancy class within depth <= 4 " \
    || fail "--keep-going, round $round: $(tail -n1 "$T/out")"
done
assert_no_leftovers "$(run_id_of "$T/out")"
