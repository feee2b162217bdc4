#!/usr/bin/env bash
# Runs every installed target profile (configs/targets/*.ini) for CAMPAIGN_S seconds and writes FINDINGS.md from the runs and the profiles' verdict files.
#
# usage: scripts/campaign.sh [PROFILE...]   (default: every configs/targets/*.ini)
# env:   CAMPAIGN_S  seconds per profile (default 600)
#        CAMPAIGN_OUT  where the runs go (default runs/campaign-<UTC time>)
#        FINDINGS    the file written (default FINDINGS.md at the top level)
#        CAMPAIGN_TOGETHER  a share of concurrent steps (--together SHARE) for every run: the
#                    campaign's concurrent run, which rewrites only FINDINGS.md's section
#                    "Concurrent steps" (the rest stays the sequential campaign's)
# A profile names what it needs in its header: "; package: NAME" (its version goes into the
# findings) and "; needs: CMD ..." (commands that must be in PATH, else it is skipped as not
# installed). Each profile's verdicts are its known-classes file, configs/targets/NAME.known:
# a class's note starts with its verdict (bug, design or false-positive). A file CAMPAIGN_OUT/conditions.md
# (machine, load, what ran beside the runs), if written, goes into the findings as it is.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
metis=${METIS_BIN:-$top/bin}/metis
secs=${CAMPAIGN_S:-600}
out=${CAMPAIGN_OUT:-$top/runs/campaign-$(date -u +%Y%m%d-%H%M%S)}
findings=${FINDINGS:-$top/FINDINGS.md}
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "campaign: CAMPAIGN_S must be a positive number of seconds, not '$secs'" >&2; exit 2; }
[ -x "$metis" ] || { echo "campaign: $metis not built (run make)" >&2; exit 2; }
mkdir -p "$out" || exit 2

header() {   # $1 profile, $2 key: the header line's value
  sed -n "s/^; $2: *//p" "$1" | head -1
}

installed() {   # every command the profile needs is in PATH
  local c
  for c in $(header "$1" needs); do
    command -v "$c" >/dev/null 2>&1 || return 1
  done
}

run_profile() {   # $1 profile: runs it, records its status and version
  local p=$1 name dir pkg known
  name=$(basename "$p" .ini)
  dir=$out/$name
  pkg=$(header "$p" package)
  if ! installed "$p"; then
    echo "campaign: $name: not installed (needs $(header "$p" needs); make targets-deps)"
    mkdir -p "$dir" && echo "not installed" >"$dir/campaign-status"
    return
  fi
  known=${p%.ini}.known
  local args=(run "$p" --seconds "$secs" --keep-going --out "$dir")
  [ -f "$known" ] && args+=(--known "$known")
  [ -n "${CAMPAIGN_TOGETHER:-}" ] && args+=(--together "$CAMPAIGN_TOGETHER")
  echo "campaign: $name: $secs s"
  "$metis" "${args[@]}" >"$out/$name.stdout" 2>"$out/$name.stderr"
  local rc=$?
  echo "exit $rc" >"$dir/campaign-status"
  [ -n "$pkg" ] && dpkg-query -W -f '${Version}' "$pkg" >"$dir/campaign-version" 2>/dev/null
  echo "campaign: $name: exit $rc ($(grep -h "^ops=" "$out/$name.stdout" "$out/$name.stderr" 2>/dev/null | tail -1))"
}

profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=("$top"/configs/targets/*.ini)
for p in "${profiles[@]}"; do
  [ -f "$p" ] || { echo "campaign: no profile $p" >&2; exit 2; }
  run_profile "$p"
done
if [ -n "${CAMPAIGN_TOGETHER:-}" ]; then
  python3 "$top/scripts/findings.py" --together "$CAMPAIGN_TOGETHER" "$out" "$findings" "${profiles[@]}"
else
  python3 "$top/scripts/findings.py" "$out" "$findings" "${profiles[@]}"
fi
