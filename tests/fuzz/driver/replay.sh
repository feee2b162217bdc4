#!/usr/bin/env bash
# make check's corpus replay: each harness's replay driver over tests/fuzz/corpus/<harness>/; fails on the first harness that fails.
set -u
bin=$1; shift
cd "$(dirname "$0")/../../.." || exit 2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
start=$(date +%s.%N)
for h in "$@"; do
  out=$("$bin/replay_$h" "tests/fuzz/corpus/$h" 2>&1 >/dev/null) || {
    printf '%s\n' "$out" | grep -v '^replay: ' | grep -m1 -A14 -E 'ERROR|runtime error|^fuzz:' >&2
    printf '%s\n' "$out" | grep '^replay: ' | tail -n1 | sed 's/^replay: /fuzz-replay: the last input replayed: /' >&2
    echo "fuzz-replay: FAIL $h (a corpus file crashed, leaked or was refused without a one-line message)" >&2
    exit 1
  }
  printf 'fuzz-replay: %-8s %s files\n' "$h" "$(ls "tests/fuzz/corpus/$h" | wc -l)"
done
printf 'fuzz-replay: all %d harnesses passed in %.1f s\n' $# "$(echo "$(date +%s.%N) - $start" | bc)"
