#!/usr/bin/env bash
# Every rule of RefFS's errno and semantics tables names a planted mutation or says why none can be caught; every mutation is named.
. "$(dirname "$0")/../../lib/common.sh"
mutant=$METIS_BIN/reffs-mutant
[ -x "$mutant" ] || fail "$mutant is missing"
"$mutant" -o mutation=list >"$T/list" || fail "reffs-mutant -o mutation=list failed"
[ "$(wc -l <"$T/list")" -ge 30 ] || fail "fewer than 30 mutations are planted"
# Each listed mutation has a rule of its own.
awk -F'\t' 'NF != 2 || length($2) < 15 { exit 1 }' "$T/list" || fail "a mutation is listed without its rule"
cut -f1 "$T/list" | sort >"$T/names"
grep -v '^#' tests/mutations/mutations.tsv | cut -f1 | sort >"$T/tsv"
diff "$T/names" "$T/tsv" >/dev/null || fail "tests/mutations/mutations.tsv and the mutant's list disagree"
# The plain daemon refuses mutations.
"$METIS_BIN/reffs" -o mutation=MUT_HOLE_GARBAGE /nonexistent 2>"$T/err" && fail "plain reffs accepted mutation="
grep -q 'only accepted by reffs-mutant' "$T/err" || fail "plain reffs gave no clear error for mutation="

python3 - "$METIS_ROOT/reffs/README.md" "$T/names" <<'PY' || exit 1
import re, sys
readme = open(sys.argv[1]).read()
listed = set(open(sys.argv[2]).read().split())
reason = re.compile(r'^— (kernel|pool|ops|sizing|walk|api)( and (kernel|pool|ops|sizing|walk|api))?: \S')

def rows(section_start, header):
    text = readme[readme.index(section_start):]
    text = text[:text.index('\n## ', 1)] if '\n## ' in text[1:] else text
    lines = text.split('\n')
    start = next(i for i, l in enumerate(lines) if l.startswith(header))
    out = []
    for l in lines[start + 2:]:
        if not l.startswith('|'):
            break
        out.append([c.strip() for c in l.strip().strip('|').split('|')])
    return out

errno_rows = rows('## ERRNO TABLE', '| call | errno |')
sem_rows = rows('### Which rule each mutation breaks', '| rule | mutation')
problems, named, counts = [], set(), {}
for label, table in (('errno', errno_rows), ('semantics', sem_rows)):
    with_mut = 0
    for r in table:
        cell = r[-1]
        muts = set(re.findall(r'MUT_[A-Z0-9_]+', cell))
        if muts:
            with_mut += 1
            named |= muts
            for m in muts - listed:
                problems.append(f'{label} row {r[:2]} names unknown mutation {m}')
        elif not reason.match(cell):
            problems.append(f'{label} row {r[:2]}: neither a mutation nor a reason: "{cell}"')
    counts[label] = (with_mut, len(table))
for m in sorted(listed - named):
    problems.append(f'mutation {m} is in no row of either table')
if len(errno_rows) < 80 or len(sem_rows) < 30:
    problems.append(f'tables too short to be the real ones: {len(errno_rows)} errno, {len(sem_rows)} semantics rows')
for p in problems:
    print('FAIL:', p)
e, s = counts['errno'], counts['semantics']
print(f'{len(listed)} mutations; rules with a mutation: errno table {e[0]} of {e[1]}, '
      f'semantics {s[0]} of {s[1]} (the others give a reason)')
sys.exit(1 if problems else 0)
PY
echo "PASS"
