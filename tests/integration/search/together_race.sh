#!/usr/bin/env bash
# Concurrent steps find a planted race (MUT_RACE_INODE_LIMIT) in each of 5 seeds well within 60 s, where a sequential run of the same length does not; its class is shrunk to a few steps, and the reproducer issues the calls at once and exits 1 on the mutant, 0 on plain RefFS.
. "$(dirname "$0")/../../lib/common.sh"
B=$METIS_BIN
for b in metis metis-replay reffs reffs-mutant; do
    [ -x "$B/$b" ] || fail "$B/$b is not built"
done
command -v cc >/dev/null || fail "no C compiler for emit-c"
cfg=tests/fixtures/together/together-race.ini
summary() {  # RUN_DIR KEY
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1/summary.json" "$2"
}

# (a) 5 seeds: each stops at the race, a class of its own, in seconds.
for seed in 1 2 3 4 5; do
    FAIL_LOG=$T/s$seed.err
    start=$(date +%s.%N)
    "$B/metis" run "$cfg" --seed "$seed" --seconds 60 --out "$T/s$seed" 2>"$T/s$seed.err"
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    [ $rc -eq 1 ] || fail "seed $seed: exit status $rc, not 1 (a discrepancy)"
    grep -q 'discrepancy at operation .*together .* race not serializable' "$T/s$seed.err" ||
        fail "seed $seed: no 'together ... race not serializable' class"
    ops=$(summary "$T/s$seed" ops)
    # the run's own seconds, which its budget counts: pan's build and the set-up before them
    # (in the wall time) take several times as long on a busy machine
    took=$(summary "$T/s$seed" seconds)
    echo "seed $seed: found at operation $ops after $took s of the run's ($secs s wall, load $(cut -d' ' -f1 /proc/loadavg))"
    [ "$(echo "$took < 60" | bc)" = 1 ] || fail "seed $seed: took $took s"
    # (b) the same run, every step sequential: the race never shows.
    FAIL_LOG=$T/q$seed.err
    "$B/metis" run "$cfg" --seed "$seed" --together 0 --ops "$ops" --seconds 60 \
        --out "$T/q$seed" 2>"$T/q$seed.err" || fail "seed $seed: a sequential run of $ops operations found something"
done
assert_no_leftovers "$(run_id_of "$T/s1.err")"

# (c) seed 1's class shrunk to a few steps, ending in the concurrent step. The race needs a
# subdirectory and one free inode: 2 steps in 15 of 15 shrinks of seeds 1 to 5. Earlier
# concurrent steps lose the calls the race does not need (a path through several of them ended
# at up to 9 steps when only the last step lost calls).
FAIL_LOG=$T/shrink.err
"$B/metis-replay" shrink "$T/s1/discrepancy-1.txt" --seconds 60 -o "$T/min.trace" \
    >/dev/null 2>"$T/shrink.err"
rc=$?
[ $rc -eq 1 ] || fail "shrink exited $rc, not 1 (reproduced and shrunk)"
cat "$T/shrink.err"
n=$(awk '$1 == "end" { sub("ops=", "", $2); print $2 }' "$T/min.trace")
[ "$n" -le 3 ] || fail "the shrunk trace has $n steps"
grep -q '^op [0-9]* together ' "$T/min.trace" || fail "the shrunk trace lost its concurrent step"
grep -q 'serial=differs' "$T/min.trace" || fail "the shrunk trace records no race"
"$B/metis-replay" run "$T/min.trace" --tries 3 >"$T/run.out"
rc=$?
[ $rc -eq 1 ] || fail "metis-replay run of the shrunk trace exited $rc: $(tail -1 "$T/run.out")"
grep -q 'no serial order of the calls' "$T/run.out" || fail "the replay issued no race"

# (d) its reproducer: calls at once, try after try; 1 on the mutant, 0 on plain RefFS.
FAIL_LOG=$T/emit.out
"$B/metis-replay" emit-c "$T/min.trace" -o "$T/repro" >"$T/emit.out" 2>&1 || fail "emit-c failed"
grep -q pthread_barrier_wait "$T/repro/repro.c" || fail "the reproducer has no barrier"
repro_on() {  # FS EXIT PATTERN: run.sh on FS must exit EXIT and print PATTERN
    FAIL_LOG=$T/$1.out
    REPRO_TRIES=6 REPRO_TMP=$T "$T/repro/run.sh" "$1" >"$T/$1.out" 2>&1
    local rc=$?
    tail -n 1 "$T/$1.out"
    [ $rc -eq "$2" ] || fail "the reproducer exits $rc on $1, not $2"
    grep -q "$3" "$T/$1.out" || fail "on $1 the reproducer does not say '$3'"
}
repro_on race 1 'repro: [1-6] of 6 tries matched no serial order'
repro_on ref 0 '^repro: 0 of 6 tries matched no serial order'
echo PASS
