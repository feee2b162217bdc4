#!/usr/bin/env bash
# Runs make check round after round on a host shared as CI machines are (another Metis run, busy CPU loops beside it): what failed in each round, the load, the time, and whether the other run was left alone.
. "$(dirname "$0")/lib/common.sh"

usage() {
  cat <<'EOF'
usage: tests/shared-host.sh [OPTION]... [MAKE_ARG]... [-- MAKE_ARG...]
Runs `make check MAKE_ARG...` ROUNDS times while, beside it, another Metis run
(configs/ref-vs-ext4.ini with op_timeout = 120, started afresh whenever it ends) and BUSY CPU
loops go on, as on a developer's machine running a nightly swarm or a shared CI host. Not part
of make check.
  --rounds N         rounds of make (default 2)
  --busy N           busy CPU loops (default 2)
  --other-seconds S  the other run's --seconds; it is started again when it ends (default 600)
  --target TARGET    the make target (default check; e.g. integration, with
                     IT="tests/integration/ROOM/a.sh tests/integration/ROOM/b.sh" to run a subset)
  --out DIR          where each round's output and the other run's go (default build/shared-host)
MAKE_ARG: passed to make as is (WERROR=1, SANITIZE=1, IT=...; after --, options such as -k,
which goes on past a failing part of check to run the rest).
Reports every failing test per round, the 1-minute load average's min/mean/max (sampled every
2 s, with the CPU and I/O pressure where the kernel tells it), stalls of the host (2-s looks
more than 5 s apart) and the wall time of each round; then whether the other run kept its loop device and its RefFS mount while its search went on,
and ended each time with exit 0 or 1 (never 3).
Everything it started is stopped and removed at its end, on SIGINT and SIGTERM too.
exit status: 0 every round passed and the other run was left alone, 1 otherwise, 2 bad usage,
130 interrupted
EOF
}

rounds=2 busy=2 other_s=600 target=check out=$METIS_ROOT/build/shared-host
make_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --rounds | --busy | --other-seconds | --target | --out)
      [ $# -ge 2 ] || { echo "shared-host: $1 needs a value" >&2; exit 2; }
      case $1 in
        --rounds) rounds=$2 ;; --busy) busy=$2 ;; --other-seconds) other_s=$2 ;;
        --target) target=$2 ;; --out) out=$(from_caller "$2") ;;
      esac
      shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; make_args+=("$@"); break ;;
    -*) echo "shared-host: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) make_args+=("$1"); shift ;;
  esac
done
for n in "$rounds" "$busy" "$other_s"; do
  case $n in '' | *[!0-9]*) echo "shared-host: '$n' is not a count" >&2; exit 2 ;; esac
done
[ "$rounds" -ge 1 ] && [ "$other_s" -ge 1 ] || { echo "shared-host: rounds and seconds start at 1" >&2; exit 2; }

mkdir -p "$out" || exit 2
# only what an earlier call wrote: --out may name a directory that holds more
rm -f "$out"/report.txt "$out"/build.log "$out"/round-*.log "$out"/other.exits "$out"/other-*
say() { echo "shared-host: $*" | tee -a "$out/report.txt"; }

# descendants PID...: every process below them, each parent before its children.
descendants() {
  ps -e -o pid=,ppid= | awk -v roots="$*" '
    { kids[$2] = kids[$2] " " $1 }
    END {
      n = split(roots, queue, " ")
      for (i = 1; i <= n; i++) {
        m = split(kids[queue[i]], k, " ")
        for (j = 1; j <= m; j++) { print k[j]; queue[++n] = k[j] }
      }
    }'
}

# stop_tree PID: SIGTERM to PID and all below it (the tests' exit traps then remove what they
# made), SIGKILL to what is left after 60 s. make's own children ignore SIGINT (they are
# asynchronous commands of a script), and timeout(1) puts each test in a process group of its
# own, so neither a group signal nor SIGINT would reach them all.
stop_tree() {
  local pids
  pids="$1 $(descendants "$1")"
  # shellcheck disable=SC2086 # a list of pids
  kill -TERM $pids 2>/dev/null
  # shellcheck disable=SC2086
  wait_for 60 all_gone $pids
  # shellcheck disable=SC2086
  pids="$pids $(descendants $pids)"
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null
  return 0
}
all_gone() {
  local p
  for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done
  return 0
}

