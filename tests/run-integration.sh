#!/usr/bin/env bash
# Runs the integration tests (tests/integration/ROOM/*.sh, or those named), each with a time limit, and names every skip.
# INTEGRATION_JOBS (default 2) tests run at once: each test judges only what it made (its own run
# ids, devices and mounts), as it must beside nightly swarms on a shared host. A test whose
# header has a line `# alone: REASON` (it times something against a budget) runs after the
# others, by itself.
. "$(dirname "$0")/lib/common.sh"
. tests/lib/skips.sh
export METIS_BIN METIS_ROOT
tests=("$@"); [ ${#tests[@]} -eq 0 ] && tests=(tests/integration/*/*.sh)
# A test's log, verdict and skips are named by its NAME alone (skip-allowed.txt too), so two
# rooms may not hold the same NAME.
dups=$(for t in "${tests[@]}"; do basename "$t" .sh; done | sort | uniq -d)
[ -z "$dups" ] || { echo "integration: test names held twice:" $dups; exit 1; }
tests/prepare-host.sh || { echo "integration: host preparation failed"; exit 1; }
mkdir -p build/test-logs
pass=0 fail=0 skip=0 parts=0 failed=()
jobs=${INTEGRATION_JOBS:-2}
started=$(date +%s)

# note_parts NAME: the parts test NAME left out (skip_part in lib/common.sh), one skip each.
note_parts() {
  local part why skips=build/test-logs/$1.skips
  [ -s "$skips" ] || return 0
  while IFS=$'\t' read -r part why; do
    echo "    skipped part $1/$part: $why"
    skip_note "$1/$part" "$why"
    parts=$((parts + 1))
  done <"$skips"
}

# run_one TEST: runs it into build/test-logs/NAME.log and leaves "RC SECONDS" in NAME.rc.
run_one() {
  local name start rc
  name=$(basename "$1" .sh)
  rm -f "build/test-logs/$name.skips" "build/test-logs/$name.rc"
  start=$(date +%s.%N)
  METIS_SKIP_LOG=$METIS_ROOT/build/test-logs/$name.skips \
    timeout -k 10 "${TEST_TIMEOUT:-600}" bash "$1" >"build/test-logs/$name.log" 2>&1
  rc=$?
  echo "$rc $(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")" >"build/test-logs/$name.rc"
}

# verdict TEST: prints the finished test's line and counts it.
verdict() {
  local name rc secs
  name=$(basename "$1" .sh)
  read -r rc secs <"build/test-logs/$name.rc"
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
}

is_alone() { head -n 15 "$1" | grep -q '^# alone: '; }

# run_together TEST...: up to $jobs at once; each verdict is printed as its test ends.
run_together() {
  local t pids=() names=() i pid
  for t in "$@"; do
    while [ ${#pids[@]} -ge "$jobs" ]; do
      wait -n -p pid
      for i in "${!pids[@]}"; do
        [ "${pids[$i]}" = "$pid" ] || continue
        verdict "${names[$i]}"; unset "pids[$i]" "names[$i]"
      done
      pids=("${pids[@]}") names=("${names[@]}")
    done
    run_one "$t" & pids+=($!) names+=("$t")
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}"; verdict "${names[$i]}"; done
}

together=() alone=()
for t in "${tests[@]}"; do
  if is_alone "$t"; then alone+=("$t"); else together+=("$t"); fi
done
run_together "${together[@]}"
for t in "${alone[@]}"; do run_one "$t"; verdict "$t"; done
echo "integration: $pass passed, $fail failed, $skip skipped, $parts parts of passing tests skipped" \
     "in $(( $(date +%s) - started )) s ($jobs at once, ${#alone[@]} alone)"
skips_verdict integration || fail=$((fail + 1))
[ $fail -eq 0 ]
