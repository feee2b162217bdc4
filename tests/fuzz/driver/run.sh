#!/usr/bin/env bash
# make fuzz: each harness under libFuzzer for S seconds, JOBS at once; prints executions, coverage and crashes per harness.
# Usage: tests/fuzz/driver/run.sh BUILD_DIR SECONDS HARNESS...  (FUZZ_JOBS harnesses at once, default 1;
# new inputs go to BUILD_DIR/work/H, crashers to BUILD_DIR/crashes/H, logs to BUILD_DIR/log/H.txt)
set -u
fz=$1 secs=$2; shift 2
jobs=${FUZZ_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_JOBS must be a positive whole number, not '$jobs'" >&2; exit 2; }
cd "$(dirname "$0")/../../.." || exit 2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

fuzz_one() {
  local h=$1 work=$fz/work/$1 crashes=$fz/crashes/$1 log=$fz/log/$1.txt
  rm -rf "$crashes"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  # The committed corpus is read, never written: new inputs land in $work.
  "$fz/bin/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -dict="tests/fuzz/dict/$h.dict" -artifact_prefix="$crashes/" -print_final_stats=1 \
    "$work" "tests/fuzz/corpus/$h" > "$log" 2>&1
}

row() {
  local h=$1 log=$fz/log/$1.txt execs status cov ft n
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  status=$(grep -E '^#[0-9]+' "$log" | tail -n1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  n=$(find "$fz/crashes/$h" -type f | wc -l)
  printf '%-8s %12s %8s %8s %8s  %s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$n" "$log"
}

trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM
for h in "$@"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  fuzz_one "$h" &
done
wait
printf '%-8s %12s %8s %8s %8s  %s\n' harness executions cov ft crashes log
total_crashes=0
for h in "$@"; do
  row "$h"
  total_crashes=$((total_crashes + $(find "$fz/crashes/$h" -type f | wc -l)))
done
if [ "$total_crashes" -gt 0 ]; then
  echo "fuzz: $total_crashes crashing inputs in $fz/crashes/: fix the parser, then add each to tests/fuzz/corpus/<harness>/" >&2
  exit 1
fi
