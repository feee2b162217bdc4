#!/usr/bin/env bash
# search = bounded finds a planted RefFS defect (MUT_RMDIR_NONEMPTY: rmdir removes a directory that holds a file, three operations deep) on every seed, the seed changing only the order; its verdict says not verified.
. "$(dirname "$0")/../lib/common.sh"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
sed 's/^\[fs other\]$/[fs mut]\nreffs_opts = mutation=MUT_RMDIR_NONEMPTY/' \
  tests/fixtures/bounded-small.ini >"$T/mut.ini"
for seed in 1 2 3 4; do
  rm -rf "$T/run"   # a run directory keeps search-N/ of the run before it
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
