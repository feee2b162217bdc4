#!/usr/bin/env bash
# make fuzz: each harness under libFuzzer for S seconds, one at a time; prints executions, coverage and crashes per harness.
# Usage: tests/fuzz/run.sh BUILD_DIR SECONDS HARNESS...  (new inputs go to BUILD_DIR/work/H, crashers to BUILD_DIR/crashes/H)
set -u
fz=$1 secs=$2; shift 2
cd "$(dirname "$0")/../.." || exit 2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
total_crashes=0
printf '%-8s %12s %8s %8s %8s  %s\n' harness executions cov ft crashes log
for h in "$@"; do
  work=$fz/work/$h crashes=$fz/crashes/$h log=$fz/log/$h.txt
  rm -rf "$crashes"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  # The committed corpus is read, never written: new inputs land in $work.
  "$fz/bin/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -dict="tests/fuzz/dict/$h.dict" -artifact_prefix="$crashes/" -print_final_stats=1 \
    "$work" "tests/fuzz/corpus/$h" > "$log" 2>&1
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  status=$(grep -E '^#[0-9]+' "$log" | tail -n1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  n=$(find "$crashes" -type f | wc -l)
  total_crashes=$((total_crashes + n))
  printf '%-8s %12s %8s %8s %8s  %s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$n" "$log"
done
if [ "$total_crashes" -gt 0 ]; then
  echo "fuzz: $total_crashes crashing inputs in $fz/crashes/: fix the parser, then add each to tests/fuzz/corpus/<harness>/" >&2
  exit 1
fi
