#!/usr/bin/env bash
# scripts/nightly.sh end to end on ':' hosts with short bounds, two nights on the RefFS mutant
# with two planted defects: night 1 (one class known, a kept reproducer of a fixed class) prints
# "1 new (mkdir bad state mode), 1 known, 1 fixed", exits 1 and keeps the new class's reproducer;
# after `metis known add` of night 1, night 2 exits 0 with 0 new. Each night's dated directory
# holds the swarm's report, a JUnit file that validates and the recheck list.
. "$(dirname "$0")/../../lib/swarm.sh"
swarm_require
[ -x "$METIS_BIN/reffs-mutant" ] || skip "no $METIS_BIN/reffs-mutant"
need_tools cc xmllint
printf '2/:\n' >"$SW/hosts"
CFG=$METIS_ROOT/tests/fixtures/defects/two-defects.ini
S=${KNOWN_SECONDS:-5}
printf 'class: removexattr bad errno ENOENT, reference ENODATA\nnote: ENOENT for ENODATA\n\nclass: chmod bad state mode\nnote: old\n' >"$SW/known"
# A kept reproducer whose run.sh passes: its class counts as fixed.
mkdir -p "$SW/keep/chmod"
printf 'chmod bad state mode\n' >"$SW/keep/chmod/signature"
printf '#!/bin/sh\necho "repro: every step and the final tree match the reference"\nexit 0\n' >"$SW/keep/chmod/run.sh"

night() {  # N WANT_RC
    scripts/nightly.sh "$CFG" --hosts "$SW/hosts" --known "$SW/known" --reports "$SW/reports" \
        --reproducers "$SW/keep" --seconds "$S" -- --vts 2 --swarm-seed 5 >"$SW/night$1.out" 2>&1
    local rc=$?
    cat "$SW/night$1.out"
    [ $rc = "$2" ] || fail "night $1: nightly.sh exited $rc, want $2"
    [ "$(wc -l <"$SW/night$1.out")" = 1 ] || fail "night $1: not one line"
    dir=$(sed -n 's|.* report \(.*\)/swarm/report.html$|\1|p' "$SW/night$1.out")
    [ -d "$dir" ] && [ "${dir%/*}" = "$SW/reports" ] || fail "night $1: no dated directory in $SW/reports"
    [[ ${dir##*/} == $(date +%Y-%m-%d)* ]] || fail "night $1: $dir is not named by the date"
    [ -s "$dir/swarm/report.html" ] && [ -s "$dir/recheck.txt" ] || fail "night $1: no report or recheck list"
    xmllint --noout --schema tests/junit.xsd "$dir/junit.xml" || fail "night $1: junit.xml does not validate"
    cmp -s "$dir/line.txt" "$SW/night$1.out" || fail "night $1: line.txt is not the line printed"
    SW_OUT=$dir/swarm
}

re_ops='[1-9][0-9]* ops, 1/1 hosts, report /'
night 1 1
grep -q "^metis nightly $(date +%Y-%m-%d) two-defects: 1 new (mkdir bad state mode), 1 known, 1 fixed, $re_ops" \
    "$SW/night1.out" || fail "night 1: the line is not the expected one"
grep -q '^fixed: chmod bad state mode ' "$dir/recheck.txt" || fail "night 1: recheck did not list the fixed class"
[ "$(cat "$SW/keep/mkdir_bad_state_mode/signature" 2>/dev/null)" = "mkdir bad state mode" ] ||
    fail "night 1: the new class's reproducer was not kept"
assert_clean "$SW_OUT"

"$METIS" known add "$SW_OUT" --note "found on night 1" --to "$SW/known" >/dev/null || fail "known add failed"
night 2 0
grep -q ": 0 new, 2 known, 1 fixed, $re_ops" "$SW/night2.out" || fail "night 2: the line is not the expected one"
assert_clean "$SW_OUT"
echo "PASS: $(cat "$SW/night1.out") / $(cat "$SW/night2.out")"
