#!/usr/bin/env bash
# Runs the integration tests (tests/integration/*.sh, or those named), each with a time limit.
. "$(dirname "$0")/lib/common.sh"
export METIS_BIN METIS_ROOT
tests/prepare-host.sh || { echo "integration: host preparation failed"; exit 1; }
mkdir -p build/test-logs
pass=0 fail=0 skip=0 failed=()
tests=("$@"); [ ${#tests[@]} -eq 0 ] && tests=(tests/integration/*.sh)
for t in "${tests[@]}"; do
  name=$(basename "$t" .sh)
  start=$(date +%s.%N)
  timeout -k 10 "${TEST_TIMEOUT:-600}" bash "$t" >"build/test-logs/$name.log" 2>&1
  rc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  case $rc in
    0) pass=$((pass+1)); echo "PASS $name (${secs}s)";;
    77) skip=$((skip+1)); echo "SKIP $name: $(tail -n1 "build/test-logs/$name.log")";;
    *) fail=$((fail+1)); failed+=("$name"); echo "FAIL $name (rc=$rc, ${secs}s)"; tail -n 20 "build/test-logs/$name.log" | sed 's/^/    /';;
  esac
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
