#!/usr/bin/env bash
# Runs the integration tests (tests/integration/*.sh, or those named), each with a time limit, and names every skip.
. "$(dirname "$0")/lib/common.sh"
. tests/lib/skips.sh
export METIS_BIN METIS_ROOT
tests/prepare-host.sh || { echo "integration: host preparation failed"; exit 1; }
mkdir -p build/test-logs
pass=0 fail=0 skip=0 parts=0 failed=()
tests=("$@"); [ ${#tests[@]} -eq 0 ] && tests=(tests/integration/*.sh)

# note_parts NAME: the parts test NAME left out (skip_part in lib/common.sh), one skip each.
note_parts() {
  local part why
  [ -s "$METIS_SKIP_LOG" ] || return 0
  while IFS=$'\t' read -r part why; do
    echo "    skipped part $1/$part: $why"
    skip_note "$1/$part" "$why"
    parts=$((parts + 1))
  done <"$METIS_SKIP_LOG"
}

for t in "${tests[@]}"; do
  name=$(basename "$t" .sh)
  export METIS_SKIP_LOG=$METIS_ROOT/build/test-logs/$name.skips
  rm -f "$METIS_SKIP_LOG"
  start=$(date +%s.%N)
  timeout -k 10 "${TEST_TIMEOUT:-600}" bash "$t" >"build/test-logs/$name.log" 2>&1
  rc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  case $rc in
    0) pass=$((pass+1)); echo "PASS $name (${secs}s)";;
    77) skip=$((skip+1)); why=$(tail -n1 "build/test-logs/$name.log"); echo "SKIP $name: $why"
        skip_note "$name" "${why#skip: }";;
    *) fail=$((fail+1)); failed+=("$name"); echo "FAIL $name (rc=$rc, ${secs}s)"
       # The test's own "FAIL:" line first: the log's tail is often the run's error file.
       grep -m1 '^FAIL: ' "build/test-logs/$name.log" | sed 's/^/    /'
       tail -n 20 "build/test-logs/$name.log" | sed 's/^/    /';;
  esac
  note_parts "$name"
done
echo "integration: $pass passed, $fail failed, $skip skipped, $parts parts of passing tests skipped"
skips_verdict integration || fail=$((fail + 1))
[ $fail -eq 0 ]
