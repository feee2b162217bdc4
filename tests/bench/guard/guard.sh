#!/usr/bin/env bash
# make bench's guard for a few configs: their CPU time per operation against tests/bench/guard/baseline.tsv.
# Usage: tests/bench/guard/guard.sh [--write FILE] CONFIG...
# Runs each CONFIG for BENCH_SECONDS (default 20) BENCH_ROUNDS times (default 1; the least CPU
# time per operation counts; a config that would fail is measured twice more) and compares with BENCH_BASELINE (default tests/bench/guard/baseline.tsv): a FAIL line for
# each config more than BENCH_GUARD_LIMIT percent (default 20) slower, and exit 1 if any.
# --write FILE writes the measurements to FILE as a baseline instead of comparing.
. "$(dirname "$0")/../../lib/common.sh"
. tests/lib/bench_cpu.sh
write=
if [ "${1:-}" = "--write" ]; then
  write=$(from_caller "$2")
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: tests/bench/guard/guard.sh [--write FILE] CONFIG..." >&2; exit 2; }
secs=${BENCH_SECONDS:-20} rounds=${BENCH_ROUNDS:-1}
baseline=$(from_caller "${BENCH_BASELINE:-$METIS_ROOT/tests/bench/guard/baseline.tsv}")
measured=$T/measured.tsv
for arg in "$@"; do
  cfg=$(from_caller "$arg")
  name=$(basename "$cfg" .ini)
  : >"$T/$name.rounds"
  for r in $(seq 1 "$rounds"); do
    bench_cpu_of "$METIS_BIN" "$cfg" "$secs" "$T/$name-$r" >>"$T/$name.rounds"
  done
  # the round of the least CPU time per operation (other load only adds to it)
  sort -g -k3 "$T/$name.rounds" | head -n1 |
    awk -v n="$name" -v s="$secs" -v c="$cfg" '{ printf "%s\t%s\t%s\t%s\t%s\n", n, s, $3, $2, c }' \
    >>"$measured"
done
if [ -n "$write" ]; then
  cut -f1-4 "$measured" >"$write"
  exit 0
fi
bench_recheck "$METIS_BIN" "$measured" "$baseline" "${BENCH_GUARD_LIMIT:-20}"
tests/bench/guard/guard_compare.py "$measured" "$baseline" "${BENCH_GUARD_LIMIT:-20}"