# ---- what goes on beside make ----
# The other run uses a copy of the programs and of the kit pan is built against: make check
# may rebuild them (WERROR=1, SANITIZE=1) while it runs, and that is no disturbance of its own.
make --no-print-directory all >"$out/build.log" 2>&1 || { tail -n 20 "$out/build.log"; fail "make all failed"; }
kit=$T/kit
mkdir -p "$kit/lib"
cp -r bin "$kit/bin" && cp -r lib/metis "$kit/lib/metis" || fail "cannot copy bin/ and lib/metis"
# configs/ref-vs-ext4.ini with op_timeout = 120 on each fs. A host that stalls for more than
# the default 10 s is no disturbance by make check (on a shared 2-core machine, two plain runs
# side by side, nothing else of ours going, both ended with exit 3 on a step that "timed out
# after 10 s", within seconds of each other); a test that unmounts, detaches or kills the
# other run's things makes its calls fail at once (ENOTCONN, EIO), and a stopped daemon still
# shows after 120 s.
other_cfg=$T/other.ini
sed 's/^\(\[fs .*\]\)$/\1\nop_timeout = 120/' configs/ref-vs-ext4.ini >"$other_cfg"
[ "$(grep -c '^op_timeout = 120$' "$other_cfg")" = "$(grep -c '^\[fs ' configs/ref-vs-ext4.ini)" ] ||
  fail "cannot set op_timeout in a copy of configs/ref-vs-ext4.ini"

# other_runner: the other run, started again whenever it ends, until SIGTERM (then SIGINT to
# it). Each instance's exit status goes to $out/other.exits as "K STATUS RUN_ID".
other_runner() {
  local k=0 rc pid stopping=0
  trap 'stopping=1; kill -INT $pid 2>/dev/null' TERM
  while [ $stopping = 0 ]; do
    k=$((k + 1))
    METIS_BIN=$kit/bin "$kit/bin/metis" run "$other_cfg" --seconds "$other_s" \
      --out "$T/other-$k" >"$out/other-$k.out" 2>"$out/other-$k.err" &
    pid=$!
    echo "$k $pid" >"$T/other.now"
    # wait returns early when the trap runs: wait again until the run has really ended
    while :; do
      wait "$pid"
      rc=$?
      kill -0 "$pid" 2>/dev/null || break
    done
    echo "$k $rc $(run_id_of "$out/other-$k.err")" >>"$out/other.exits"
    # its log grows by megabytes a minute: only the summary is kept
    cp "$T/other-$k/summary.json" "$out/other-$k.summary.json" 2>/dev/null
    rm -rf --one-file-system "$T/other-$k"
  done
}

