#!/usr/bin/env bash
# Runs the unit-test binary (the arguments after it passed on) and holds every test it skipped to tests/skip-allowed.txt.
. "$(dirname "$0")/lib/common.sh"
. tests/lib/skips.sh
bin=$1
shift
"$bin" "$@" 2>&1 | tee "$T/out"
rc=${PIPESTATUS[0]}
case " $* " in *" --list "* | *" -l "* | *" --help "* | *" -h "* | *" --version "*) exit "$rc" ;; esac
# tests/unit/skips_report.c prints this line last, even with no skip: without it, skips are unseen.
grep -q '^unit: [0-9]* skipped$' "$T/out" || { echo "unit: no skip report (is tests/unit/skips_report.c linked in?)"; exit 1; }
while IFS= read -r line; do
  line=${line#unit: skipped }
  skip_note "unit/${line%%: *}" "${line#*: }"
done < <(grep '^unit: skipped ' "$T/out")
skips_verdict unit || exit 1
exit "$rc"
