#!/usr/bin/env bash
# make check's part of the search table: three mutations that only the new search reaches (a readdir resumed at a cookie, a fill variant that strands one long search, utimes in an mtime search) are each reported by configs/general.ini on every seed, and the random walk runs beside it.
. "$(dirname "$0")/../../lib/common.sh"
command -v parallel >/dev/null || fail "GNU parallel is not installed (make deps)"
[ -x "$METIS_BIN/reffs-mutant" ] || fail "$METIS_BIN/reffs-mutant is missing"
muts=(MUT_READDIR_RESUME_SKIP MUT_WRITE_BOUNDARY_BYTE MUT_UTIMES_IGNORED)
ST_OUT=$T/st ST_OPS=20000 ST_SEEDS=2 ST_JOBS=2 \
  run_grouped "$METIS_ROOT/tests/mutations/search_table.sh" "${muts[@]}"
rc=$?
[ $rc -eq 0 ] || fail "search_table.sh exited with $rc"
for m in "${muts[@]}"; do
  for s in 1 2; do
    grep -qP "^first\t$m\tdefault\t$s\tcaught\t" "$T/st/results.tsv" ||
      fail "$m seed $s: not reported by general.ini: $(grep -P "^first\t$m\tdefault\t$s\t" "$T/st/results.tsv")"
  done
  [ "$(grep -cP "^first\t$m\trandom\t" "$T/st/results.tsv")" -eq 2 ] || fail "$m: the random walk did not run twice"
done
grep -q '^| MUT_READDIR_RESUME_SKIP | ' "$T/out" || fail "no table row for MUT_READDIR_RESUME_SKIP"
grep -q '^default at or below random: [0-9]* of 3 ' "$T/out" || fail "no verdict line"
echo PASS