runner_pid='' make_pid='' busy_pids=()
finish() {
  [ -n "$make_pid" ] && stop_tree "$make_pid"
  [ ${#busy_pids[@]} -gt 0 ] && kill "${busy_pids[@]}" 2>/dev/null
  if [ -n "$runner_pid" ]; then
    kill -TERM "$runner_pid" 2>/dev/null
    wait_for 120 gone "$runner_pid" || stop_tree "$runner_pid"
  fi
  make_pid='' runner_pid='' busy_pids=()
}
on_exit finish
# failures_of LOG: what failed in a round's log, integration tests (FAIL NAME), unit tests
# ([FAIL] SUITE::TEST) and make targets, one a line, indented.
failures_of() {
  grep -E '^FAIL [^ ]+|^\[FAIL\] |^make(\[[0-9]+\])?: \*\*\* ' "$1" | sed 's/^/    /'
}
# stopped HOW: a round cut short still reports what had failed in it by then.
stopped() {
  if [ -n "$make_pid" ]; then
    failures_of "$log" >"$T/failed"
    say "round $round $1 after $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s, load $(spread "$T/load"); $(grep -c . "$T/failed") failure(s) so far"
    tee -a "$out/report.txt" <"$T/failed"
  fi
  echo "shared-host: $1" >&2
}
trap 'stopped interrupted; exit 130' INT
trap 'stopped terminated; exit 143' TERM

other_runner &
runner_pid=$!
for _ in $(seq "$busy"); do
  sh -c 'while :; do :; done' &
  busy_pids+=($!)
done

# check_other: one look at the other run: while its search goes on (operations in its log, no
# end record yet), its ext4 image is on a loop device and its RefFS is mounted. A look that
# misses one counts only when, half a second later, it is still missing and the run is still
# in the same search, not yet ending: a new search sets every fs up afresh.
other_looks=0 other_missing=()
check_other() {
  local k pid id log ino what
  read -r k pid <"$T/other.now" 2>/dev/null || return 0
  id=$(run_id_of "$out/other-$k.err")
  log=$T/other-$k/log.txt
  [ -n "$id" ] && kill -0 "$pid" 2>/dev/null || return 0
  grep -q -m1 '^op ' "$log" 2>/dev/null && ! ending "$log" || return 0
  ino=$(stat -c %i "$log" 2>/dev/null)
  what=$(other_lacks "$id")
  other_looks=$((other_looks + 1))
  [ -n "$what" ] || return 0
  sleep 0.5
  what=$(other_lacks "$id")
  if [ -n "$what" ] && kill -0 "$pid" 2>/dev/null && ! ending "$log" &&
     [ "$(stat -c %i "$log" 2>/dev/null)" = "$ino" ]; then
    other_missing+=("round $round, $(date +%T): run $id (instance $k) lacked$what")
    say "the other run $id lacks$what while its search goes on"
  fi
}
# ending LOG: the search has written its end record (the last thing before its teardown).
ending() { tail -c 4096 "$1" 2>/dev/null | grep -q '^end '; }
other_lacks() {
  losetup -n -l -O BACK-FILE | grep -qx "/dev/shm/metis-$1/ext4.img" || printf ' its loop device'
  findmnt -rn -o TARGET | grep -q "/metis-$1/mnt-ref$" || printf ' its RefFS mount'
}

# spread FILE: min, mean and max of the numbers in FILE, one a line.
spread() {
  awk '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
       END { if (NR) printf "min %.2f mean %.2f max %.2f (%d samples)", lo, s / NR, hi, NR }' "$1"
}

# ---- the rounds ----
say "$rounds round(s) of make $target ${make_args[*]} beside another Metis run (configs/ref-vs-ext4.ini, --seconds $other_s) and $busy busy loop(s); output in $out"
failed_rounds=0
for round in $(seq "$rounds"); do
  log=$out/round-$round.log
  : >"$T/load"; : >"$T/cpu"; : >"$T/io"; : >"$T/stalls"
  start=$SECONDS
  make --no-print-directory "$target" "${make_args[@]}" >"$log" 2>&1 &
  make_pid=$!
  last=$(date +%s.%N)
  while kill -0 "$make_pid" 2>/dev/null; do
    # a look that comes more than 5 s after the last (2 s of sleep and the looks between):
    # this script was not run for seconds, and nor, likely, was anything else on the host
    now=$(date +%s.%N)
    echo "$now - $last > 5" | bc | grep -q 1 && echo "$(date +%T) $(echo "$now - $last" | bc)" >>"$T/stalls"
    last=$now
    cut -d' ' -f1 /proc/loadavg >>"$T/load"
    # the share of the last 10 s in which some task waited for CPU, for I/O (where the kernel
    # tells): a stall of the whole host shows there, not in the load average
    for r in cpu io; do
      sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' "/proc/pressure/$r" 2>/dev/null >>"$T/$r"
    done
    check_other
    sleep 2
  done
  wait "$make_pid"
  rc=$?
  make_pid=
  took=$((SECONDS - start))
  load=$(spread "$T/load")
  failures_of "$log" >"$T/failed"
  n=$(grep -cE '^    (FAIL |\[FAIL\] )' "$T/failed")
  [ $rc -eq 0 ] || failed_rounds=$((failed_rounds + 1))
  say "round $round: make $target exit $rc, $n failing test(s), $((took / 60))m$((took % 60))s, load $load"
  [ -s "$T/cpu" ] && say "round $round: % of time waiting (some avg10): CPU $(spread "$T/cpu"), I/O $(spread "$T/io")"
  [ -s "$T/stalls" ] && say "round $round: $(wc -l <"$T/stalls") stall(s) of this script's 2-s looks (at, seconds between looks): $(tr '\n' ' ' <"$T/stalls")"
  [ -s "$T/failed" ] && tee -a "$out/report.txt" <"$T/failed"
  grep -E '^integration: |^Synthesis: ' "$log" | sed 's/^/    /' | tee -a "$out/report.txt"
done

# ---- the other run ----
finish
disturbed=0
while read -r k st id; do
  # the last one was stopped by finish with SIGINT (130); any other ended by itself
  case $st in
    0 | 1) ;;
    130) [ "$k" = "$(wc -l <"$out/other.exits")" ] || { say "the other run $id ended with 130, interrupted by someone"; disturbed=1; } ;;
    *) why=$(grep -m1 'infrastructure failure' "$out/other-$k.err" || tail -n1 "$out/other-$k.err")
       say "the other run $id (instance $k) ended with exit $st, not 0 or 1: $why"; disturbed=1 ;;
  esac
done <"$out/other.exits"
[ ${#other_missing[@]} -eq 0 ] || disturbed=1
say "the other run: $(wc -l <"$out/other.exits") instance(s), exits $(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }' "$out/other.exits") (the last stopped at the end); $other_looks looks while it searched, ${#other_missing[@]} without its loop device or RefFS mount"
if [ $failed_rounds -eq 0 ] && [ $disturbed -eq 0 ]; then
  say "PASS: $rounds round(s) passed, the other run was left alone"
  exit 0
fi
say "FAIL: $failed_rounds of $rounds round(s) failed$([ $disturbed = 1 ] && echo ', the other run was disturbed')"
exit 1
