# Holds the skips of a test run to the allow-list tests/skip-allowed.txt (sourced by run-integration.sh and run-unit.sh).
# A skip is a test that did not run; listed or not, each is named, and one that the list does
# not excuse fails the run (ALLOW_SKIPS=1: named, not failed, for a machine not set up by make
# deps and make targets-deps).
SKIP_ALLOWED=$METIS_ROOT/tests/skip-allowed.txt
skips_named=() skips_unexcused=0

# skip_allowed NAME: prints the list's reason when a line's name (a shell glob) covers NAME.
skip_allowed() {
  local pat why
  while read -r pat why; do
    case $pat in '' | '#'*) continue ;; esac
    case $why in '#'?*) ;; *) echo "tests/skip-allowed.txt: '$pat' has no '# reason'" >&2; return 1 ;; esac
    # shellcheck disable=SC2254  # the list's names are globs on purpose
    case $1 in $pat) echo "${why#\#}" | sed 's/^ *//'; return 0 ;; esac
  done <"$SKIP_ALLOWED"
  return 1
}

# skip_note NAME REASON: one skip, remembered for skips_verdict.
skip_note() {
  local why
  if why=$(skip_allowed "$1"); then
    skips_named+=("$1: $2 [allowed: $why]")
  else
    skips_named+=("$1: $2 [NOT on tests/skip-allowed.txt]")
    skips_unexcused=$((skips_unexcused + 1))
  fi
}

# skips_verdict WHAT: names every skip noted; 1 when one is not excused (unless ALLOW_SKIPS=1).
skips_verdict() {
  local s
  for s in "${skips_named[@]}"; do echo "$1: skipped $s"; done
  [ "$skips_unexcused" -eq 0 ] && return 0
  if [ "${ALLOW_SKIPS:-0}" = 1 ]; then
    echo "$1: $skips_unexcused skips not on tests/skip-allowed.txt (ALLOW_SKIPS=1: not a failure)"
    return 0
  fi
  echo "$1: $skips_unexcused skips not on tests/skip-allowed.txt: a test that did not run fails the run"
  return 1
}
