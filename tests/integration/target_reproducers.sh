#!/usr/bin/env bash
# Every shipped reproducer of a target bug (tests/targets/PROFILE/SLUG/run.sh) whose target is installed: it exits 1 on the target and 0 on the profile's reference.
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (mounts)"
need_tools cc
ran=0 skipped=()
profile_needs() {   # $1 profile: 0 when every command its "; needs:" line names is installed
  local c
  for c in $(sed -n 's/^; needs: *//p' "$1" | head -1); do
    command -v "$c" >/dev/null 2>&1 || return 1
  done
}
reference_of() {   # $1 profile: the name of its first [fs] section, the reference
  sed -n 's/^\[fs \([A-Za-z0-9._-]*\)\]$/\1/p' "$1" | head -1
}
check_one() {   # $1 reproducer dir, $2 reference name: run from a copy (run.sh builds beside itself)
  local src=$1 ref=$2 rc d=$T/copy
  rm -rf "$d" && cp -r "$src" "$d"
  REPRO_TMP=$T METIS_BIN=$METIS_BIN REFFS_BIN=$METIS_BIN/reffs "$d/run.sh" >"$T/out" 2>&1
  rc=$?
  [ $rc -eq 1 ] || { cat "$T/out"; fail "$src: exit $rc on the target, want 1 (the defect shows)"; }
  REPRO_TMP=$T METIS_BIN=$METIS_BIN REFFS_BIN=$METIS_BIN/reffs "$d/run.sh" "$ref" >"$T/out" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { cat "$T/out"; fail "$src: exit $rc on the reference $ref, want 0"; }
  local n
  n=$(grep -c '^op ' "$d/trace")
  [ "$n" -le 10 ] || fail "$src: $n operations, a shipped reproducer has at most 10"
}
for d in tests/targets/*/*/; do
  [ -x "$d/run.sh" ] || continue
  name=$(basename "$(dirname "$d")")
  profile=configs/targets/$name.ini
  [ -f "$profile" ] || fail "$d: no profile $profile"
  if ! profile_needs "$profile"; then
    skipped+=("$name"); continue
  fi
  check_one "${d%/}" "$(reference_of "$profile")"
  ran=$((ran + 1))
done
echo "reproducers: $ran ran (exit 1 on the target, 0 on the reference); not installed: ${skipped[*]:-none}"
[ $ran -gt 0 ] || skip "no reproducer's target is installed"
! findmnt -rn -o TARGET | grep -q -- "^$T/" || fail "a reproducer left a mount under $T"
! ls "$T" | grep -q '^metis-repro' || fail "a reproducer left its work directory in $T"
