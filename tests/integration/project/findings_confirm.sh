#!/usr/bin/env bash
# Every cause FINDINGS.md files as a bug or withdraws still confirms outside Metis: each tests/findings/ROOM/CAUSE/run.sh (tests/findings/*/*/run.sh) on the targets installed here, races at a shorter length, its measured rates printed.
. "$(dirname "$0")/../../lib/common.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (mounts)"
need_tools cc
rounds=${FINDINGS_ROUNDS:-1000}
# A race's rate falls with the machine's load (fuse2fs's open/unlink ENOENT: 38% of rounds
# alone, 3.8% at a load of 9, none in 1,000 at 12): a race that did not show is run once more
# at ten times the rounds before the finding counts as gone.
retry_rounds=$((rounds * 10))
# The races' runners take a round count; the others run their one fixed case.
takes_rounds() { case $1 in libfuse2-open-unlink|gocryptfs-open-unlink|fuse-estale-unlink) return 0 ;; esac; return 1; }

ran=0
for runner in tests/findings/*/*/run.sh; do
  name=$(basename "$(dirname "$runner")")
  args=()
  takes_rounds "$name" && args=("$rounds")
  start=$SECONDS
  "$runner" "${args[@]}" >"$T/$name.out" 2>&1
  rc=$?
  if [ $rc -eq 1 ] && takes_rounds "$name"; then
    echo "  $name: not shown in $rounds rounds; again with $retry_rounds"
    "$runner" "$retry_rounds" >"$T/$name.out" 2>&1
    rc=$?
  fi
  sed "s/^/  $name: /" "$T/$name.out" | tail -n 12
  echo "  $name: exit $rc in $((SECONDS - start)) s"
  case $rc in
  0) ran=$((ran + 1)) ;;
  77) skip_part "$name" "$(grep -m1 '^skip' "$T/$name.out" || echo 'its target is not installed')" ;;
  *) FAIL_LOG="$T/$name.out"; fail "$name no longer confirms what FINDINGS.md says (exit $rc)" ;;
  esac
done
[ $ran -gt 0 ] || skip "no finding's target is installed here"
# Judge only our own things: no mount of ours may be left (the runners mount below their own
# work directories, which mounts.sh names /tmp/metis-finding.*).
grep -q "metis-finding\." /proc/mounts && fail "a runner left a mount: $(grep metis-finding\. /proc/mounts | head -n 1)"
exit 0
